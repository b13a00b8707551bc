import type { ChatMessage } from '../protocols/chat.js';
import type { TokenUsage } from '../protocols/pricing.js';
import type { CancelSignal } from '../runtime/cancel-signal.js';

/** A function the model may call (from `tools` or the legacy `functions`). */
export interface ToolDefinition {
  name: string;
  description: string | null;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown> | null;
}

/** Whether and which tool the model must call. */
export type ToolChoice = 'none' | 'auto' | 'required' | { name: string };

/** What a chat backend is asked to do; already validated and priced. */
export interface ChatBackendRequest {
  model: string;
  messages: readonly ChatMessage[];
  /** Hard cap on generated tokens. */
  maxTokens: number;
  temperature: number | null;
  stop: readonly string[];
  responseFormat: { type: 'text' | 'json_object' | 'json_schema'; schema: Record<string, unknown> | null };
  tools: readonly ToolDefinition[];
  toolChoice: ToolChoice;
  /** False when the caller wants at most one tool call per answer (`parallel_tool_calls: false`). */
  parallelToolCalls?: boolean;
  metadata: Readonly<Record<string, unknown>> | null;
  /** Which of `n` choices this call produces; the sim varies its text by it. */
  choiceIndex: number;
  /** Aborted when the client leaves or cancels; the backend stops its work (`abortSignalOf` where an API needs an AbortSignal). */
  signal: CancelSignal;
  /**
   * False when the caller only wants the whole answer (a non-streaming client, one pass): a
   * backend may then produce it in one piece. The events are the same either way. Default true.
   */
  stream?: boolean;
  /** W3C trace context headers (`traceparent`) to send upstream; set only while tracing is on. */
  traceHeaders?: Readonly<Record<string, string>>;
}

/**
 * What a backend streams: text and tool-call fragments as they are produced, then the end with
 * processed-token usage. Tool-call fragments follow OpenAI's delta shape: the first fragment of
 * call `index` carries `id` and `name`, later ones only more `arguments`.
 */
export type ChatBackendEvent =
  | { type: 'delta'; text: string }
  | { type: 'tool_call'; index: number; id?: string; name?: string; arguments: string }
  | {
      type: 'done';
      finishReason: 'stop' | 'length' | 'tool_calls';
      usage: TokenUsage;
      /** The stop sequence that ended the answer, when the backend knows (finish reason `stop`). */
      stopSequence?: string;
      /** The upstream's id of the answer (traces name it as gen_ai.response.id). */
      responseId?: string;
    };

/** One chat backend (sim, an OpenAI-compatible upstream, …); throws TerminalError or RetryableError. */
export interface ChatBackend {
  readonly name: string;
  /** Nominal latency, for estimates: time to first token and generation speed (0 = instant). */
  readonly latency: { ttftMs: number; tokensPerSecond: number };
  stream(request: ChatBackendRequest): AsyncIterable<ChatBackendEvent>;
}
