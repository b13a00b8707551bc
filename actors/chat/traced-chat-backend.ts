import type { Tracer } from '@opentelemetry/api';
import type { ChatBackend, ChatBackendEvent, ChatBackendRequest } from '../../backends/chat-backend.js';
import { startUpstreamSpan } from '../tracing/upstream-span.js';

/**
 * A chat backend whose every call is a client span with the GenAI semantic conventions
 * (`gen_ai.operation.name`, `gen_ai.request.model`, usage, response id, finish reasons), a child of
 * the request's server span, whose W3C `traceparent` goes to the upstream. Wrapped only while
 * tracing is on: with it off the backend is used as it is.
 */
export function traceChatBackend(backend: ChatBackend, tracer: Tracer, requestModel: string | null): ChatBackend {
  return {
    name: backend.name,
    latency: backend.latency,
    stream: (request) => tracedEvents(backend, tracer, request, requestModel ?? request.model),
  };
}

async function* tracedEvents(
  backend: ChatBackend,
  tracer: Tracer,
  request: ChatBackendRequest,
  model: string,
): AsyncGenerator<ChatBackendEvent, void, undefined> {
  const { span, traceHeaders, fail } = startUpstreamSpan(tracer, {
    operation: 'chat',
    backend: backend.name,
    model,
    attributes: { 'gen_ai.request.max_tokens': request.maxTokens },
  });
  try {
    for await (const event of backend.stream({ ...request, traceHeaders })) {
      if (event.type === 'done') {
        span.setAttributes({
          'gen_ai.usage.input_tokens': event.usage.promptTokens,
          'gen_ai.usage.output_tokens': event.usage.completionTokens,
          'gen_ai.response.finish_reasons': [event.finishReason],
        });
        if (event.responseId) span.setAttribute('gen_ai.response.id', event.responseId);
      }
      yield event;
    }
  } catch (err) {
    fail(err);
    throw err;
  } finally {
    span.end();
  }
}
