import { SpanKind, trace, TraceFlags, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';

/** The request span that started an actor, as its record keeps it: `traceId-spanId-flags` (hex, W3C widths). */
export type StartedBy = string;

const STARTED_BY = /^([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a record's `startedBy` names; undefined when it is absent or not well formed. */
function contextOf(startedBy: StartedBy | undefined): SpanContext | undefined {
  const match = startedBy ? STARTED_BY.exec(startedBy) : null;
  if (!match) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, traceFlags: parseInt(match[3]!, 16), isRemote: true };
}

/**
 * Spans for durable actors' committed steps while tracing is on (session runs, video jobs, uploads,
 * calls): one per commit, from the transition to its durable write, each linked to the request
 * that spawned the actor. Steps run long after that request answered, so they are roots of their
 * own traces with a link, not children. The link is kept in the actor's record (`startedBy`), so a
 * step run after a restart (kill -9 included) still links to the request.
 */
export class StepSpans {
  constructor(private readonly tracer: Tracer) {}

  /** The request span active now (if any), to keep in a new actor's record as the one that started it. */
  startedBy(): StartedBy | undefined {
    const span = trace.getActiveSpan();
    if (!span) return undefined;
    const { traceId, spanId, traceFlags } = span.spanContext();
    return `${traceId}-${spanId}-${(traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0')}`;
  }

  /** Starts the span of one step of `actorId`; the caller ends it once the step is durable. */
  step(actor: { id: string; machine: string; startedBy?: StartedBy }, cause: string | null, state: unknown): Span {
    const started = contextOf(actor.startedBy);
    return this.tracer.startSpan(`actor.step ${actor.machine}`, {
      kind: SpanKind.INTERNAL,
      root: true,
      links: started ? [{ context: started }] : [],
      attributes: {
        'svc.actor.id': actor.id,
        'svc.actor.machine': actor.machine,
        'svc.actor.cause': cause ?? '',
        'svc.actor.state': JSON.stringify(state).slice(0, 200),
      },
    });
  }
}
