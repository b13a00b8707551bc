import { z } from 'zod';

const Name = z.string().min(1).max(100);

/** GET /admin/v1/actors: filters and a page. Ages are seconds since the actor started. */
export const ActorListQuerySchema = z.object({
  machine: Name.optional(),
  state: z.string().min(1).max(200).optional(),
  owner: Name.optional(),
  q: z.string().min(1).max(200).optional(),
  min_age_s: z.coerce.number().min(0).optional(),
  max_age_s: z.coerce.number().min(0).optional(),
  cursor: z.string().min(1).max(400).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** GET /admin/v1/actors/{id}/events and …/steps: a cursor (exclusive) and a page size; `stream=true` for SSE. */
export const ActorLogQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  stream: z.enum(['true', 'false']).optional(),
});

/** GET /admin/v1/actors/{id}/at/{seq}: the state and context after one logged event. */
export const ActorAtParamSchema = z.object({ seq: z.coerce.number().int().min(1) });

/** GET /admin/v1/machines/{name}: the export format. */
export const MachineExportQuerySchema = z.object({ format: z.enum(['json', 'mermaid', 'scxml']).default('json') });

/** GET /admin/v1/actors/stream: only the machine and owner narrow a live list (states and ages change under it). */
export const ActorStreamQuerySchema = ActorListQuerySchema.pick({ machine: true, owner: true });

/** GET /admin/v1/actors/{id}/steps: a cursor (exclusive) and a page size; steps are pages only. */
export const ActorStepsQuerySchema = ActorLogQuerySchema.omit({ stream: true });

const Count = z.number().int().min(0);

/** One live actor in a list. */
export const ActorSummarySchema = z.strictObject({
  object: z.literal('actor'),
  id: z.string(),
  machine: z.string(),
  owner_id: z.string(),
  /** Active state paths (`running.thinking`), one per region of a parallel state. */
  state: z.array(z.string()),
  status: z.string(),
  /** Whether the host persists it (false for direct runs such as completions). */
  durable: z.boolean(),
  created_at: Count,
  updated_at: Count,
  age_s: Count,
});

/** One live actor on the wire. */
export type ActorSummaryWire = z.output<typeof ActorSummarySchema>;

/** GET /admin/v1/actors: a page of live actors, oldest first. */
export const ActorListObjectSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(ActorSummarySchema),
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
  /** How many live actors matched the filter in all. */
  total: Count,
});

/** GET /admin/v1/actors/stream `actor` event: a committed transition of a listed actor. */
export const ActorListEventSchema = ActorSummarySchema.extend({ done: z.boolean() });

/** GET /admin/v1/actors/{id}: the summary, the persisted snapshot, the log position and where it runs. */
export const ActorDetailObjectSchema = ActorSummarySchema.extend({
  live: z.boolean(),
  node: z.string(),
  /** XState's persisted snapshot (null before the first commit). */
  snapshot: z.unknown(),
  last_seq: Count,
  steps: Count,
});

/** One entry of an actor's event log, as stored. */
export const ActorEventSchema = z.strictObject({
  seq: z.number().int().min(1),
  type: z.string(),
  ts: Count,
  data: z.record(z.string(), z.unknown()),
});

/** One step of the history: the state and context after it. */
export const ActorStepSchema = z.strictObject({
  step: z.number().int().min(1),
  ts: Count,
  /** The event that caused it when the host knows it, else null. */
  cause: z.string().nullable(),
  up_to_seq: Count,
  status: z.string(),
  state: z.array(z.string()),
  value: z.unknown(),
  context: z.unknown(),
});

/** One step on the wire. */
export type ActorStepWire = z.output<typeof ActorStepSchema>;

/** GET /admin/v1/actors/{id}/events (a page). */
export const ActorEventsPageSchema = z.strictObject({
  object: z.literal('actor.events'),
  data: z.array(ActorEventSchema),
  next_after: Count,
  has_more: z.boolean(),
});

/** GET /admin/v1/actors/{id}/steps */
export const ActorStepsPageSchema = z.strictObject({
  object: z.literal('actor.steps'),
  data: z.array(ActorStepSchema),
  next_after: Count,
  has_more: z.boolean(),
});

/** GET /admin/v1/actors/{id}/at/{seq}: the first step that includes event `seq`. */
export const ActorAtObjectSchema = ActorStepSchema.extend({
  object: z.literal('actor.step'),
  seq: z.number().int().min(1),
});

/**
 * GET /admin/v1/actors/{id}/events as SSE; the `event:` line names which: `event` (a log entry,
 * id = seq), `step` (a committed state and context), `received` (an event XState handed the actor,
 * before commit) and `end` (empty) when the actor finishes.
 */
export const ActorStreamEventSchema = z.union([
  ActorEventSchema,
  ActorStepSchema.extend({ done: z.boolean() }),
  z.strictObject({ type: z.string(), actor: z.string() }),
  z.strictObject({}),
]);

/** What a call's turn timeline marks. */
export const TURN_MARK_KINDS = [
  'speech_started',
  'speech_stopped',
  'audio_committed',
  'response_started',
  'response_done',
  'barge_in',
  'hang_up',
  'closed',
] as const;

/** GET /admin/v1/actors/{id}/timeline: a realtime call's turns, from its log (`seq`) and history (`step`). */
export const ActorTimelineObjectSchema = z.strictObject({
  object: z.literal('actor.timeline'),
  actor_id: z.string(),
  data: z.array(
    z.strictObject({
      ts: Count,
      kind: z.enum(TURN_MARK_KINDS),
      label: z.string(),
      seq: z.number().int().nullable(),
      step: z.number().int().nullable(),
    }),
  ),
});

/** GET /admin/v1/machines/{name} as JSON: states, the transition table and the definition itself. */
export const MachineExportObjectSchema = z.strictObject({
  object: z.literal('machine'),
  name: z.string(),
  states: z.array(z.strictObject({ path: z.string(), type: z.string(), invokes: z.array(z.string()) })),
  transitions: z.array(
    z.strictObject({
      state: z.string(),
      event: z.string(),
      guard: z.string().nullable(),
      targets: z.array(z.string()),
      actions: z.array(z.string()),
    }),
  ),
  /** XState's JSON of the machine, with its eventless transitions. */
  definition: z.unknown(),
});

/** The machine export's text formats. */
export const MERMAID_CONTENT_TYPE = 'text/vnd.mermaid; charset=utf-8';
export const SCXML_CONTENT_TYPE = 'application/scxml+xml; charset=utf-8';
