import type { ChatMessage } from '../../protocols/chat.js';
import type { TokenUsage } from '../../protocols/pricing.js';
import type { ChatBackendEvent } from '../chat-backend.js';
import { countPromptTokens, countTokens } from '../../protocols/tokens.js';
import { TokenTally } from './token-tally.js';
import type { UpstreamChunk, UpstreamCompletion, UpstreamUsage } from './upstream-schemas.js';

type FinishReason = Extract<ChatBackendEvent, { type: 'done' }>['finishReason'];
type ToolCallEvent = Extract<ChatBackendEvent, { type: 'tool_call' }>;

/** OpenAI's finish reasons onto ours: legacy `function_call` is a tool call, a filtered answer stopped. */
export function mapFinishReason(reason: string | null, sawToolCall: boolean): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case null:
      return sawToolCall ? 'tool_calls' : 'stop';
    default:
      return 'stop'; // stop, content_filter, and engine-specific reasons (eos, abort)
  }
}

function toolCallEvent(
  index: number,
  id: string | null | undefined,
  name: string | null | undefined,
  args: string | null | undefined,
): ToolCallEvent {
  const event: ToolCallEvent = { type: 'tool_call', index, arguments: args ?? '' };
  if (id) event.id = id;
  if (name) event.name = name;
  return event;
}

/**
 * The state of one upstream answer: turns chunks (or a whole completion) into our events, and
 * remembers the finish reason and usage for the final `done`. When the upstream reports no usage,
 * it counts processed tokens itself, by the shared rule in protocols/tokens.ts.
 */
export class UpstreamAnswer {
  #finishReason: string | null = null;
  #sawFinish = false;
  #sawToolCall = false;
  #usage: TokenUsage | null = null;
  readonly #text = new TokenTally();
  readonly #toolText = new TokenTally();
  #toolNameTokens = 0;
  /** The upstream's id for its answer (`chatcmpl-…`), for the trace. */
  #responseId: string | null = null;

  /** Whether the upstream has said why it stopped. */
  get finished(): boolean {
    return this.#sawFinish;
  }

  /** Appends the events of one stream chunk to `out`; only choice 0 is read (we never ask for `n`). */
  applyChunk(chunk: UpstreamChunk, out: ChatBackendEvent[]): void {
    this.#applyUsage(chunk.usage);
    this.#responseId ??= chunk.id ?? null;
    const choice = chunk.choices.find((c) => (c.index ?? 0) === 0);
    if (!choice) return;
    const delta = choice.delta;
    if (delta?.content) {
      this.#text.add(delta.content);
      out.push({ type: 'delta', text: delta.content });
    }
    if (delta?.tool_calls) {
      for (const [position, call] of delta.tool_calls.entries()) {
        out.push(
          this.#toolCall(toolCallEvent(call.index ?? position, call.id, call.function?.name, call.function?.arguments)),
        );
      }
    }
    if (delta?.function_call)
      out.push(this.#toolCall(toolCallEvent(0, null, delta.function_call.name, delta.function_call.arguments)));
    if (choice.finish_reason) {
      this.#finishReason = choice.finish_reason;
      this.#sawFinish = true;
    }
  }

  /** Appends the events of a whole (non-streamed) completion to `out`. */
  applyCompletion(completion: UpstreamCompletion, out: ChatBackendEvent[]): void {
    this.#applyUsage(completion.usage);
    this.#responseId ??= completion.id ?? null;
    const [choice] = completion.choices;
    if (!choice) return;
    const message = choice.message;
    if (message.content) {
      this.#text.add(message.content);
      out.push({ type: 'delta', text: message.content });
    }
    for (const [index, call] of (message.tool_calls ?? []).entries()) {
      out.push(this.#toolCall(toolCallEvent(index, call.id, call.function.name, call.function.arguments)));
    }
    if (message.function_call)
      out.push(this.#toolCall(toolCallEvent(0, null, message.function_call.name, message.function_call.arguments)));
    this.#finishReason = choice.finish_reason ?? null;
    this.#sawFinish = true;
  }

  /** The final event: the mapped finish reason and the upstream's usage, or counted usage without it. */
  done(messages: readonly ChatMessage[]): ChatBackendEvent {
    const usage = this.#usage ?? {
      promptTokens: countPromptTokens(messages),
      completionTokens: this.#text.total() + this.#toolText.total() + this.#toolNameTokens,
    };
    const done: ChatBackendEvent = {
      type: 'done',
      finishReason: mapFinishReason(this.#finishReason, this.#sawToolCall),
      usage,
    };
    if (this.#responseId) done.responseId = this.#responseId;
    return done;
  }

  #toolCall(event: ToolCallEvent): ToolCallEvent {
    this.#sawToolCall = true;
    if (event.name) this.#toolNameTokens += countTokens(event.name);
    this.#toolText.add(event.arguments);
    return event;
  }

  #applyUsage(usage: UpstreamUsage | null | undefined): void {
    if (typeof usage?.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number') {
      this.#usage = { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
    }
  }
}
