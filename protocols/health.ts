import { z } from 'zod';

/** GET /healthz: the process answers, and which chat backend it runs. */
export const HealthObjectSchema = z.strictObject({
  status: z.literal('ok'),
  backend: z.string(),
});
/** The liveness answer. */
export type HealthObject = z.output<typeof HealthObjectSchema>;

/** GET /readyz when ready: every check passed. */
export const ReadinessObjectSchema = z.strictObject({
  status: z.literal('ready'),
  checks: z.strictObject({
    booted: z.boolean(),
    store_open: z.boolean(),
    draining: z.boolean(),
    nats_connected: z.boolean().nullable(),
  }),
});
