import type { ChatMessage } from '../protocols/chat.js';
import type { TokenUsage } from '../protocols/pricing.js';

/** What a chat backend is asked to do; already validated and priced. */
export interface ChatBackendRequest {
  model: string;
  messages: readonly ChatMessage[];
  /** Hard cap on generated tokens. */
  maxTokens: number;
  temperature: number | null;
  stop: readonly string[];
  responseFormat: 'text' | 'json_object' | 'json_schema';
  metadata: Readonly<Record<string, unknown>> | null;
  /** Which of `n` choices this call produces; the sim varies its text by it. */
  choiceIndex: number;
  /** Aborted when the client leaves or cancels; the backend stops its work. */
  signal: AbortSignal;
}

/** What a backend streams: text as it is produced, then the end with processed-token usage. */
export type ChatBackendEvent =
  | { type: 'delta'; text: string }
  | { type: 'done'; finishReason: 'stop' | 'length'; usage: TokenUsage };

/** One chat backend (sim, an OpenAI-compatible upstream, …); throws TerminalError or RetryableError. */
export interface ChatBackend {
  readonly name: string;
  /** Nominal latency, for estimates: time to first token and generation speed (0 = instant). */
  readonly latency: { ttftMs: number; tokensPerSecond: number };
  stream(request: ChatBackendRequest): AsyncIterable<ChatBackendEvent>;
}
