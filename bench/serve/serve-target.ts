import { Agent } from 'undici';
import { filePrompts, syntheticPrompts, type BenchPrompt } from './prompt-source.js';
import type { ServeOptions } from './serve-options.js';
import type { RequestTarget } from './stream-request.js';

/** The prompts a run sends: the JSONL file's, or the synthetic generator's (same seed on every thread). */
export function promptsOf(options: ServeOptions): (index: number) => BenchPrompt {
  return options.promptsFile
    ? filePrompts(options.promptsFile, options.outputTokens, options.seed)
    : syntheticPrompts({ input: options.inputTokens, output: options.outputTokens, seed: options.seed });
}

/** Where and how requests go: the target's `/v1`, with a keep-alive pool of its own. */
export function targetOf(options: ServeOptions): RequestTarget & { dispatcher: Agent } {
  return {
    base: `${options.url.replace(/\/+$/, '')}/v1`,
    token: options.token,
    model: options.model,
    api: options.api,
    ignoreEos: options.ignoreEos,
    timeoutMs: options.timeoutMs,
    dispatcher: new Agent({ keepAliveTimeout: 30_000, connections: null }),
  };
}
