import { callTimeline } from '../../actors/realtime/call-timeline.js';
import { ApiError } from '../../protocols/errors.js';
import {
  ActorAtObjectSchema,
  ActorAtParamSchema,
  ActorDetailObjectSchema,
  ActorEventsPageSchema,
  ActorListEventSchema,
  ActorListObjectSchema,
  ActorListQuerySchema,
  ActorLogQuerySchema,
  ActorStepsPageSchema,
  ActorStepsQuerySchema,
  ActorStreamEventSchema,
  ActorStreamQuerySchema,
  ActorTimelineObjectSchema,
  MachineExportObjectSchema,
  MachineExportQuerySchema,
  MERMAID_CONTENT_TYPE,
  SCXML_CONTENT_TYPE,
} from '../../protocols/inspector.js';
import { parseOrThrow, fieldError } from '../../protocols/validation.js';
import { InvalidCursorError, type ActorInspector } from '../../runtime/host/actor-inspector.js';
import { machineDefinition, toMermaid, toScxml } from '../../runtime/host/machine-diagram.js';
import type { AppDeps } from '../app-deps.js';
import { DOCUMENTED_MACHINES } from '../machine-docs.js';
import { json, type RequestContext, type RouteDef } from '../route.js';
import { sseEvent } from '../../protocols/sse.js';
import { resumeFrom, streamSse } from '../sse-stream.js';
import {
  actorAtView,
  actorDetailView,
  actorEventsPageView,
  actorListEventView,
  actorPageView,
  actorStepsPageView,
  actorTimelineView,
  machineExportView,
  sseViewer,
} from '../views/inspector-view.js';

/** The most a timeline reads of a call's history. */
const TIMELINE_MAX = 10_000;

/** The `:id` of a route, once it names a known actor. */
function knownId(inspector: ActorInspector, ctx: RequestContext): string {
  const id = ctx.params.id!;
  detailOr404(inspector, id);
  return id;
}

function detailOr404(inspector: ActorInspector, id: string) {
  const detail = inspector.get(id);
  if (!detail) throw new ApiError('not_found', `No actor ${id.slice(0, 100)}.`, { param: 'id' });
  return detail;
}

/** A machine's definition by name: the hosted ones, and the documented ones the host does not run (completions). */
function definitionOf(host: AppDeps['host'], name: string): unknown {
  const hosted = host.definition(name);
  if (hosted !== undefined) return hosted;
  const documented = DOCUMENTED_MACHINES.find(([documentedName]) => documentedName === name);
  if (!documented) throw new ApiError('not_found', `No machine ${name.slice(0, 100)}.`, { param: 'name' });
  return machineDefinition(documented[1]);
}

function listQuery(ctx: RequestContext) {
  const query = ctx.query(ActorListQuerySchema);
  const filter = {
    machine: query.machine,
    state: query.state,
    ownerId: query.owner,
    q: query.q,
    minAgeMs: query.min_age_s === undefined ? undefined : query.min_age_s * 1000,
    maxAgeMs: query.max_age_s === undefined ? undefined : query.max_age_s * 1000,
  };
  return { filter, cursor: query.cursor ?? null, limit: query.limit };
}

/**
 * The inspection API under /admin/v1/actors (every live actor: list with filters and cursor paging,
 * one actor with its snapshot, its log and step history as pages or SSE, the state after any
 * logged event, a call's turn timeline) and machine exports; registered only with SVC_ADMIN_KEY.
 */
export function actorRoutes({ config, clock, host, inspection }: AppDeps): RouteDef[] {
  if (!config.SVC_ADMIN_KEY) return [];
  const { inspector, node } = inspection;
  return [
    {
      method: 'GET',
      path: '/admin/v1/actors',
      auth: 'admin',
      schema: {
        summary: 'List live actors (filters, cursor paging)',
        query: ActorListQuerySchema,
        response: ActorListObjectSchema,
      },
      handler(ctx) {
        const { filter, cursor, limit } = listQuery(ctx);
        try {
          return json(actorPageView(inspector.list(filter, cursor, limit), clock.now()));
        } catch (err) {
          if (err instanceof InvalidCursorError)
            throw fieldError(['query', 'cursor'], 'not a cursor this server issued');
          throw err;
        }
      },
    },
    {
      // Live list updates: an `actor` event for every committed transition (`done: true` when it finished).
      method: 'GET',
      path: '/admin/v1/actors/stream',
      auth: 'admin',
      schema: {
        summary: 'Live actor list updates (SSE `actor` events)',
        query: ActorStreamQuerySchema,
        events: ActorListEventSchema,
      },
      handler(ctx) {
        const { machine, owner } = ctx.query(ActorStreamQuerySchema);
        streamSse(ctx.ex, 'actors', (push) => {
          let counter = 0;
          return inspector.watchList((summary, done) => {
            if (machine !== undefined && summary.machine !== machine) return;
            if (owner !== undefined && summary.ownerId !== owner) return;
            push(sseEvent('actor', ++counter, actorListEventView(summary, done, clock.now())));
          });
        });
        return undefined;
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/actors/:id',
      auth: 'admin',
      schema: { summary: 'One actor: summary, snapshot, log position, node', response: ActorDetailObjectSchema },
      handler: (ctx) => json(actorDetailView(detailOr404(inspector, ctx.params.id!), clock.now(), node)),
    },
    {
      // The log from a cursor: a page, or with `stream=true` (or Accept: text/event-stream) SSE that
      // goes on live with committed steps and received events until the actor ends.
      method: 'GET',
      path: '/admin/v1/actors/:id/events',
      auth: 'admin',
      schema: {
        summary: "An actor's event log: a page, or SSE with stream=true",
        query: ActorLogQuerySchema,
        response: ActorEventsPageSchema,
        events: ActorStreamEventSchema,
      },
      handler(ctx) {
        const id = knownId(inspector, ctx);
        const { after, limit, stream } = ctx.query(ActorLogQuerySchema);
        if (stream === 'true' || /text\/event-stream/.test(ctx.ex.headers.accept ?? '')) {
          streamSse(ctx.ex, `actor ${id}`, (push, close) =>
            inspector.view(id, resumeFrom(ctx.ex, after), sseViewer(push, close)),
          );
          return undefined;
        }
        const events = inspector.events(id, after, limit);
        return json(actorEventsPageView(events, after, limit));
      },
    },
    {
      // The step history (time travel): the state and context after each committed transition.
      method: 'GET',
      path: '/admin/v1/actors/:id/steps',
      auth: 'admin',
      schema: {
        summary: "An actor's step history (time travel)",
        query: ActorStepsQuerySchema,
        response: ActorStepsPageSchema,
      },
      handler(ctx) {
        const id = knownId(inspector, ctx);
        const { after, limit } = ctx.query(ActorStepsQuerySchema);
        return json(actorStepsPageView(inspector.steps(id, after, limit), after, limit));
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/actors/:id/at/:seq',
      auth: 'admin',
      schema: { summary: 'The state and context after one logged event', response: ActorAtObjectSchema },
      handler(ctx) {
        const id = knownId(inspector, ctx);
        const { seq } = parseOrThrow(ActorAtParamSchema, { seq: ctx.params.seq }, 'path');
        const step = inspector.stepAfterSeq(id, seq);
        if (!step)
          throw new ApiError('not_found', `Actor ${id} has no recorded state after event ${seq}.`, { param: 'seq' });
        return json(actorAtView(seq, step));
      },
    },
    {
      method: 'GET',
      path: '/admin/v1/actors/:id/timeline',
      auth: 'admin',
      schema: { summary: "A realtime call's turn timeline", response: ActorTimelineObjectSchema },
      handler(ctx) {
        const id = ctx.params.id!;
        const detail = detailOr404(inspector, id);
        if (detail.summary.machine !== 'realtime-call')
          throw new ApiError(
            'not_found',
            `Actor ${id} is a ${detail.summary.machine}, not a realtime call: it has no turn timeline.`,
            { param: 'id' },
          );
        const marks = callTimeline(inspector.events(id, 0, TIMELINE_MAX), inspector.steps(id, 0, TIMELINE_MAX));
        return json(actorTimelineView(id, marks));
      },
    },
    {
      // One machine as JSON (with eventless transitions), Mermaid or SCXML-like text.
      method: 'GET',
      path: '/admin/v1/machines/:name',
      auth: 'admin',
      schema: {
        summary: 'Export one machine as JSON, Mermaid or SCXML',
        query: MachineExportQuerySchema,
        response: MachineExportObjectSchema,
        media: [MERMAID_CONTENT_TYPE, SCXML_CONTENT_TYPE],
      },
      handler(ctx) {
        const name = ctx.params.name!;
        const definition = definitionOf(host, name);
        const { format } = ctx.query(MachineExportQuerySchema);
        if (format === 'json') return json(machineExportView(name, definition));
        const body = format === 'mermaid' ? toMermaid(definition) : toScxml(name, definition);
        ctx.ex.send(200, { 'content-type': format === 'mermaid' ? MERMAID_CONTENT_TYPE : SCXML_CONTENT_TYPE }, body);
        return undefined;
      },
    },
  ];
}
