import type { z } from 'zod';
import { ApiError, type ValidationDetail } from './errors.js';

/** Where the validated value came from, the first element of every `loc`. */
export type ValidationSource = 'body' | 'query' | 'path' | 'header';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

const isTypeMismatch = (alternative: readonly z.core.$ZodIssue[]) =>
  alternative.length === 1 && alternative[0]!.code === 'invalid_type' && alternative[0].path.length === 0;

/**
 * A plain union's "Invalid input" made readable: the issues of the one alternative whose type the
 * value has (at their full paths), or, when the value has none of their types, which were expected.
 */
function readableIssues(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((issue): z.core.$ZodIssue[] => {
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
    const matched = issue.errors.filter((alternative) => !isTypeMismatch(alternative));
    if (matched.length === 1)
      return readableIssues(matched[0]!.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })));
    if (matched.length > 0) return [issue];
    const expected = new Set(
      issue.errors.map((alternative) => (alternative[0] as z.core.$ZodIssueInvalidType).expected),
    );
    return [{ ...issue, message: `Invalid input: expected ${[...expected].join(' or ')}` }];
  });
}

/** Maps zod issues to HTTPValidationError items; a missing field gets type `missing`. */
export function issuesToDetail(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
  source: ValidationSource,
): ValidationDetail[] {
  return readableIssues(issues).map((issue) => {
    const path = issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key));
    const missing = issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined;
    return {
      loc: [source, ...path],
      msg: missing ? 'Field required' : issue.message,
      type: missing ? 'missing' : issue.code,
    };
  });
}

/** Parses `input` with `schema` or throws a 422 ApiError carrying the `detail` list. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  source: ValidationSource = 'body',
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const detail = issuesToDetail(result.error.issues, input, source);
  const first = detail[0];
  const where = first ? first.loc.slice(1).join('.') : '';
  const message = first ? `Invalid ${source}${where ? ` at ${where}` : ''}: ${first.msg}` : `Invalid ${source}`;
  return throwValidation(message, detail, where || null);
}

function throwValidation(message: string, detail: ValidationDetail[], param: string | null): never {
  throw new ApiError('validation_error', message, { detail, param });
}

/** A 422 for one field a schema cannot judge alone (a size known only at run time, a path parameter). */
export function fieldError(
  loc: [ValidationSource, ...(string | number)[]],
  msg: string,
  type = 'value_error',
): ApiError {
  const where = loc.slice(1).join('.');
  return new ApiError('validation_error', `Invalid ${loc[0]} at ${where}: ${msg}`, {
    detail: [{ loc, msg, type }],
    param: where,
  });
}
