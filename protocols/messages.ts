import { z } from 'zod';
import { ChatSvcSchema } from './chat-response.js';
import { MetadataSchema } from './json-bounds.js';

// Anthropic's Messages API (POST /v1/messages, /v1/messages/count_tokens) on the wire, both ways.
// Requests accept unknown properties (the SDK adds new ones often); answers are strict.

const CacheControl = z.looseObject({ type: z.literal('ephemeral') }).nullish();

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: CacheControl });

const ImageSource = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('base64'),
    media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
    data: z.string().min(1),
  }),
  z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
]);
const ImageBlock = z.looseObject({ type: z.literal('image'), source: ImageSource, cache_control: CacheControl });

const DocumentSource = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) }),
  z.looseObject({ type: z.literal('text'), media_type: z.literal('text/plain').optional(), data: z.string() }),
  z.looseObject({ type: z.literal('url'), url: z.string().min(1) }),
  z.looseObject({ type: z.literal('file'), file_id: z.string().min(1) }),
]);
const DocumentBlock = z.looseObject({
  type: z.literal('document'),
  source: DocumentSource,
  title: z.string().nullish(),
  context: z.string().nullish(),
  cache_control: CacheControl,
});

const ToolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  cache_control: CacheControl,
});

const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z
    .union([z.string(), z.array(z.discriminatedUnion('type', [TextBlock, ImageBlock, DocumentBlock]))])
    .optional(),
  is_error: z.boolean().nullish(),
  cache_control: CacheControl,
});

/** One content block of a request message. */
export const MessagesContentBlockSchema = z.discriminatedUnion('type', [
  TextBlock,
  ImageBlock,
  DocumentBlock,
  ToolUseBlock,
  ToolResultBlock,
]);
export type MessagesContentBlock = z.infer<typeof MessagesContentBlockSchema>;

/** A turn of the conversation: Anthropic has no system role in `messages` (the system prompt is `system`). */
export const MessagesMessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(MessagesContentBlockSchema).max(4096)]),
});
export type MessagesMessage = z.infer<typeof MessagesMessageSchema>;

const ToolSchema = z.looseObject({
  type: z.literal('custom').nullish(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or dashes'),
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
  cache_control: CacheControl,
});

const ToolChoiceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({
    type: z.literal('tool'),
    name: z.string().min(1),
    disable_parallel_tool_use: z.boolean().optional(),
  }),
  z.looseObject({ type: z.literal('none') }),
]);
export type MessagesToolChoice = z.infer<typeof ToolChoiceSchema>;

/** The body both routes share: what the model reads (count_tokens takes no `max_tokens`). */
const MessagesPromptSchema = z.looseObject({
  model: z.string().min(1),
  system: z.union([z.string(), z.array(TextBlock).max(4096)]).optional(),
  messages: z.array(MessagesMessageSchema).min(1, 'must contain at least one message').max(4096),
  tools: z.array(ToolSchema).max(128).optional(),
  tool_choice: ToolChoiceSchema.optional(),
});

/** POST /v1/messages. `metadata` holds Anthropic's `user_id`, and (ours) the sim's scripts under `sim`. */
export const MessagesRequestSchema = MessagesPromptSchema.extend({
  max_tokens: z.number().int().min(1).max(1_000_000),
  stop_sequences: z.array(z.string().min(1)).max(4).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  metadata: MetadataSchema.and(z.looseObject({ user_id: z.string().max(256).nullish() })).optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.output<typeof MessagesRequestSchema>;

/** POST /v1/messages/count_tokens. */
export const CountTokensRequestSchema = MessagesPromptSchema;
export type CountTokensRequest = z.output<typeof CountTokensRequestSchema>;

/** The answer of count_tokens: the input tokens `POST /v1/messages` would bill. */
export const MessageTokensCountSchema = z.strictObject({ input_tokens: z.number().int().nonnegative() });

// ---- The answer ----

/** A content block of the answer. */
export const ResponseTextBlockSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
  citations: z.null(),
});
export const ResponseToolUseBlockSchema = z.strictObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
export const ResponseContentBlockSchema = z.discriminatedUnion('type', [
  ResponseTextBlockSchema,
  ResponseToolUseBlockSchema,
]);
export type ResponseContentBlock = z.output<typeof ResponseContentBlockSchema>;

export const StopReasonSchema = z.enum(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use']);
export type StopReason = z.output<typeof StopReasonSchema>;

/** `usage`: processed tokens as billed (nothing is cached on Anthropic's terms, so both cache counts are 0). */
export const MessagesUsageSchema = z.strictObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.literal(0),
  cache_read_input_tokens: z.literal(0),
  service_tier: z.literal('standard'),
});
export type MessagesUsage = z.output<typeof MessagesUsageSchema>;

/** The `message` object; `svc` is ours (price and run), as on chat completions. */
export const MessageObjectSchema = z.strictObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(ResponseContentBlockSchema),
  stop_reason: StopReasonSchema,
  stop_sequence: z.string().nullable(),
  usage: MessagesUsageSchema,
  svc: ChatSvcSchema,
});
export type MessageObject = z.output<typeof MessageObjectSchema>;

// ---- Stream events (each is sent as `event: <type>` with its JSON as `data:`) ----

export const MessageStartEventSchema = z.strictObject({
  type: z.literal('message_start'),
  message: MessageObjectSchema.omit({ svc: true }).extend({
    content: z.array(ResponseContentBlockSchema).length(0),
    stop_reason: z.null(),
    stop_sequence: z.null(),
  }),
});
export const ContentBlockStartEventSchema = z.strictObject({
  type: z.literal('content_block_start'),
  index: z.number().int().nonnegative(),
  content_block: z.discriminatedUnion('type', [
    ResponseTextBlockSchema.extend({ text: z.literal('') }),
    ResponseToolUseBlockSchema.extend({ input: z.strictObject({}) }),
  ]),
});
export const ContentBlockDeltaEventSchema = z.strictObject({
  type: z.literal('content_block_delta'),
  index: z.number().int().nonnegative(),
  delta: z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('text_delta'), text: z.string() }),
    z.strictObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  ]),
});
export const ContentBlockStopEventSchema = z.strictObject({
  type: z.literal('content_block_stop'),
  index: z.number().int().nonnegative(),
});
/** The end of the answer: why it stopped, the billed usage and (ours) the charge. */
export const MessageDeltaEventSchema = z.strictObject({
  type: z.literal('message_delta'),
  delta: z.strictObject({ stop_reason: StopReasonSchema, stop_sequence: z.string().nullable() }),
  usage: z.strictObject({
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
  }),
  svc: ChatSvcSchema,
});
export const MessageStopEventSchema = z.strictObject({ type: z.literal('message_stop') });
export const PingEventSchema = z.strictObject({ type: z.literal('ping') });

/** Anthropic's error types, and the envelope errors on these routes use (with our request id). */
export const AnthropicErrorTypeSchema = z.enum([
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'timeout_error',
  'overloaded_error',
]);
export type AnthropicErrorType = z.output<typeof AnthropicErrorTypeSchema>;

export const AnthropicErrorSchema = z.strictObject({
  type: z.literal('error'),
  error: z.strictObject({ type: AnthropicErrorTypeSchema, message: z.string() }),
  request_id: z.string(),
});
export type AnthropicError = z.output<typeof AnthropicErrorSchema>;

/** Every event of a streamed message, an `error` event included (a failure after the stream opened). */
export const MessagesStreamEventSchema = z.union([
  MessageStartEventSchema,
  ContentBlockStartEventSchema,
  ContentBlockDeltaEventSchema,
  ContentBlockStopEventSchema,
  MessageDeltaEventSchema,
  MessageStopEventSchema,
  PingEventSchema,
  AnthropicErrorSchema,
]);
export type MessagesStreamEvent = z.output<typeof MessagesStreamEventSchema>;

/** One event as Anthropic sends it: its type as the SSE event name (the SDK dispatches on it). */
export function messagesSse(event: MessagesStreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
