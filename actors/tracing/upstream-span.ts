import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

/** What a backend call's client span says before the call: the GenAI operation, model and provider. */
export interface UpstreamCall {
  /** `gen_ai.operation.name` (`chat`, `generate_content`, …). */
  operation: string;
  /** The backend's name (`sim`, `openai-compatible`, a local engine): the provider it stands for. */
  backend: string;
  /** `gen_ai.request.model`: the upstream's model when there is one, else the backend's. */
  model: string;
  attributes?: Attributes;
}

/** A started client span and the W3C headers that carry it to the upstream. */
export interface UpstreamSpan {
  readonly span: Span;
  readonly traceHeaders: Record<string, string>;
  /** Marks the call failed (error status and `error.type`); the caller still ends the span. */
  readonly fail: (err: unknown) => void;
}

/** `gen_ai.provider.name` for a backend: `openai` for an OpenAI-compatible upstream, `svc.<name>` for ours. */
function providerOf(backend: string): string {
  return backend === 'openai-compatible' ? 'openai' : `svc.${backend}`;
}

/**
 * Starts the client span of one backend call with the GenAI semantic conventions, a child of the
 * span active now (the request's server span), and the `traceparent` to send with it so the
 * provider's trace joins ours. Used only while tracing is on.
 */
export function startUpstreamSpan(tracer: Tracer, call: UpstreamCall): UpstreamSpan {
  const parent = context.active();
  const span = tracer.startSpan(
    `${call.operation} ${call.model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': call.operation,
        'gen_ai.provider.name': providerOf(call.backend),
        'gen_ai.request.model': call.model,
        ...call.attributes,
      },
    },
    parent,
  );
  const traceHeaders: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), traceHeaders);
  return {
    span,
    traceHeaders,
    fail: (err) => {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', err instanceof Error ? err.name : 'unknown');
    },
  };
}

/** Runs one request/answer backend call inside its client span; `describe` adds what the answer says. */
export async function inUpstreamSpan<T>(
  tracer: Tracer,
  call: UpstreamCall,
  run: (traceHeaders: Record<string, string>) => Promise<T>,
  describe: (answer: T) => Attributes,
): Promise<T> {
  const upstream = startUpstreamSpan(tracer, call);
  try {
    const answer = await run(upstream.traceHeaders);
    upstream.span.setAttributes(describe(answer));
    return answer;
  } catch (err) {
    upstream.fail(err);
    throw err;
  } finally {
    upstream.span.end();
  }
}
