import * as assert from 'uvu/assert';
import type { z } from 'zod';

/**
 * Asserts a real response has `status` and a body the outbound wire schema accepts as it is:
 * the schemas are strict, so a field a view adds or drops without the schema fails here.
 */
export function assertWire<S extends z.ZodType>(
  schema: S,
  res: { status: number; body: unknown },
  status = 200,
  what = '',
): z.output<S> {
  assert.is(res.status, status, `${what} ${JSON.stringify(res.body).slice(0, 300)}`);
  const parsed = schema.safeParse(res.body);
  if (!parsed.success)
    assert.unreachable(
      `${what}: the body does not match its wire schema: ${JSON.stringify(parsed.error.issues).slice(0, 600)}`,
    );
  return parsed.data as z.output<S>;
}
