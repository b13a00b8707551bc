import type { UpstreamChunk, UpstreamCompletion } from './upstream-schemas.js';

// The shapes nearly every upstream answer has (text, a finish reason, usage), checked by hand: zod
// copies every object it passes, which for a stream is every chunk. Each check accepts only values
// the zod schema accepts unchanged (its objects are loose, so it would return an equal copy);
// anything else, tool calls included, returns null and goes through the schema, which decides.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const nullish = (value: unknown): boolean => value === undefined || value === null;
const optionalString = (value: unknown): boolean => nullish(value) || typeof value === 'string';
const optionalCount = (value: unknown): boolean =>
  nullish(value) || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);

function plainUsage(usage: unknown): boolean {
  return (
    nullish(usage) || (isObject(usage) && optionalCount(usage.prompt_tokens) && optionalCount(usage.completion_tokens))
  );
}

/** The chunk itself when it is text and/or a finish reason only (no tool calls); null otherwise. */
export function plainChunk(json: unknown): UpstreamChunk | null {
  if (!isObject(json) || !optionalString(json.id) || !plainUsage(json.usage)) return null;
  const choices = json.choices;
  if (!Array.isArray(choices)) return null;
  for (const choice of choices as unknown[]) {
    if (!isObject(choice) || !optionalString(choice.finish_reason)) return null;
    const index = choice.index;
    if (!nullish(index) && !(typeof index === 'number' && Number.isSafeInteger(index))) return null;
    const delta = choice.delta;
    if (nullish(delta)) continue;
    if (!isObject(delta) || !optionalString(delta.content)) return null;
    if (!nullish(delta.tool_calls) || !nullish(delta.function_call)) return null;
  }
  return json as UpstreamChunk;
}

/** The completion itself when its choices are text only (no tool or function calls); null otherwise. */
export function plainCompletion(json: unknown): UpstreamCompletion | null {
  if (!isObject(json) || !optionalString(json.id) || !plainUsage(json.usage)) return null;
  const choices = json.choices;
  if (!Array.isArray(choices) || choices.length === 0) return null;
  for (const choice of choices as unknown[]) {
    if (!isObject(choice) || !optionalString(choice.finish_reason)) return null;
    const message = choice.message;
    if (!isObject(message) || !optionalString(message.content)) return null;
    if (!nullish(message.tool_calls) || !nullish(message.function_call)) return null;
  }
  return json as UpstreamCompletion;
}
