import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { randomBase62 } from '../../runtime/ids.js';

/** A JSON-RPC request (method and id), checked here so the SDK's schema module is not loaded at start. */
function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

/** A request the server sent a client (an elicitation) and is waiting an answer to. */
interface Waiting {
  /** Hands the client's answer to the server that asked, under the id that server used. */
  deliver(message: JSONRPCMessage): void;
  /** The caller the request went to: only they may answer it. */
  callerKey: string;
}

/** A JSON-RPC response (a result or an error) with its id. */
type JsonRpcAnswer = JSONRPCMessage & { id: RequestId };

/** Whether `message` answers a request (has an id and a result or an error, and no method). */
export function isAnswer(message: unknown): message is JsonRpcAnswer {
  return (
    typeof message === 'object' &&
    message !== null &&
    'id' in message &&
    !('method' in message) &&
    ('result' in message || 'error' in message)
  );
}

/**
 * Server-to-client requests across stateless requests. A tool asking the user to confirm sends an
 * `elicitation/create` request on the SSE stream of the tool call; the client answers it in a new
 * POST, which in stateless mode reaches a new server that never sent it. Every request a server
 * sends therefore gets a process-unique id here, and a POST that only carries answers to such ids
 * is handed to the server still waiting for them (only when it comes from the same caller).
 * In a cluster the answer must reach the node holding the tool call (sticky routing); when it
 * cannot, the server's wait times out and the tool falls back to the two-call approval.
 */
export class ServerRequests {
  private readonly waiting = new Map<string, Waiting>();

  /** Number of requests waiting for an answer. */
  get size(): number {
    return this.waiting.size;
  }

  /**
   * Delivers answers to the servers waiting for them. True when every message was such an answer
   * from the caller it was sent to; false when none is waited for (the POST is handled normally).
   */
  deliver(messages: readonly unknown[], callerKey: string): 'delivered' | 'unknown' | 'not_answers' {
    if (messages.length === 0 || !messages.every(isAnswer)) return 'not_answers';
    const found = messages.map((message) => ({ message, waiting: this.waiting.get(String(message.id)) }));
    if (found.some(({ waiting }) => !waiting || waiting.callerKey !== callerKey)) return 'unknown';
    for (const { message, waiting } of found) waiting!.deliver(message);
    return 'delivered';
  }

  /** Wraps `inner` so requests it sends get process-unique ids routed back here. */
  wrap(inner: Transport, callerKey: string): Transport {
    return new RelayTransport(inner, this.waiting, callerKey);
  }
}

/** A transport that renames the ids of outgoing requests and takes their answers back from {@link ServerRequests}. */
class RelayTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private readonly mine = new Set<string>();

  constructor(
    private readonly inner: Transport,
    private readonly waiting: Map<string, Waiting>,
    private readonly callerKey: string,
  ) {
    inner.onclose = () => {
      this.forget();
      this.onclose?.();
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!isRequest(message)) return this.inner.send(message, options);
    const original = message.id;
    const id = `svc-${randomBase62(22)}`;
    this.mine.add(id);
    this.waiting.set(id, {
      callerKey: this.callerKey,
      deliver: (answer) => {
        this.waiting.delete(id);
        this.mine.delete(id);
        this.onmessage?.({ ...answer, id: original });
      },
    });
    return this.inner.send({ ...message, id }, options);
  }

  close(): Promise<void> {
    this.forget();
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  private forget(): void {
    for (const id of this.mine) this.waiting.delete(id);
    this.mine.clear();
  }
}
