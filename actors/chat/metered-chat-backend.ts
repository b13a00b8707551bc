import type { ChatBackend, ChatBackendEvent, ChatBackendRequest } from '../../backends/chat-backend.js';

/** Where a metered backend reports each call: its backend name and whether it failed. */
export type UpstreamMeter = (backend: string, kind: string, failed: boolean) => void;

/**
 * A chat backend that reports every call and its failure to the operator metrics. A call that
 * the client aborted is not the backend's failure and is counted as a call only. It forwards the
 * backend's iterator rather than wrapping it in a generator: every streamed chunk passes here, and
 * a `yield*` layer would add its own promise hops to each one.
 */
export function meterChatBackend(backend: ChatBackend, meter: UpstreamMeter): ChatBackend {
  return {
    name: backend.name,
    latency: backend.latency,
    stream(request: ChatBackendRequest): AsyncIterable<ChatBackendEvent> {
      return {
        [Symbol.asyncIterator]() {
          const inner = backend.stream(request)[Symbol.asyncIterator]();
          let reported = false;
          const report = (failed: boolean) => {
            if (reported) return;
            reported = true;
            meter(backend.name, 'chat', failed);
          };
          return {
            next: () =>
              inner.next().then(
                (result) => {
                  if (result.done) report(false);
                  return result;
                },
                (err: unknown) => {
                  report(!request.signal.aborted);
                  throw err;
                },
              ),
            // The reader stopped early (a cancel, a client gone): one call, not a failure.
            return: (value?: unknown) => {
              report(false);
              return inner.return ? inner.return(value) : Promise.resolve({ done: true as const, value: undefined });
            },
          };
        },
      };
    },
  };
}
