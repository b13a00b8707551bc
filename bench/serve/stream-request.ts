import { request, type Dispatcher } from 'undici';
import { SseDecoder, type SseEvent } from '../../protocols/sse-decoder.js';
import type { BenchPrompt } from './prompt-source.js';
import type { ServeApi } from './serve-options.js';

/** Every timing of one request, in ms (relative to the sweep point's start where a time, else durations). */
export interface RequestTiming {
  /** The prompt's number in the run (points continue the count; the warm-up request is 0). */
  index: number;
  /** When the request was sent, from the point's start. */
  startMs: number;
  /** When the request was sent on the wall clock (ms since the epoch, fractional): to line up with server logs. */
  sentAt: number;
  /** Sent → first chunk carrying output text (null: none arrived). */
  ttftMs: number | null;
  /** Sent → the stream's end. */
  e2elMs: number;
  /** Gaps between consecutive chunks carrying output text (several tokens in one chunk are one gap, as vLLM counts). */
  itlMs: number[];
  inputTokens: number;
  outputTokens: number;
  /** Token counts estimated here (the server sent no usage): chunks with text, and the prompt's estimate. */
  estimated: boolean;
  /** The kind of failure (`http_429`, `timeout`, `stream_error`, `truncated`, a network code), or null. */
  error: string | null;
  /** The failure's first words (a status body or message), for the report's samples. */
  detail?: string;
}

/** Where and how to send one request. */
export interface RequestTarget {
  /** The API root, e.g. `http://127.0.0.1:8080/v1`. */
  base: string;
  token: string;
  model: string;
  api: ServeApi;
  ignoreEos: boolean;
  timeoutMs: number;
  dispatcher: Dispatcher;
}

/** The JSON body of one streamed request. */
export function requestBody(target: Pick<RequestTarget, 'api' | 'model' | 'ignoreEos'>, prompt: BenchPrompt): string {
  const hints = target.ignoreEos ? { ignore_eos: true } : {};
  if (target.api === 'responses')
    return JSON.stringify({
      model: target.model,
      input: prompt.messages.map((m) => ({ role: m.role, content: m.content })),
      stream: true,
      ...(prompt.maxTokens !== null && { max_output_tokens: prompt.maxTokens }),
      ...hints,
    });
  return JSON.stringify({
    model: target.model,
    messages: prompt.messages,
    stream: true,
    stream_options: { include_usage: true },
    ...(prompt.maxTokens !== null && { max_tokens: prompt.maxTokens }),
    ...hints,
  });
}

/** What one decoded event says: output text arrived, usage, the end, or a failure. */
interface EventReading {
  text: boolean;
  usage?: { input: number; output: number };
  done?: boolean;
  error?: string;
}

type Json = Record<string, any>;

function readChatEvent(event: SseEvent): EventReading {
  if (event.data === '[DONE]') return { text: false, done: true };
  const chunk = JSON.parse(event.data) as Json;
  if (chunk.error) return { text: false, error: String(chunk.error.message ?? chunk.error.code ?? 'error') };
  const delta = chunk.choices?.[0]?.delta as Json | undefined;
  const text = Boolean(delta?.content || delta?.reasoning_content || delta?.reasoning || delta?.tool_calls);
  const usage = chunk.usage as Json | undefined | null;
  return usage
    ? { text, usage: { input: Number(usage.prompt_tokens ?? 0), output: Number(usage.completion_tokens ?? 0) } }
    : { text };
}

// OpenAI's Responses stream: text in `response.output_text.delta`, usage in `response.completed`.
function readResponsesEvent(event: SseEvent): EventReading {
  const data = JSON.parse(event.data) as Json;
  const type = String(data.type ?? event.event ?? '');
  if (type === 'response.output_text.delta' || type === 'response.reasoning_text.delta')
    return { text: Boolean(data.delta) };
  if (type === 'response.completed') {
    const usage = data.response?.usage as Json | undefined;
    return {
      text: false,
      done: true,
      ...(usage && { usage: { input: Number(usage.input_tokens ?? 0), output: Number(usage.output_tokens ?? 0) } }),
    };
  }
  if (type === 'response.failed' || type === 'response.incomplete' || type === 'error')
    return { text: false, error: String(data.response?.error?.message ?? data.message ?? type) };
  return { text: false };
}

/** Sends one streamed request and times it; never throws (a failure is a timing with `error`). */
export async function timeRequest(
  target: RequestTarget,
  prompt: BenchPrompt,
  index: number,
  origin: number,
): Promise<RequestTiming> {
  const path = target.api === 'responses' ? '/responses' : '/chat/completions';
  const read = target.api === 'responses' ? readResponsesEvent : readChatEvent;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), target.timeoutMs);
  const sent = performance.now();
  const timing: RequestTiming = {
    index,
    startMs: sent - origin,
    sentAt: performance.timeOrigin + sent,
    ttftMs: null,
    e2elMs: 0,
    itlMs: [],
    inputTokens: prompt.estimatedInputTokens,
    outputTokens: 0,
    estimated: true,
    error: null,
  };
  let chunks = 0;
  let lastText = 0;
  let done = false;
  let streamError: string | null = null;
  let now = sent;
  const decoder = new SseDecoder((event) => {
    if (done || streamError) return;
    const reading = read(event);
    if (reading.error) streamError = reading.error;
    if (reading.text) {
      chunks += 1;
      if (timing.ttftMs === null) timing.ttftMs = now - sent;
      else timing.itlMs.push(now - lastText);
      lastText = now;
    }
    if (reading.usage) {
      timing.inputTokens = reading.usage.input;
      timing.outputTokens = reading.usage.output;
      timing.estimated = false;
    }
    if (reading.done) done = true;
  });
  try {
    const res = await request(`${target.base}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${target.token}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: requestBody(target, prompt),
      signal: abort.signal,
      dispatcher: target.dispatcher,
    });
    if (res.statusCode !== 200) {
      timing.error = `http_${res.statusCode}`;
      timing.detail = (await res.body.text()).slice(0, 300);
    } else {
      // 'data' listeners rather than an async iterator: no promise per chunk on the client's hot path.
      await new Promise<void>((resolve, reject) => {
        res.body.on('data', (chunk: Buffer) => {
          now = performance.now();
          try {
            decoder.push(chunk);
          } catch (err) {
            res.body.destroy(err as Error); // an event that is not JSON: reported as bad_event
          }
        });
        res.body.once('end', resolve);
        res.body.once('error', reject);
      });
      if (streamError) {
        timing.error = 'stream_error';
        timing.detail = String(streamError).slice(0, 300);
      } else if (!done) timing.error = 'truncated';
    }
  } catch (err) {
    const code = (err as { code?: string; name?: string }).code;
    timing.error = abort.signal.aborted ? 'timeout' : err instanceof SyntaxError ? 'bad_event' : (code ?? 'network');
    timing.detail = (err instanceof Error ? err.message : String(err)).slice(0, 300);
  } finally {
    clearTimeout(timer);
  }
  timing.e2elMs = performance.now() - sent;
  if (timing.estimated) timing.outputTokens = chunks;
  return timing;
}
