import type { TokenUsage } from './pricing.js';
import { costBlock, svcBlock } from './pricing.js';
import { MODEL_VERSION } from './models.js';

/** The fingerprint every chat response carries. */
export const SYSTEM_FINGERPRINT = `fp_svc_${MODEL_VERSION}`;

/** A tool call in the OpenAI response shape. */
export interface WireToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** One finished choice, ready for the wire. */
export interface ChoiceView {
  text: string;
  toolCalls: WireToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
}

/** What identifies a completion on every chunk and in the final object. */
export interface CompletionHeader {
  id: string;
  created: number;
  model: string;
  /** The request used the legacy `functions`: answer with `function_call` instead of `tool_calls`. */
  legacyFunctions: boolean;
}

/** The `svc` block, with the run's status when it did not simply complete. */
export function runSvc(priceMicros: number, extra: { cached: boolean; depth: string; status: string; cancelReason: string | null }): Record<string, unknown> {
  return {
    ...svcBlock(priceMicros, extra.cached),
    depth: extra.depth,
    status: extra.status,
    ...(extra.cancelReason !== null && { cancel_reason: extra.cancelReason }),
  };
}

function usageView(usage: TokenUsage): Record<string, number> {
  return { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens };
}

function messageView(choice: ChoiceView, legacyFunctions: boolean): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: choice.toolCalls.length ? null : choice.text, refusal: null };
  if (choice.toolCalls.length && legacyFunctions) {
    message.function_call = { name: choice.toolCalls[0]!.name, arguments: choice.toolCalls[0]!.arguments };
  } else if (choice.toolCalls.length) {
    message.tool_calls = choice.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  }
  return message;
}

function finishReason(choice: ChoiceView, legacyFunctions: boolean): string {
  return choice.finishReason === 'tool_calls' && legacyFunctions ? 'function_call' : choice.finishReason;
}

/** The non-streaming `chat.completion` object (spec 2.2). */
export function completionObject(header: CompletionHeader, choices: ChoiceView[], usage: TokenUsage, svc: Record<string, unknown>): Record<string, unknown> {
  return {
    id: header.id,
    object: 'chat.completion',
    created: header.created,
    model: header.model,
    choices: choices.map((choice, index) => ({
      index,
      message: messageView(choice, header.legacyFunctions),
      logprobs: null,
      finish_reason: finishReason(choice, header.legacyFunctions),
    })),
    usage: usageView(usage),
    system_fingerprint: SYSTEM_FINGERPRINT,
    svc,
    cost: costBlock(usage),
  };
}

/** A `chat.completion.chunk` with the given choices (spec 2.3). */
export function chunkObject(header: CompletionHeader, choices: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: header.id,
    object: 'chat.completion.chunk',
    created: header.created,
    model: header.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices,
    ...extra,
  };
}

/** A chunk choice carrying `delta`. */
export function deltaChoice(index: number, delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> {
  return { index, delta, logprobs: null, finish_reason: finish };
}

/** The delta of a tool-call fragment, in the shape the request asked for. */
export function toolCallDelta(legacyFunctions: boolean, fragment: { index: number; id?: string; name?: string; arguments: string }): Record<string, unknown> {
  if (legacyFunctions) return { function_call: { ...(fragment.name !== undefined && { name: fragment.name }), arguments: fragment.arguments } };
  return {
    tool_calls: [
      {
        index: fragment.index,
        ...(fragment.id !== undefined && { id: fragment.id, type: 'function' }),
        function: { ...(fragment.name !== undefined && { name: fragment.name }), arguments: fragment.arguments },
      },
    ],
  };
}

/** The last chunk: no choices, the usage, and the exact charge (spec 2.3: the final chunk carries usage and svc). */
export function finalChunk(header: CompletionHeader, usage: TokenUsage, svc: Record<string, unknown>): Record<string, unknown> {
  return chunkObject(header, [], { usage: usageView(usage), svc, cost: costBlock(usage) });
}

/** Per-choice closing delta with its finish reason. */
export function finishChoice(index: number, choice: ChoiceView, legacyFunctions: boolean): Record<string, unknown> {
  return deltaChoice(index, {}, finishReason(choice, legacyFunctions));
}
