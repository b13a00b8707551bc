import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { RequestScope } from '../runtime/request-scope.js';
import type { UwsExchange } from './uws-exchange.js';

/**
 * Runs `answer` for `ex` inside a server span (tracing on only): the client's W3C `traceparent`
 * continued, named by the route template once matched, with the status, request id, client and
 * account id; never a header, query or body (where secrets travel).
 */
export function withServerSpan(
  tracer: Tracer,
  ex: UwsExchange,
  scope: RequestScope,
  answer: () => Promise<string | null>,
): Promise<string | null> {
  const parent = propagation.extract(ROOT_CONTEXT, ex.headers);
  const span = tracer.startSpan(
    ex.method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': ex.method,
        'url.path': ex.path,
        'client.address': scope.client,
        'svc.request_id': ex.requestId,
      },
    },
    parent,
  );
  scope.traceId = span.spanContext().traceId;
  return context.with(trace.setSpan(parent, span), answer).then((route) => {
    if (route) {
      span.updateName(`${ex.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    span.setAttribute('http.response.status_code', ex.status);
    if (scope.accountId) span.setAttribute('svc.account_id', scope.accountId);
    if (ex.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    return route;
  });
}
