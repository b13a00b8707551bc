import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { LengthDistribution } from './serve-options.js';

/** One prompt to send: the messages, the output length asked for, and the prompt's estimated tokens. */
export interface BenchPrompt {
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  /** `max_tokens` (chat) or `max_output_tokens` (Responses); null: left to the server. */
  maxTokens: number | null;
  /** The prompt's length in tokens as estimated here (the server's usage replaces it when given). */
  estimatedInputTokens: number;
}

// Common English words that are one token each in the GPT and Llama tokenizers (with the leading
// space), so a synthetic prompt of N words is close to N tokens on the server whatever its tokenizer.
const WORDS = (
  'the of and to in is it that for on with as was he be at by this had not are but from or have an they which one ' +
  'you were her all she there would their we him been has when who will more no if out so said what up its about ' +
  'into than them can only other new some could time these two may then do first any my now such like our over man ' +
  'me even most made after also did many before must through back years where much your way well down should ' +
  'because each just those people how too little state good very make world still own see men work long get here ' +
  'between both life being under never day same another know while last might us great old year off come since ' +
  'against go came right used take three'
).split(' ');

/** A small seeded generator (mulberry32): the same seed gives the same prompts and arrivals. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A length drawn from a normal distribution (Box-Muller), rounded and at least 1. */
function drawLength(random: () => number, length: LengthDistribution): number {
  if (length.stddev === 0) return Math.max(1, Math.round(length.mean));
  const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.max(1, Math.round(length.mean + length.stddev * normal));
}

/**
 * Synthetic prompts: a unique opening (so no prefix or response cache answers from memory) then
 * random words up to the drawn input length; the drawn output length becomes `max_tokens`.
 */
export function syntheticPrompts(options: {
  input: LengthDistribution;
  output: LengthDistribution;
  seed: number;
}): (index: number) => BenchPrompt {
  const random = seededRandom(options.seed);
  const run = Math.floor(random() * 1e9).toString(36);
  return (index) => {
    const inputTokens = drawLength(random, options.input);
    const words = [`request ${run}-${index}:`];
    while (words.length < inputTokens) words.push(WORDS[Math.floor(random() * WORDS.length)]!);
    return {
      messages: [{ role: 'user', content: words.join(' ') }],
      maxTokens: drawLength(random, options.output),
      estimatedInputTokens: Math.max(inputTokens, 3),
    };
  };
}

const MessageSchema = z.strictObject({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});

/** One line of a prompts file: a prompt or messages, and optionally the output length to ask for. */
const PromptLineSchema = z.union([
  z.string().min(1),
  z
    .looseObject({
      prompt: z.string().min(1).optional(),
      messages: z.array(MessageSchema).min(1).optional(),
      max_tokens: z.number().int().min(1).optional(),
      output_tokens: z.number().int().min(1).optional(),
    })
    .refine((line) => (line.prompt === undefined) !== (line.messages === undefined), {
      message: 'needs exactly one of prompt or messages',
    }),
]);

/** A rough token estimate for text of unknown tokenizer (about 4 characters a token in English). */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.round(text.length / 4));
}

/**
 * Prompts from a JSONL file, used in turn (wrapping around): each line a JSON string, or
 * `{"prompt": …}` or `{"messages": [...]}` with an optional `max_tokens` (or `output_tokens`);
 * without one, the output length is drawn from `output` (null: left to the server).
 */
export function filePrompts(
  path: string,
  output: LengthDistribution | null,
  seed: number,
): (index: number) => BenchPrompt {
  const random = seededRandom(seed);
  const prompts = readFileSync(path, 'utf8')
    .split('\n')
    .map((line, at) => ({ line: line.trim(), number: at + 1 }))
    .filter(({ line }) => line !== '')
    .map(({ line, number }) => {
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        throw new Error(`${path}:${number}: not JSON`);
      }
      const parsed = PromptLineSchema.safeParse(json);
      if (!parsed.success) throw new Error(`${path}:${number}: ${parsed.error.issues[0]?.message ?? 'invalid prompt'}`);
      const entry = parsed.data;
      const messages =
        typeof entry === 'string'
          ? [{ role: 'user' as const, content: entry }]
          : (entry.messages ?? [{ role: 'user' as const, content: entry.prompt! }]);
      const maxTokens = typeof entry === 'string' ? null : (entry.max_tokens ?? entry.output_tokens ?? null);
      return { messages, maxTokens, estimatedInputTokens: estimateTokens(messages.map((m) => m.content).join('\n')) };
    });
  if (prompts.length === 0) throw new Error(`${path}: no prompts`);
  return (index) => {
    const prompt = prompts[index % prompts.length]!;
    return prompt.maxTokens !== null || !output ? prompt : { ...prompt, maxTokens: drawLength(random, output) };
  };
}
