import { SpanKind, trace, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';

/**
 * Spans for durable actors' committed steps while tracing is on (session runs, video jobs, uploads,
 * calls): one per commit, from the transition to its durable write, each linked to the request
 * that spawned the actor. Steps run long after that request answered, so they are roots of their
 * own traces with a link, not children. Kept in memory: after a restart, steps carry no link.
 */
export class StepSpans {
  private readonly startedBy = new Map<string, SpanContext>();

  constructor(private readonly tracer: Tracer) {}

  /** Notes the request span active now (if any) as the one that started `actorId`. */
  noteStart(actorId: string): void {
    const span = trace.getActiveSpan();
    if (span) this.startedBy.set(actorId, span.spanContext());
  }

  /** Starts the span of one step of `actorId`; the caller ends it once the step is durable. */
  step(actorId: string, machine: string, cause: string | null, state: unknown): Span {
    const started = this.startedBy.get(actorId);
    return this.tracer.startSpan(`actor.step ${machine}`, {
      kind: SpanKind.INTERNAL,
      root: true,
      links: started ? [{ context: started }] : [],
      attributes: {
        'svc.actor.id': actorId,
        'svc.actor.machine': machine,
        'svc.actor.cause': cause ?? '',
        'svc.actor.state': JSON.stringify(state).slice(0, 200),
      },
    });
  }

  /** The actor ended: its link is no longer needed. */
  forget(actorId: string): void {
    this.startedBy.delete(actorId);
  }
}
