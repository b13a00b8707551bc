import { z } from 'zod';
import { ChatCostSchema, ChatSvcSchema } from './chat-response.js';
import { MetadataSchema } from './json-bounds.js';

// The OpenAI Responses API (POST /v1/responses and its stored objects), both ways. Unions are
// discriminated on `type` so a bad item gets one readable issue, not one per alternative.

// ---- Request ----

const InputTextPart = z.looseObject({ type: z.literal('input_text'), text: z.string() });
const InputImagePart = z
  .looseObject({
    type: z.literal('input_image'),
    image_url: z.string().min(1).nullish(),
    file_id: z.string().min(1).nullish(),
    detail: z.enum(['auto', 'low', 'high']).nullish(),
  })
  .refine((part) => part.image_url != null || part.file_id != null, 'input_image needs image_url or file_id');
const InputFilePart = z
  .looseObject({
    type: z.literal('input_file'),
    file_id: z.string().min(1).nullish(),
    file_data: z.string().min(1).nullish(),
    filename: z.string().nullish(),
  })
  .refine((part) => part.file_id != null || part.file_data != null, 'input_file needs file_id or file_data');
// Earlier assistant turns come back as output parts when a client replays its history.
const OutputTextPart = z.looseObject({ type: z.literal('output_text'), text: z.string() });
const RefusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

/** One part of an input message's content. */
export const InputContentPartSchema = z.discriminatedUnion('type', [
  InputTextPart,
  InputImagePart,
  InputFilePart,
  OutputTextPart,
  RefusalPart,
]);
export type InputContentPart = z.output<typeof InputContentPartSchema>;

/** A message item; `type` may be left out, as the SDKs' easy input messages do. */
const MessageItem = z.looseObject({
  type: z.literal('message').optional(),
  id: z.string().nullish(),
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content: z.union([z.string(), z.array(InputContentPartSchema).max(1024)]),
  status: z.string().nullish(),
});
const FunctionCallItem = z.looseObject({
  type: z.literal('function_call'),
  id: z.string().nullish(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  status: z.string().nullish(),
});
const FunctionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  id: z.string().nullish(),
  call_id: z.string().min(1),
  // A string, or content parts (text, images) as newer SDKs may send.
  output: z.union([z.string(), z.array(InputContentPartSchema).max(1024)]),
  status: z.string().nullish(),
});
const FileSearchCallItem = z.looseObject({
  type: z.literal('file_search_call'),
  id: z.string().min(1),
  queries: z.array(z.string()).max(64),
  status: z.string().nullish(),
});

/** One item of `input`. */
export const InputItemSchema = z.discriminatedUnion('type', [
  MessageItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  FileSearchCallItem,
]);
export type InputItem = z.output<typeof InputItemSchema>;

const FunctionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or dashes'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
const FileSearchTool = z.looseObject({
  type: z.literal('file_search'),
  // Accepted as OpenAI's SDKs send them; the search runs over the caller's own files (docs/responses.md).
  vector_store_ids: z.array(z.string()).max(16).optional(),
  max_num_results: z.number().int().min(1).max(50).nullish(),
});

/** A tool the model may call: a function, or file search over the caller's files. */
export const ResponseToolSchema = z.discriminatedUnion('type', [FunctionTool, FileSearchTool]);
export type ResponseTool = z.output<typeof ResponseToolSchema>;

const ToolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), name: z.string().min(1) }),
  z.looseObject({ type: z.literal('file_search') }),
]);

/** `text.format`: plain text, any JSON object, or JSON of a schema. */
export const TextFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or dashes'),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

/** What `include` may ask for; the others OpenAI lists have nothing to add here and are accepted. */
export const INCLUDABLE = [
  'file_search_call.results',
  'message.output_text.logprobs',
  'message.input_image.image_url',
  'reasoning.encrypted_content',
  'computer_call_output.output.image_url',
  'web_search_call.action.sources',
  'code_interpreter_call.outputs',
] as const;

/** POST /v1/responses; extra properties accepted, as OpenAI's SDKs add fields over time. */
export const ResponseCreateRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(InputItemSchema).max(4096)]).optional(),
  instructions: z.string().nullish(),
  tools: z.array(ResponseToolSchema).max(128).nullish(),
  tool_choice: ToolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.looseObject({ format: TextFormatSchema.nullish(), verbosity: z.string().nullish() }).nullish(),
  max_output_tokens: z.number().int().min(1).max(1_000_000).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  // OpenAI allows string values only; `metadata.sim` may be an object or its JSON (docs/chat.md).
  metadata: MetadataSchema.nullish(),
  store: z
    .boolean()
    .nullish()
    .transform((value) => value ?? true),
  include: z.array(z.enum(INCLUDABLE)).max(16).nullish(),
  truncation: z.enum(['auto', 'disabled']).nullish(),
  stream: z
    .boolean()
    .nullish()
    .transform((value) => value ?? false),
  background: z
    .boolean()
    .nullish()
    .transform((value) => value ?? false),
  previous_response_id: z.string().min(1).nullish(),
  user: z.string().nullish(),
});
export type ResponseCreateRequest = z.output<typeof ResponseCreateRequestSchema>;

/** GET /v1/responses/{id}/input_items: cursor pages as OpenAI's. */
export const InputItemsQuerySchema = z.object({
  after: z.string().min(1).optional(),
  before: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
});
export type InputItemsQuery = z.output<typeof InputItemsQuerySchema>;

/** GET /v1/responses/{id}: `stream=true` replays the stored events after `starting_after`. */
export const RetrieveQuerySchema = z.object({
  stream: z.enum(['true', 'false']).optional(),
  starting_after: z.coerce.number().int().min(-1).optional(),
});

// ---- Response objects ----

const OutputTextContentSchema = z.strictObject({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()),
  logprobs: z.array(z.unknown()),
});

const ItemStatusSchema = z.enum(['in_progress', 'completed', 'incomplete']);

const OutputMessageSchema = z.strictObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  status: ItemStatusSchema,
  content: z.array(OutputTextContentSchema),
});
const FunctionCallOutputSchema = z.strictObject({
  id: z.string(),
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  status: ItemStatusSchema,
});
const FileSearchResultSchema = z.strictObject({
  file_id: z.string(),
  filename: z.string(),
  score: z.number(),
  text: z.string(),
  attributes: z.record(z.string(), z.unknown()),
});
const FileSearchCallSchema = z.strictObject({
  id: z.string(),
  type: z.literal('file_search_call'),
  status: z.enum(['in_progress', 'searching', 'completed', 'failed']),
  queries: z.array(z.string()),
  results: z.array(FileSearchResultSchema).nullable(),
});

/** One item of a response's `output`. */
export const OutputItemSchema = z.discriminatedUnion('type', [
  OutputMessageSchema,
  FunctionCallOutputSchema,
  FileSearchCallSchema,
]);
export type OutputItem = z.output<typeof OutputItemSchema>;
export type OutputMessage = z.output<typeof OutputMessageSchema>;
export type FunctionCallOutput = z.output<typeof FunctionCallOutputSchema>;
export type FileSearchCall = z.output<typeof FileSearchCallSchema>;

/** `usage` of a response, with the details OpenAI's SDKs read. */
export const ResponseUsageSchema = z.strictObject({
  input_tokens: z.number().int().nonnegative(),
  input_tokens_details: z.strictObject({ cached_tokens: z.number().int().nonnegative() }),
  output_tokens: z.number().int().nonnegative(),
  output_tokens_details: z.strictObject({ reasoning_tokens: z.number().int().nonnegative() }),
  total_tokens: z.number().int().nonnegative(),
});
export type ResponseUsage = z.output<typeof ResponseUsageSchema>;

/** Where a response is. */
export const ResponseStatusSchema = z.enum(['queued', 'in_progress', 'completed', 'incomplete', 'failed', 'cancelled']);
export type ResponseStatus = z.output<typeof ResponseStatusSchema>;

/** The `response` object. `svc` and `cost` (the exact charge) are set once it ended. */
export const ResponseObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number().int(),
  status: ResponseStatusSchema,
  background: z.boolean(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  incomplete_details: z.strictObject({ reason: z.enum(['max_output_tokens', 'content_filter']) }).nullable(),
  instructions: z.string().nullable(),
  max_output_tokens: z.number().int().nullable(),
  model: z.string(),
  output: z.array(OutputItemSchema),
  parallel_tool_calls: z.boolean(),
  previous_response_id: z.string().nullable(),
  reasoning: z.strictObject({ effort: z.null(), summary: z.null() }),
  store: z.boolean(),
  temperature: z.number().nullable(),
  text: z.strictObject({ format: z.record(z.string(), z.unknown()) }),
  tool_choice: z.unknown(),
  tools: z.array(z.record(z.string(), z.unknown())),
  top_p: z.number().nullable(),
  truncation: z.enum(['auto', 'disabled']),
  usage: ResponseUsageSchema.nullable(),
  user: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  svc: ChatSvcSchema.optional(),
  cost: ChatCostSchema.optional(),
});
export type ResponseObject = z.output<typeof ResponseObjectSchema>;

/** DELETE /v1/responses/{id}. */
export const ResponseDeletedSchema = z.strictObject({
  id: z.string(),
  object: z.literal('response.deleted'),
  deleted: z.literal(true),
});

/** A stored input item as GET …/input_items lists it: the request's items, each with an id. */
export const StoredInputItemSchema = z.record(z.string(), z.unknown()).and(z.object({ id: z.string() }));
export type StoredInputItem = { id: string; type: string } & Record<string, unknown>;

/** One page of input items. */
export const InputItemListSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(StoredInputItemSchema),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

// ---- Stream events ----

const seq = { sequence_number: z.number().int().nonnegative() };
const lifecycle = (type: string) => z.strictObject({ type: z.literal(type), ...seq, response: ResponseObjectSchema });
const itemEvent = (type: string) =>
  z.strictObject({ type: z.literal(type), ...seq, output_index: z.number().int(), item: OutputItemSchema });
const partEvent = (type: string) =>
  z.strictObject({
    type: z.literal(type),
    ...seq,
    item_id: z.string(),
    output_index: z.number().int(),
    content_index: z.number().int(),
    part: OutputTextContentSchema,
  });
const searchEvent = (type: string) =>
  z.strictObject({ type: z.literal(type), ...seq, item_id: z.string(), output_index: z.number().int() });

/** Every event of a streamed response, as the SDKs parse them. */
export const ResponseStreamEventSchema = z.discriminatedUnion('type', [
  lifecycle('response.created'),
  lifecycle('response.queued'),
  lifecycle('response.in_progress'),
  lifecycle('response.completed'),
  lifecycle('response.incomplete'),
  lifecycle('response.failed'),
  itemEvent('response.output_item.added'),
  itemEvent('response.output_item.done'),
  partEvent('response.content_part.added'),
  partEvent('response.content_part.done'),
  z.strictObject({
    type: z.literal('response.output_text.delta'),
    ...seq,
    item_id: z.string(),
    output_index: z.number().int(),
    content_index: z.number().int(),
    delta: z.string(),
    logprobs: z.array(z.unknown()),
  }),
  z.strictObject({
    type: z.literal('response.output_text.done'),
    ...seq,
    item_id: z.string(),
    output_index: z.number().int(),
    content_index: z.number().int(),
    text: z.string(),
    logprobs: z.array(z.unknown()),
  }),
  z.strictObject({
    type: z.literal('response.function_call_arguments.delta'),
    ...seq,
    item_id: z.string(),
    output_index: z.number().int(),
    delta: z.string(),
  }),
  z.strictObject({
    type: z.literal('response.function_call_arguments.done'),
    ...seq,
    item_id: z.string(),
    output_index: z.number().int(),
    name: z.string(),
    arguments: z.string(),
  }),
  searchEvent('response.file_search_call.in_progress'),
  searchEvent('response.file_search_call.searching'),
  searchEvent('response.file_search_call.completed'),
  z.strictObject({
    type: z.literal('error'),
    ...seq,
    code: z.string(),
    message: z.string(),
    param: z.string().nullable(),
  }),
]);
export type ResponseStreamEvent = z.output<typeof ResponseStreamEventSchema>;
/** A stream event before it is numbered. */
export type UnnumberedEvent = ResponseStreamEvent extends infer E
  ? E extends { sequence_number: number }
    ? Omit<E, 'sequence_number'>
    : never
  : never;

/** A `response.output_text.delta` before its number, its fields in their wire order (number last). */
export function outputTextDelta(
  itemId: string,
  outputIndex: number,
  delta: string,
): Extract<UnnumberedEvent, { type: 'response.output_text.delta' }> {
  return {
    type: 'response.output_text.delta',
    item_id: itemId,
    output_index: outputIndex,
    content_index: 0,
    delta,
    logprobs: [],
  };
}
