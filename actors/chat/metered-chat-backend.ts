import type { ChatBackend, ChatBackendEvent, ChatBackendRequest } from '../../backends/chat-backend.js';

/** Where a metered backend reports each call: its backend name and whether it failed. */
export type UpstreamMeter = (backend: string, kind: string, failed: boolean) => void;

/**
 * A chat backend that reports every call and its failure to the operator metrics. A call that
 * the client aborted is not the backend's failure and is counted as a call only.
 */
export function meterChatBackend(backend: ChatBackend, meter: UpstreamMeter): ChatBackend {
  return {
    name: backend.name,
    latency: backend.latency,
    async *stream(request: ChatBackendRequest): AsyncIterable<ChatBackendEvent> {
      let failed = false;
      try {
        yield* backend.stream(request);
      } catch (err) {
        failed = !request.signal.aborted;
        throw err;
      } finally {
        meter(backend.name, 'chat', failed);
      }
    },
  };
}
