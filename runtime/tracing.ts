import type { Tracer } from '@opentelemetry/api';

/**
 * OpenTelemetry tracing while it is on (`OTEL_EXPORTER_OTLP_ENDPOINT` set): the tracer the server
 * and upstream spans come from, and the exporter's flush. Off, there is no Tracing at all and the
 * request path takes no tracing branch (runtime/trace-export.ts, loaded only when on, builds it).
 */
export interface Tracing {
  readonly tracer: Tracer;
  /** Exports every ended span now. */
  flush(): Promise<void>;
  /** Exports what is left and stops. */
  shutdown(): Promise<void>;
}
