import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { countPromptTokens, countTokens } from '../protocols/tokens.js';
import { messageText, type ChatMessage } from '../protocols/chat.js';

/** One request the fake upstream received. */
export interface CapturedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body, parsed (or the raw text when it is not JSON). */
  body: any;
  /** Resolves when the response ends or the connection goes: `finished` is false when cut short. */
  closed: Promise<{ finished: boolean }>;
}

/** Answers one request; the response is the plain `node:http` one. */
export type FakeHandler = (request: CapturedRequest, res: ServerResponse) => void | Promise<void>;

/** A running fake upstream on an ephemeral loopback port. */
export interface FakeUpstream {
  /** The base URL, ending in `/v1`. */
  url: string;
  requests: CapturedRequest[];
  /** Requests whose response has not closed yet, now and at most. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  /** TCP connections accepted so far (keep-alive reuse keeps this low). */
  readonly connections: number;
  close(): Promise<void>;
}

/** Starts an HTTP server on 127.0.0.1 port 0 that records every request and lets `handler` answer. */
export async function startFakeUpstream(handler: FakeHandler): Promise<FakeUpstream> {
  const requests: CapturedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const closed = new Promise<{ finished: boolean }>((resolve) => {
      res.once('close', () => {
        inFlight--;
        resolve({ finished: res.writableFinished });
      });
    });
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON; keep the text
      }
      const captured: CapturedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        closed,
      };
      requests.push(captured);
      Promise.resolve(handler(captured, res)).catch(() => res.destroy());
    });
  });
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL where nothing listens: a port bound and released again. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

/** A `chat.completion.chunk` with one choice (or none, for a usage-only chunk). */
export function chunk(fields: {
  content?: string;
  toolCalls?: unknown[];
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  noChoice?: boolean;
}): unknown {
  const delta: Record<string, unknown> = {};
  if (fields.content !== undefined) delta.content = fields.content;
  if (fields.toolCalls !== undefined) delta.tool_calls = fields.toolCalls;
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'upstream-model',
    choices: fields.noChoice ? [] : [{ index: 0, delta, finish_reason: fields.finishReason ?? null }],
    ...(fields.usage ? { usage: fields.usage } : {}),
  };
}

/** Starts an SSE response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

/** Writes one `data:` event (objects as JSON, strings as they are). */
export function sendEvent(res: ServerResponse, data: unknown): void {
  res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** The rest of a started SSE answer: the given events, then `[DONE]`, then the end. */
export function finishSse(res: ServerResponse, events: unknown[]): void {
  for (const event of events) sendEvent(res, event);
  sendEvent(res, '[DONE]');
  res.end();
}

/** A whole SSE answer: the given events, then `[DONE]`, then the end. */
export function answerSse(res: ServerResponse, events: unknown[]): void {
  startSse(res);
  finishSse(res, events);
}

/** Answers with a status and a JSON body. */
export function answerJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * A simple deterministic model: it echoes the last user message in one-token pieces, honours
 * `max_tokens` by the shared token rule (finish `length`), paces pieces a millisecond apart, and
 * reports usage when asked with `stream_options.include_usage`. Without `stream` it answers JSON.
 */
export const echoModel: FakeHandler = async (request, res) => {
  const messages = request.body.messages as ChatMessage[];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const text = `You said: ${lastUser ? messageText(lastUser) : 'nothing'}. That is all I can say for now.`;
  const pieces = text.match(/\s*[\p{L}\p{N}]{1,6}|\s*[^\s\p{L}\p{N}]/gu) ?? [];
  const maxTokens: number = request.body.max_tokens ?? Number.MAX_SAFE_INTEGER;
  const kept: string[] = [];
  let completionTokens = 0;
  let finishReason = 'stop';
  for (const piece of pieces) {
    if (completionTokens + countTokens(piece) > maxTokens) {
      finishReason = 'length';
      break;
    }
    completionTokens += countTokens(piece);
    kept.push(piece);
  }
  const usage = { prompt_tokens: countPromptTokens(messages), completion_tokens: completionTokens };
  if (!request.body.stream) {
    answerJson(res, 200, {
      id: 'chatcmpl-echo',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: kept.join('') }, finish_reason: finishReason }],
      usage,
    });
    return;
  }
  startSse(res);
  for (const piece of kept) {
    if (res.destroyed) return;
    sendEvent(res, chunk({ content: piece }));
    await sleep(1);
  }
  sendEvent(res, chunk({ finishReason }));
  if (request.body.stream_options?.include_usage) sendEvent(res, chunk({ noChoice: true, usage }));
  sendEvent(res, '[DONE]');
  res.end();
};
