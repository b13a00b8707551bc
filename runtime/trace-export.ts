import { AsyncLocalStorage } from 'node:async_hooks';
import { context, propagation, ROOT_CONTEXT, trace, type Context, type ContextManager } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Config } from './config.js';
import type { Tracing } from './tracing.js';

// The SDK stays on the 2.x line (exporters 0.2xx): OTel JS 3.x / 0.300+ needs Node 22.15 and the
// uWS build pins Node 20.

/** The active OpenTelemetry context through async calls, over AsyncLocalStorage. */
class AsyncContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.apply(thisArg, args));
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => this.with(ctx, () => fn(...args))) as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.#storage.disable();
    return this;
  }
}

/**
 * Turns tracing on: spans batched to `{OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces` over OTLP/HTTP,
 * protobuf unless `OTEL_EXPORTER_OTLP_PROTOCOL` is `http/json`, as service `OTEL_SERVICE_NAME`;
 * W3C trace context read from clients and sent upstream. Loaded only when the endpoint is set.
 */
export function startTracing(config: Config): Tracing {
  const url = `${config.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/+$/, '')}/v1/traces`;
  const exporter =
    config.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json'
      ? new JsonTraceExporter({ url })
      : new ProtobufTraceExporter({ url });
  const processor = new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: config.OTEL_SERVICE_NAME }),
    spanProcessors: [processor],
  });
  context.setGlobalContextManager(new AsyncContextManager());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    tracer: provider.getTracer('svc'),
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
