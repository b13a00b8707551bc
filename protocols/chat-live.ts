import { z } from 'zod';

/** Spec 2.4: live input to a running completion or session; extra properties accepted. */
export const LiveInputRequestSchema = z.looseObject({
  content: z.unknown().refine((value) => value !== undefined && value !== null, 'Field required'),
  question_id: z.string().max(200).nullish(),
  source: z.string().max(100).default('api_live_input'),
  modality: z.string().max(50).default('text'),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});

/** Spec 2.5: cancel request; the body is optional. */
export const CancelRequestSchema = z.looseObject({
  reason: z.string().max(1000).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
