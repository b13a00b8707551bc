import { z } from 'zod';
import { MetadataSchema } from './json-bounds.js';

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const ImageUrlPart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const InputAudioPart = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string().min(1), format: z.string().min(1) }),
});
const FilePart = z.looseObject({
  type: z.literal('file'),
  file: z
    .looseObject({
      file_id: z.string().min(1).optional(),
      file_data: z.string().optional(),
      filename: z.string().optional(),
    })
    .refine((file) => file.file_id !== undefined || file.file_data !== undefined, 'file needs file_id or file_data'),
});
const InputVideoPart = z.looseObject({
  type: z.literal('input_video'),
  input_video: z.looseObject({
    url: z.string().optional(),
    file_id: z.string().optional(),
    data: z.string().optional(),
  }),
});

/** One part of a message's content. */
export const ContentPartSchema = z.discriminatedUnion('type', [
  TextPart,
  ImageUrlPart,
  InputAudioPart,
  FilePart,
  InputVideoPart,
]);
export type ContentPart = z.infer<typeof ContentPartSchema>;

const ToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

/** A chat message. `developer`, `tool` and `function` are accepted as the OpenAI SDK sends them. */
export const ChatMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(ContentPartSchema), z.null()]).optional(),
  name: z.string().nullish(),
  tool_call_id: z.string().nullish(),
  tool_calls: z.array(ToolCallSchema).nullish(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

const FunctionDefSchema = z.looseObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, underscores or dashes'),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

const ToolSchema = z.looseObject({ type: z.literal('function'), function: FunctionDefSchema });
const NamedChoice = z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) });

/** The response modes a caller may force; `auto` (or absent) lets the service classify. */
export const RESPONSE_MODES = ['auto', 'simple', 'complex'] as const;

/** POST /v1/chat/completions and POST /v1/chat/sessions (spec 2.1); extra properties accepted. */
export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessageSchema).min(1, 'must contain at least one message').max(4096),
  stream: z
    .boolean()
    .nullish()
    .transform((value) => value ?? false),
  stream_options: z
    .looseObject({ include_usage: z.boolean().optional(), include_progress_text: z.boolean().optional() })
    .nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.number().int().min(1).max(1_000_000).nullish(),
  max_completion_tokens: z.number().int().min(1).max(1_000_000).nullish(),
  n: z
    .number()
    .int()
    .min(1)
    .max(8)
    .nullish()
    .transform((value) => value ?? 1),
  stop: z.union([z.string(), z.array(z.string()).max(4), z.null()]).optional(),
  user: z.string().nullish(),
  response_format: z
    .union([
      z.looseObject({ type: z.literal('text') }),
      z.looseObject({ type: z.literal('json_object') }),
      z.looseObject({
        type: z.literal('json_schema'),
        json_schema: z.looseObject({ name: z.string(), schema: z.record(z.string(), z.unknown()).optional() }),
      }),
    ])
    .nullish(),
  metadata: MetadataSchema.nullish(),
  response_mode: z.enum(RESPONSE_MODES).nullish(),
  tools: z.array(ToolSchema).max(128).nullish(),
  tool_choice: z.union([z.enum(['none', 'auto', 'required']), NamedChoice]).nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  functions: z.array(FunctionDefSchema).max(128).nullish(),
  function_call: z.union([z.enum(['none', 'auto']), z.looseObject({ name: z.string() })]).nullish(),
  enable_judge: z
    .boolean()
    .nullish()
    .transform((value) => value ?? false),
  target_variant_id: z.string().nullish(),
  require_approval: z
    .boolean()
    .nullish()
    .transform((value) => value ?? false),
});

/** A validated chat request. */
export type ChatCompletionRequest = z.output<typeof ChatCompletionRequestSchema>;

/** The text of a message's content, with non-text parts left out. */
export function messageText(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
