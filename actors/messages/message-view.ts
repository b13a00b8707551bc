import { svcOfResult } from '../chat/result-svc.js';
import { type ChoiceView } from '../../protocols/chat-response.js';
import type { MessageObject, MessagesUsage, ResponseContentBlock, StopReason } from '../../protocols/messages.js';
import type { TokenUsage } from '../../protocols/pricing.js';
import type { ChatResult } from '../chat/chat-service.js';

// A finished chat completion as Anthropic's `message`: the same answer, usage and charge.

/** The message id of a completion: its completion id's random part (X-Completion-ID names the run). */
export function messageIdOf(completionId: string): string {
  return `msg_${completionId.slice(completionId.indexOf('-') + 1)}`;
}

/** Why the answer stopped: a stop sequence the backend named, the token cap, a tool call, or its end. */
export function stopOf(choice: ChoiceView | undefined): { stop_reason: StopReason; stop_sequence: string | null } {
  if (choice?.finishReason === 'tool_calls') return { stop_reason: 'tool_use', stop_sequence: null };
  if (choice?.finishReason === 'length') return { stop_reason: 'max_tokens', stop_sequence: null };
  if (choice?.stopSequence !== undefined) return { stop_reason: 'stop_sequence', stop_sequence: choice.stopSequence };
  return { stop_reason: 'end_turn', stop_sequence: null };
}

/** Tool arguments as the object `input` is; arguments that are not a JSON object are kept under `arguments`. */
export function toolInput(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args || '{}');
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // not JSON: kept as text below
  }
  return { arguments: args };
}

/** The answer's blocks: its text (when there is any), then its tool calls. */
function contentOf(choice: ChoiceView | undefined): ResponseContentBlock[] {
  if (!choice) return [];
  const blocks: ResponseContentBlock[] = [];
  if (choice.text) blocks.push({ type: 'text', text: choice.text, citations: null });
  for (const call of choice.toolCalls)
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments) });
  return blocks;
}

/** Processed tokens as billed. */
export function usageOf(usage: TokenUsage): MessagesUsage {
  return {
    input_tokens: usage.promptTokens,
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    service_tier: 'standard',
  };
}

/** The `message` object of a settled completion. */
export function messageObject(result: ChatResult): MessageObject {
  const choice = result.outcome.choices[0];
  return {
    id: messageIdOf(result.head.id),
    type: 'message',
    role: 'assistant',
    model: result.head.model,
    content: contentOf(choice),
    ...stopOf(choice),
    usage: usageOf(result.outcome.usage),
    svc: svcOfResult(result),
  };
}
