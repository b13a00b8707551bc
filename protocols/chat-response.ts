import { z } from 'zod';
import type { ApiError } from './errors.js';
import { errorBody } from './errors.js';
import type { TokenUsage } from './pricing.js';
import { costBlock, svcBlock } from './pricing.js';
import { MODEL_VERSION } from './models.js';
import { microsToUsd } from './money.js';

/** The fingerprint every chat response carries. */
export const SYSTEM_FINGERPRINT = `fp_svc_${MODEL_VERSION}`;

// ---- The outbound wire (spec 2.2 and 2.3): one schema per object, builders return their outputs. ----

/** `usage` of a finished completion. */
export const ChatUsageSchema = z.strictObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type ChatUsage = z.output<typeof ChatUsageSchema>;

/** The token tariff a charge was made under, as the `svc` blocks carry it. */
export const TokenTariffSchema = z.strictObject({
  pricing_version: z.string(),
  billing_basis: z.literal('processed_tokens'),
  input_per_1m_usd: z.number(),
  output_per_1m_usd: z.number(),
});

/** The `svc` block: price, tariff, and how the run went. */
export const ChatSvcSchema = z.strictObject({
  model_version: z.string(),
  price_usd: z.number().nonnegative(),
  billing: TokenTariffSchema,
  cached: z.boolean(),
  depth: z.string(),
  status: z.enum(['completed', 'cancelled', 'failed']),
  cancel_reason: z.string().optional(),
});
export type ChatSvc = z.output<typeof ChatSvcSchema>;

/** The `cost` block beside `svc`: the same charge, itemised. */
export const ChatCostSchema = z.strictObject({
  currency: z.literal('USD'),
  input_usd: z.number().nonnegative(),
  output_usd: z.number().nonnegative(),
  total_usd: z.number().nonnegative(),
  processed_prompt_tokens: z.number().int().nonnegative(),
  processed_completion_tokens: z.number().int().nonnegative(),
});
export type ChatCost = z.output<typeof ChatCostSchema>;

const FinishReasonSchema = z.enum(['stop', 'length', 'tool_calls', 'function_call']);
export type FinishReason = z.output<typeof FinishReasonSchema>;

const FunctionCallSchema = z.strictObject({ name: z.string(), arguments: z.string() });

const MessageToolCallSchema = z.strictObject({
  id: z.string(),
  type: z.literal('function'),
  function: FunctionCallSchema,
});

/** The assistant message of a non-streamed choice; `function_call` answers the legacy `functions`. */
export const AssistantMessageSchema = z.strictObject({
  role: z.literal('assistant'),
  content: z.string().nullable(),
  refusal: z.null(),
  tool_calls: z.array(MessageToolCallSchema).optional(),
  function_call: FunctionCallSchema.optional(),
});
export type AssistantMessage = z.output<typeof AssistantMessageSchema>;

/** The non-streaming `chat.completion` object. */
export const ChatCompletionSchema = z.strictObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.strictObject({
      index: z.number().int().nonnegative(),
      message: AssistantMessageSchema,
      logprobs: z.null(),
      finish_reason: FinishReasonSchema,
    }),
  ),
  usage: ChatUsageSchema,
  system_fingerprint: z.string(),
  svc: ChatSvcSchema,
  cost: ChatCostSchema,
});
export type ChatCompletionObject = z.output<typeof ChatCompletionSchema>;

/** A streamed tool-call fragment: the first of a call carries `id`, `type` and `name`. */
const ToolCallDeltaSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.strictObject({ name: z.string().optional(), arguments: z.string() }),
});

/** What one chunk adds to a choice. */
export const ChunkDeltaSchema = z.strictObject({
  role: z.literal('assistant').optional(),
  content: z.string().nullable().optional(),
  tool_calls: z.array(ToolCallDeltaSchema).optional(),
  function_call: z.strictObject({ name: z.string().optional(), arguments: z.string() }).optional(),
});
export type ChunkDelta = z.output<typeof ChunkDeltaSchema>;

/** One choice of a chunk; `finish_reason` stays null until the choice's closing chunk. */
export const ChunkChoiceSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  delta: ChunkDeltaSchema,
  logprobs: z.null(),
  finish_reason: FinishReasonSchema.nullable(),
});
export type ChunkChoice = z.output<typeof ChunkChoiceSchema>;

/** `stream_options.include_progress_text`: where the run is, on a chunk with no choices. */
export const ChunkProgressSchema = z.strictObject({
  event: z.enum(['phase', 'live_input', 'cancelled']),
  status_text: z.string(),
  phase: z.enum(['planning', 'answering', 'checking', 'judging']),
});
export type ChunkProgress = z.output<typeof ChunkProgressSchema>;

/** A `chat.completion.chunk`: answer deltas, a progress block, or (last) usage, svc and cost. */
export const ChatCompletionChunkSchema = z.strictObject({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number().int(),
  model: z.string(),
  system_fingerprint: z.string(),
  choices: z.array(ChunkChoiceSchema),
  /** null on every chunk but the last when `stream_options.include_usage` is set. */
  usage: ChatUsageSchema.nullable().optional(),
  progress: ChunkProgressSchema.optional(),
  svc: ChatSvcSchema.optional(),
  cost: ChatCostSchema.optional(),
});
export type ChatCompletionChunk = z.output<typeof ChatCompletionChunkSchema>;

/** The last chunk before `[DONE]`: no choices, the usage and the exact charge (always sent, spec 2.3). */
export const FinalChunkSchema = ChatCompletionChunkSchema.extend({
  choices: z.array(ChunkChoiceSchema).length(0),
  usage: ChatUsageSchema,
  svc: ChatSvcSchema,
  cost: ChatCostSchema,
});
export type FinalChunk = z.output<typeof FinalChunkSchema>;

/** The error event that ends a stream that had already opened (the official SDKs raise it). */
export const StreamErrorEventSchema = z.strictObject({
  error: z.strictObject({ message: z.string(), type: z.string(), code: z.string(), param: z.string().nullable() }),
  request_id: z.string(),
});
export type StreamErrorEvent = z.output<typeof StreamErrorEventSchema>;

// ---- Builders ----

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
  /** The stop sequence that ended the text, when the backend reported one (the Messages API names it). */
  stopSequence?: string;
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
export function runSvc(
  priceMicros: number,
  extra: { cached: boolean; depth: string; status: ChatSvc['status']; cancelReason: string | null },
): ChatSvc {
  // pricing.ts builds the tariff part (shared with media); ChatSvcSchema pins its shape in the wire test.
  const base = svcBlock(priceMicros, extra.cached) as Pick<
    ChatSvc,
    'model_version' | 'price_usd' | 'billing' | 'cached'
  >;
  return {
    ...base,
    depth: extra.depth,
    status: extra.status,
    ...(extra.cancelReason !== null && { cancel_reason: extra.cancelReason }),
  };
}

// The constant parts of a `svc` block's JSON text, made once from the block itself.
const SVC_HEAD_JSON = `{"model_version":${JSON.stringify(MODEL_VERSION)},"price_usd":`;
const SVC_TARIFF_JSON = `,"billing":${JSON.stringify((svcBlock(0) as { billing: unknown }).billing)},"cached":`;

/** {@link runSvc}'s JSON text, written directly (no object made and walked for every answer). */
export function runSvcJson(priceMicros: number, extra: Parameters<typeof runSvc>[1]): string {
  const cancel = extra.cancelReason === null ? '' : `,"cancel_reason":${JSON.stringify(extra.cancelReason)}`;
  return (
    `${SVC_HEAD_JSON}${microsToUsd(priceMicros)}${SVC_TARIFF_JSON}${extra.cached}` +
    `,"depth":${JSON.stringify(extra.depth)},"status":${JSON.stringify(extra.status)}${cancel}}`
  );
}

function usageView(usage: TokenUsage): ChatUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

const costView = (usage: TokenUsage): ChatCost => costBlock(usage) as ChatCost;

function messageView(choice: ChoiceView, legacyFunctions: boolean): AssistantMessage {
  const message: AssistantMessage = {
    role: 'assistant',
    content: choice.toolCalls.length ? null : choice.text,
    refusal: null,
  };
  if (choice.toolCalls.length && legacyFunctions) {
    message.function_call = { name: choice.toolCalls[0]!.name, arguments: choice.toolCalls[0]!.arguments };
  } else if (choice.toolCalls.length) {
    message.tool_calls = choice.toolCalls.map((call) => ({
      id: call.id,
      type: 'function' as const,
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return message;
}

function finishReason(choice: ChoiceView, legacyFunctions: boolean): FinishReason {
  return choice.finishReason === 'tool_calls' && legacyFunctions ? 'function_call' : choice.finishReason;
}

/** The non-streaming `chat.completion` object (spec 2.2). */
export function completionObject(
  header: CompletionHeader,
  choices: readonly ChoiceView[],
  usage: TokenUsage,
  svc: ChatSvc,
): ChatCompletionObject {
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
    cost: costView(usage),
  };
}

/** What a chunk may carry besides its choices. */
type ChunkExtra = Pick<ChatCompletionChunk, 'usage' | 'progress' | 'svc' | 'cost'>;

/** A `chat.completion.chunk` with the given choices (spec 2.3). */
export function chunkObject(
  header: CompletionHeader,
  choices: ChunkChoice[],
  extra: ChunkExtra = {},
): ChatCompletionChunk {
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
export function deltaChoice(index: number, delta: ChunkDelta, finish: FinishReason | null = null): ChunkChoice {
  return { index, delta, logprobs: null, finish_reason: finish };
}

/** The delta of a tool-call fragment, in the shape the request asked for. */
export function toolCallDelta(
  legacyFunctions: boolean,
  fragment: { index: number; id?: string; name?: string; arguments: string },
): ChunkDelta {
  if (legacyFunctions)
    return {
      function_call: { ...(fragment.name !== undefined && { name: fragment.name }), arguments: fragment.arguments },
    };
  return {
    tool_calls: [
      {
        index: fragment.index,
        ...(fragment.id !== undefined && { id: fragment.id, type: 'function' as const }),
        function: { ...(fragment.name !== undefined && { name: fragment.name }), arguments: fragment.arguments },
      },
    ],
  };
}

/** The last chunk: no choices, the usage, and the exact charge (spec 2.3: the final chunk carries usage and svc). */
export function finalChunk(header: CompletionHeader, usage: TokenUsage, svc: ChatSvc): FinalChunk {
  return {
    id: header.id,
    object: 'chat.completion.chunk',
    created: header.created,
    model: header.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [],
    usage: usageView(usage),
    svc,
    cost: costView(usage),
  };
}

/** Per-choice closing delta with its finish reason. */
export function finishChoice(index: number, choice: ChoiceView, legacyFunctions: boolean): ChunkChoice {
  return deltaChoice(index, {}, finishReason(choice, legacyFunctions));
}

/** The `data: {"error":…}` event that ends a stream after it opened. */
export function streamErrorEvent(error: ApiError, requestId: string): StreamErrorEvent {
  return errorBody(error, requestId) as StreamErrorEvent;
}
