import { z } from 'zod';
import { RetryableError } from '../errors.js';

/**
 * Scripted behaviour of the sim backend, from request `metadata.sim` (documented in docs/chat.md):
 * fail with a given upstream error, override latency, answer a fixed text, ask a clarifying
 * question, or call a tool.
 */
export const SimScriptSchema = z.looseObject({
  fail: z.enum(['unavailable', 'timeout', 'error']).optional(),
  ttft_ms: z.number().int().min(0).max(60_000).optional(),
  tokens_per_s: z.number().min(0).max(100_000).optional(),
  reply: z.string().max(1_000_000).optional(),
  clarify: z.string().min(1).max(2_000).optional(),
  tool_call: z
    .looseObject({
      name: z.string().min(1),
      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    })
    .optional(),
});

/** A parsed `metadata.sim`. */
export type SimScript = z.output<typeof SimScriptSchema>;

/** Reads `metadata.sim`; an unreadable script is ignored rather than failing the request. */
export function readSimScript(metadata: Readonly<Record<string, unknown>> | null): SimScript {
  const parsed = SimScriptSchema.safeParse(metadata?.sim ?? {});
  return parsed.success ? parsed.data : {};
}

/**
 * The upstream error a script's `fail` asks for (503 unavailable, 504 timeout, 502 error), or null:
 * how testers make any sim engine fail before its first byte.
 */
export function scriptedFailure(script: SimScript): RetryableError | null {
  if (script.fail === 'unavailable')
    return new RetryableError('sim: provider unavailable (scripted)', 'upstream_unavailable');
  if (script.fail === 'timeout') return new RetryableError('sim: provider timed out (scripted)', 'upstream_timeout');
  if (script.fail === 'error')
    return new RetryableError('sim: provider returned an error (scripted)', 'upstream_error');
  return null;
}

/** Throws the failure `metadata.sim.fail` asks for, if any (the audio sim engines call it first). */
export function throwScriptedFailure(metadata: Readonly<Record<string, unknown>> | null | undefined): void {
  const failure = scriptedFailure(readSimScript(metadata ?? null));
  if (failure) throw failure;
}
