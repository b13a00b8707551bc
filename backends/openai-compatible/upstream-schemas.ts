import { z } from 'zod';

// What we read from an OpenAI-compatible upstream: only the fields we use, every other one allowed.
// Upstreams differ in what they send as null or leave out, so optional fields are nullish.

const FunctionFragment = z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() });

const Usage = z.looseObject({
  prompt_tokens: z.number().int().min(0).nullish(),
  completion_tokens: z.number().int().min(0).nullish(),
});

/** One `chat.completion.chunk` of a streamed answer; `choices` may be empty (the usage chunk). */
export const UpstreamChunkSchema = z.looseObject({
  id: z.string().nullish(),
  choices: z.array(
    z.looseObject({
      index: z.number().int().nullish(),
      delta: z
        .looseObject({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.looseObject({
                index: z.number().int().min(0).nullish(),
                id: z.string().nullish(),
                function: FunctionFragment.nullish(),
              }),
            )
            .nullish(),
          function_call: FunctionFragment.nullish(),
        })
        .nullish(),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: Usage.nullish(),
});

/** A parsed stream chunk. */
export type UpstreamChunk = z.output<typeof UpstreamChunkSchema>;

/** A whole `chat.completion`, for upstreams that answer JSON despite `stream: true`. */
export const UpstreamCompletionSchema = z.looseObject({
  id: z.string().nullish(),
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullish(),
          tool_calls: z.array(z.looseObject({ id: z.string().nullish(), function: FunctionFragment })).nullish(),
          function_call: FunctionFragment.nullish(),
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: Usage.nullish(),
});

/** A parsed whole completion. */
export type UpstreamCompletion = z.output<typeof UpstreamCompletionSchema>;

/** Usage as upstreams report it. */
export type UpstreamUsage = z.output<typeof Usage>;
