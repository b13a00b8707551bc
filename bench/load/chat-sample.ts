// What the baselines answer: the gateway's own response bytes, captured by one probe request,
// so a baseline sends the same bytes (and, for SSE, the same events) as the gateway.
import type { ChatBackendEvent, ChatBackendRequest } from '../../backends/chat-backend.js';
import { createSimChatBackend } from '../../backends/sim/sim-chat-backend.js';
import { ChatCompletionRequestSchema } from '../../protocols/chat.js';
import { UNIQUE_MARKER } from './load-client.js';

/** The sim's scripted answer (about 50 tokens): the same length for every prompt, so every stream has the same events. */
export const SIM_REPLY =
  'Load testing a gateway on two cores means sharing them: keep the client and the server apart, warm up first, ' +
  'measure a fixed window over keep-alive connections, and compare every figure with a bare server loaded the same way.';

/**
 * The chat request every load scenario sends (the streaming one adds `stream` options). With
 * `unique`, the prompt carries UNIQUE_MARKER, which the load client replaces per request so the
 * gateway's response cache never answers: every request is a real completion. With `simReply`
 * (only for a gateway we started, on the sim), `metadata.sim.reply` fixes the answer's length.
 */
export function chatRequestBody(
  stream: boolean,
  options: { unique: boolean; simReply: boolean },
): Record<string, unknown> {
  const tag = options.unique ? ` (request ${UNIQUE_MARKER})` : '';
  const body: Record<string, unknown> = {
    model: 'pro-1',
    messages: [{ role: 'user', content: `Write a short note on how to load test an API gateway on two cores.${tag}` }],
    max_tokens: 64,
  };
  if (options.simReply) body.metadata = { sim: { reply: SIM_REPLY } };
  return stream ? { ...body, stream: true, stream_options: { include_usage: true } } : body;
}

/** The backend request the chat route would make for `body` (defaults for everything unset). */
export function simBackendRequest(body: Record<string, unknown>): ChatBackendRequest {
  const parsed = ChatCompletionRequestSchema.parse(body);
  return {
    model: parsed.model,
    messages: parsed.messages,
    maxTokens: parsed.max_tokens ?? 4096,
    temperature: null,
    stop: [],
    responseFormat: { type: 'text', schema: null },
    tools: [],
    toolChoice: 'auto',
    metadata: parsed.metadata ?? null,
    choiceIndex: 0,
    signal: new AbortController().signal,
  };
}

/** One probe response. */
export interface ProbeResult {
  status: number;
  contentType: string;
  text: string;
}

/** Sends one request and returns the whole answer. */
export async function probe(url: string, token: string | null, body: Record<string, unknown>): Promise<ProbeResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** Whether a probe shows that the gateway does not serve `stream: true` yet. */
export function isStreamingNotServed(result: ProbeResult): boolean {
  return result.status === 400 && result.text.includes('invalid_request');
}

/** Splits an SSE body into its events, each a complete block ending with a blank line. */
export function splitSseEvents(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => `${block}\n\n`);
}

/**
 * The events the gateway would send for `body` (OpenAI chunk shape: a role chunk, one chunk per
 * sim delta, a finish chunk, a usage chunk, `[DONE]`), built from the sim directly: the bare SSE
 * baseline's stream while the gateway does not stream yet.
 */
export async function simulatedSseEvents(body: Record<string, unknown>): Promise<string[]> {
  const request = simBackendRequest(body);
  const events: ChatBackendEvent[] = [];
  for await (const event of createSimChatBackend({ ttftMs: 0, tokensPerSecond: 0 }).stream(request)) events.push(event);
  const head = {
    id: 'chatcmpl-0123456789abcdefghijklmn',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    system_fingerprint: 'fp_svc_1.1.3',
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`;
  const out = [chunk({ role: 'assistant', content: '' }, null)];
  for (const event of events) {
    if (event.type === 'delta') out.push(chunk({ content: event.text }, null));
    if (event.type === 'done') {
      out.push(chunk({}, event.finishReason));
      const { promptTokens, completionTokens } = event.usage;
      out.push(
        `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } })}\n\n`,
      );
    }
  }
  out.push('data: [DONE]\n\n');
  return out;
}
