// A video job's states as the service and the runtime ask about them.

/** Every state a job can be in (running has `waiting` and `polling` inside). */
export type VideoJobStateName =
  | 'queued'
  | 'submitting'
  | 'running'
  | 'storing'
  | 'settling'
  | 'failing'
  | 'cancelling'
  | 'completed'
  | 'failed'
  | 'cancelled';

/** The top-level state of a persisted snapshot value. */
export function topState(value: unknown): VideoJobStateName {
  return (typeof value === 'string' ? value : Object.keys(value as object)[0]) as VideoJobStateName;
}

/** States in which a job holds money. */
export const HOLDING_STATES: readonly VideoJobStateName[] = [
  'queued',
  'submitting',
  'running',
  'storing',
  'settling',
  'failing',
  'cancelling',
];

/** States that take CANCEL. */
export const CANCELLABLE_STATES: readonly VideoJobStateName[] = ['queued', 'submitting', 'running'];
