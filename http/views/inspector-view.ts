import type { z } from 'zod';
import type { TurnMark } from '../../actors/realtime/call-timeline.js';
import type {
  ActorAtObjectSchema,
  ActorDetailObjectSchema,
  ActorEventSchema,
  ActorEventsPageSchema,
  ActorListEventSchema,
  ActorListObjectSchema,
  ActorStepsPageSchema,
  ActorStepWire,
  ActorStreamEventSchema,
  ActorSummaryWire,
  ActorTimelineObjectSchema,
  MachineExportObjectSchema,
} from '../../protocols/inspector.js';
import { sseEvent } from '../../protocols/sse.js';
import { stateList, transitionTable } from '../../runtime/host/machine-diagram.js';
import type { ActorDetail, ActorPage, ActorSummary, ActorViewer } from '../../runtime/host/actor-inspector.js';
import { statePaths } from '../../runtime/host/actor-inspector.js';
import type { ActorStep } from '../../runtime/host/actor-steps.js';
import type { LogEvent } from '../../runtime/host/actor-log.js';

/** One live actor as the list shows it. */
export function actorSummaryWire(summary: ActorSummary, now: number): ActorSummaryWire {
  return {
    object: 'actor',
    id: summary.id,
    machine: summary.machine,
    owner_id: summary.ownerId,
    state: summary.state,
    status: summary.status,
    durable: summary.durable,
    created_at: summary.createdAt,
    updated_at: summary.updatedAt,
    age_s: Math.max(0, Math.round((now - summary.createdAt) / 1000)),
  };
}

/** GET /admin/v1/actors */
export function actorPageView(page: ActorPage, now: number): z.output<typeof ActorListObjectSchema> {
  return {
    object: 'list',
    data: page.actors.map((summary) => actorSummaryWire(summary, now)),
    next_cursor: page.next,
    has_more: page.next !== null,
    total: page.total,
  };
}

/** GET /admin/v1/actors/{id}: the summary, the persisted snapshot, the log position and where it runs. */
export function actorDetailView(
  detail: ActorDetail,
  now: number,
  node: string,
): z.output<typeof ActorDetailObjectSchema> {
  return {
    ...actorSummaryWire(detail.summary, now),
    live: detail.live,
    node,
    snapshot: detail.record.snapshot,
    last_seq: detail.record.nextSeq - 1,
    steps: detail.record.steps ?? 0,
  };
}

/** One step of the history. */
export function actorStepWire(step: ActorStep): ActorStepWire {
  return {
    step: step.step,
    ts: step.ts,
    cause: step.cause,
    up_to_seq: step.upToSeq,
    status: step.status,
    state: statePaths(step.value),
    value: step.value,
    context: step.context,
  };
}

/** One logged event, as stored. */
export function actorEventWire(event: LogEvent): z.output<typeof ActorEventSchema> {
  return { seq: event.seq, type: event.type, ts: event.ts, data: event.data };
}

/** GET /admin/v1/actors/stream `actor` event. */
export function actorListEventView(
  summary: ActorSummary,
  done: boolean,
  now: number,
): z.output<typeof ActorListEventSchema> {
  return { ...actorSummaryWire(summary, now), done };
}

/** A page of log events, with the cursor to continue from. */
export function actorEventsPageView(
  events: readonly LogEvent[],
  after: number,
  limit: number,
): z.output<typeof ActorEventsPageSchema> {
  return {
    object: 'actor.events',
    data: events.map(actorEventWire),
    next_after: events.at(-1)?.seq ?? after,
    has_more: events.length === limit,
  };
}

/** A page of steps, with the cursor to continue from. */
export function actorStepsPageView(
  steps: readonly ActorStep[],
  after: number,
  limit: number,
): z.output<typeof ActorStepsPageSchema> {
  return {
    object: 'actor.steps',
    data: steps.map(actorStepWire),
    next_after: steps.at(-1)?.step ?? after,
    has_more: steps.length === limit,
  };
}

/** GET /admin/v1/actors/{id}/at/{seq} */
export function actorAtView(seq: number, step: ActorStep): z.output<typeof ActorAtObjectSchema> {
  return { object: 'actor.step', seq, ...actorStepWire(step) };
}

/** GET /admin/v1/actors/{id}/timeline */
export function actorTimelineView(id: string, marks: readonly TurnMark[]): z.output<typeof ActorTimelineObjectSchema> {
  return {
    object: 'actor.timeline',
    actor_id: id,
    data: marks.map(({ ts, kind, label, seq, step }) => ({ ts, kind, label, seq, step })),
  };
}

/** GET /admin/v1/machines/{name} as JSON. */
export function machineExportView(name: string, definition: unknown): z.output<typeof MachineExportObjectSchema> {
  return {
    object: 'machine',
    name,
    states: stateList(definition),
    transitions: transitionTable(definition),
    definition,
  };
}

/**
 * An actor viewer writing SSE: `event` (a log entry, id = seq, so Last-Event-ID resumes), `step`
 * (a committed state and context), `received` (an event XState handed the actor, before commit)
 * and `end` when the actor finishes.
 */
export function sseViewer(pushText: (text: string) => void, close: () => void): ActorViewer {
  let lastSeq = 0;
  const push = (
    event: 'event' | 'step' | 'received' | 'end',
    id: number,
    value: z.output<typeof ActorStreamEventSchema>,
  ) => pushText(sseEvent(event, id, value));
  return {
    event(entry) {
      lastSeq = entry.seq;
      push('event', entry.seq, actorEventWire(entry));
    },
    step(step, done) {
      push('step', lastSeq, { ...actorStepWire(step), done });
    },
    received(item) {
      push('received', lastSeq, item);
    },
    end() {
      push('end', lastSeq, {});
      close();
    },
  };
}
