import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** How the fake model streams: a fixed time to first token, then one token per chunk at a fixed gap. */
export interface Pacing {
  ttftMs: number;
  gapMs: number;
  tokens: number;
  promptTokens: number;
  /** Send usage (chat: the `include_usage` chunk; Responses: in `response.completed`). */
  usage: boolean;
}

/** What the server really did for one request (its own clock): arrival, each token's write, the end. */
export interface ServedRequest {
  path: string;
  body: unknown;
  arrivalMs: number;
  writesMs: number[];
  endMs: number;
}

async function until(at: number): Promise<void> {
  const wait = at - performance.now();
  if (wait > 0) await sleep(wait);
}

function chatChunk(content: string | null, usage: object | null): string {
  const choices = content === null ? [] : [{ index: 0, delta: { content }, finish_reason: null }];
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices, ...(usage && { usage }) })}\n\n`;
}

function responsesEvent(type: string, fields: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
}

async function stream(res: ServerResponse, path: string, pacing: Pacing, served: ServedRequest): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const responses = path.endsWith('/responses');
  if (responses) res.write(responsesEvent('response.created', { response: { id: 'r1', status: 'in_progress' } }));
  // Each token is due at a fixed time from arrival (not from the previous write), so lateness never accumulates.
  for (let i = 0; i < pacing.tokens; i++) {
    await until(served.arrivalMs + pacing.ttftMs + i * pacing.gapMs);
    res.write(
      responses
        ? responsesEvent('response.output_text.delta', { item_id: 'm1', delta: ` t${i}` })
        : chatChunk(` t${i}`, null),
    );
    served.writesMs.push(performance.now());
  }
  const input = pacing.promptTokens;
  if (responses) {
    const usage = pacing.usage
      ? { input_tokens: input, output_tokens: pacing.tokens, total_tokens: input + pacing.tokens }
      : null;
    res.end(responsesEvent('response.completed', { response: { id: 'r1', status: 'completed', usage } }));
  } else {
    const usage = { prompt_tokens: input, completion_tokens: pacing.tokens, total_tokens: input + pacing.tokens };
    res.end(`${pacing.usage ? chatChunk(null, usage) : ''}data: [DONE]\n\n`);
  }
  served.endMs = performance.now();
}

/**
 * An OpenAI-compatible model server on 127.0.0.1 streaming `POST /v1/chat/completions` and
 * `POST /v1/responses` at a fixed pace, recording what it served. Other paths get 404.
 */
export async function startPacedServer(pacing: Pacing): Promise<{
  port: number;
  served: ServedRequest[];
  close: () => Promise<void>;
}> {
  const served: ServedRequest[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method !== 'POST' || !/^\/v1\/(chat\/completions|responses)$/.test(path)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found', type: 'not_found' } }));
        return;
      }
      const record: ServedRequest = {
        path,
        body: JSON.parse(Buffer.concat(parts).toString()) as unknown,
        arrivalMs: performance.now(),
        writesMs: [],
        endMs: 0,
      };
      served.push(record);
      void stream(res, path, pacing, record);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
