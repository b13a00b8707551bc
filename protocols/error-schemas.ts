import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from './errors.js';

const CODES = Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]];

/** One item of an HTTPValidationError `detail` array. */
export const ValidationDetailSchema = z.strictObject({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});

/** The error envelope every failure answers with (`detail` only on validation errors). */
export const ErrorEnvelopeSchema = z.strictObject({
  error: z.strictObject({
    message: z.string(),
    type: z.string(),
    code: z.enum(CODES),
    param: z.string().nullable(),
  }),
  request_id: z.string(),
  detail: z.array(ValidationDetailSchema).optional(),
});

/** A 422: the envelope with the spec's HTTPValidationError `detail`. */
export const HTTPValidationErrorSchema = ErrorEnvelopeSchema.extend({ detail: z.array(ValidationDetailSchema) });
