import { Pool } from 'undici';
import type { ChatBackend, ChatBackendEvent, ChatBackendRequest } from '../chat-backend.js';
import { UpstreamCall, type UpstreamSettings } from './upstream-call.js';
import { UpstreamSlots } from './upstream-slots.js';
import { createRedactor } from './upstream-failures.js';

/** How to reach one OpenAI-compatible upstream (OpenAI, vLLM, llama.cpp server, Ollama). */
export interface OpenAICompatibleChatBackendOptions {
  /** The API root, usually ending in `/v1`; requests go to `{baseUrl}/chat/completions`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set; never appears in errors or events. */
  apiKey?: string | null;
  /** The upstream's model name, sent in place of our public model id. */
  model: string;
  /** Requests streaming from this upstream at once; more wait in a queue (default 64). */
  concurrency?: number;
  /** From the call to `stream()` to the first body byte, queue wait included (default 60 000). */
  firstByteTimeoutMs?: number;
  /** From sending the request to the response headers (default: `firstByteTimeoutMs`). */
  connectTimeoutMs?: number;
  /** Longest gap between two body chunks once the answer has started (default 30 000). */
  idleTimeoutMs?: number;
  /** Nominal latency for estimates (default 500 ms to first token, 50 tokens per second). */
  latency?: { ttftMs: number; tokensPerSecond: number };
  /** How long an idle keep-alive connection to the upstream is kept (default 30 000). */
  keepAliveMs?: number;
}

/**
 * A chat backend over an OpenAI-compatible upstream (undici's connection pool), relaying text and
 * tool-call fragments as they arrive (or asking for one JSON answer when the caller wants no stream), and failing strictly (never a degraded answer):
 * refused, reset, 429 and 503 are RetryableError `upstream_unavailable` (with the provider's
 * retry delay), other 5xx, malformed streams and mid-answer drops `upstream_error`, silence past a
 * timeout `upstream_timeout`, and other 4xx TerminalError `upstream_error`.
 *
 * Aborting `request.signal` aborts the HTTP request and frees the concurrency slot at once; the
 * iterator then throws `request.signal.reason` (not a backend error), on the pending `next()` or
 * the following one.
 */
export function createOpenAICompatibleChatBackend(options: OpenAICompatibleChatBackendOptions): ChatBackend {
  const firstByteTimeoutMs = options.firstByteTimeoutMs ?? 60_000;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream, application/json',
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const base = new URL(options.baseUrl);
  const concurrency = options.concurrency ?? 64;
  const settings: UpstreamSettings = {
    // One connection per slot: requests never queue inside undici, only in our slots (where the
    // first-byte timeout tells "all slots busy" from "upstream slow").
    pool: new Pool(base.origin, {
      connections: concurrency,
      pipelining: 1,
      keepAliveTimeout: options.keepAliveMs ?? 30_000,
      headersTimeout: 0,
      bodyTimeout: 0,
    }),
    path: `${base.pathname.replace(/\/+$/, '')}/chat/completions`,
    headers,
    model: options.model,
    slots: new UpstreamSlots(concurrency),
    connectTimeoutMs: options.connectTimeoutMs ?? firstByteTimeoutMs,
    firstByteTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? 30_000,
    redact: createRedactor(options.apiKey ?? null),
  };
  return {
    name: 'openai-compatible',
    latency: options.latency ?? { ttftMs: 500, tokensPerSecond: 50 },
    stream(request: ChatBackendRequest): AsyncIterable<ChatBackendEvent> {
      return new UpstreamCall(settings, request).events();
    },
  };
}
