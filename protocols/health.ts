import { z } from 'zod';

/** GET /healthz: the process answers, and which chat backend it runs. */
export const HealthObjectSchema = z.strictObject({
  status: z.literal('ok'),
  backend: z.string(),
});
/** The liveness answer. */
export type HealthObject = z.output<typeof HealthObjectSchema>;
