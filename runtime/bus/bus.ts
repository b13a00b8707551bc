/** Receives a published message and the subject it was published on. */
export type BusHandler = (message: unknown, subject: string) => void;

/** Answers one request; its result (or rejection) goes back to the requester. */
export type BusResponder = (message: unknown) => unknown;

/** Why a request got no answer: nobody serves the subject, or the responder took too long. */
export class BusRequestError extends Error {
  override name = 'BusRequestError';
  constructor(
    readonly reason: 'no_responders' | 'timeout',
    subject: string,
  ) {
    super(reason === 'no_responders' ? `no responder for ${subject}` : `request on ${subject} timed out`);
  }
}

/**
 * Messages between the parts of the runtime, and (in cluster mode) between nodes: fire-and-forget
 * publish/subscribe and request/reply, with NATS subject rules (tokens split by `.`, `*` matches
 * one token, a final `>` one or more). `LocalBus` serves one process; a NATS one serves a
 * cluster. Messages are plain data and are never changed after publishing.
 */
export interface Bus {
  /** Delivers `message` to every current subscriber of a matching subject; nothing is kept. */
  publish(subject: string, message: unknown): void;
  /** Subscribes to `subject` (wildcards allowed); returns the unsubscribe. */
  subscribe(subject: string, handler: BusHandler): () => void;
  /** Sends `message` to one responder of `subject`; resolves with its answer or rejects with {@link BusRequestError}. */
  request(subject: string, message: unknown, options?: { timeoutMs?: number }): Promise<unknown>;
  /** Serves requests on `subject`; returns the stop. */
  respond(subject: string, responder: BusResponder): () => void;
  close(): Promise<void>;
}

/** Whether `subject` (no wildcards) matches `pattern` (NATS wildcards). */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  const want = pattern.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    const token = want[i]!;
    if (token === '>') return i === want.length - 1 && have.length > i;
    if (i >= have.length) return false;
    if (token !== '*' && token !== have[i]) return false;
  }
  return want.length === have.length;
}
