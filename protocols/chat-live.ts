import { z } from 'zod';
import { MetadataSchema } from './json-bounds.js';

/** Spec 2.4: live input to a running completion or session; extra properties accepted. */
export const LiveInputRequestSchema = z.looseObject({
  content: z.unknown().refine((value) => value !== undefined && value !== null, 'Field required'),
  question_id: z.string().max(200).nullish(),
  source: z.string().max(100).default('api_live_input'),
  modality: z.string().max(50).default('text'),
  metadata: MetadataSchema.nullish(),
});

/** Spec 2.5: cancel request; the body is optional. */
export const CancelRequestSchema = z.looseObject({
  reason: z.string().max(1000).nullish(),
  metadata: MetadataSchema.nullish(),
});

// ---- Answers of the live routes of /v1/chat/completions/{completion_id} ----

/** POST …/live-input on a plain completion: accepted, its seq, and the run's state. */
export const LiveInputAckSchema = z.strictObject({
  object: z.literal('chat.completion.live_input'),
  completion_id: z.string(),
  accepted: z.literal(true),
  seq: z.number().int().positive(),
  state: z.string(),
});
export type LiveInputAck = z.output<typeof LiveInputAckSchema>;

/** POST …/live-input or …/cancel that reached a session's run by its completion id. */
export const SessionRunAckSchema = z.strictObject({
  object: z.literal('chat.completion.session_run'),
  completion_id: z.string(),
  session_id: z.string(),
  accepted: z.literal(true),
});
export type SessionRunAck = z.output<typeof SessionRunAckSchema>;

/** GET …/live-input: the run's state and phase, and each input with the pass that used it. */
export const LiveInputStatusSchema = z.strictObject({
  object: z.literal('chat.completion.live_input_status'),
  completion_id: z.string(),
  state: z.string(),
  active: z.boolean(),
  phase: z.enum(['answer', 'plan', 'draft', 'check', 'judge']).nullable(),
  inputs: z.array(
    z.strictObject({
      seq: z.number().int().positive(),
      source: z.string(),
      modality: z.string(),
      question_id: z.string().nullable(),
      used_in: z.enum(['answer', 'plan', 'draft', 'check', 'judge']).nullable(),
      received_at: z.number().int(),
    }),
  ),
  pending: z.number().int().nonnegative(),
});
export type LiveInputStatus = z.output<typeof LiveInputStatusSchema>;

/** POST …/cancel on a plain completion: whether this call ended it, and its state now. */
export const CancelResultSchema = z.strictObject({
  object: z.literal('chat.completion.cancel'),
  completion_id: z.string(),
  cancelled: z.boolean(),
  state: z.string(),
});
export type CancelResult = z.output<typeof CancelResultSchema>;
