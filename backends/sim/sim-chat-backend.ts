import type { ChatBackend, ChatBackendEvent, ChatBackendRequest } from '../chat-backend.js';
import { simPacer } from './sim-pacer.js';
import { SimChatStream } from './sim-chat-stream.js';

/** Latency model of the sim: time to first token and tokens per second (0 = no delay). */
export interface SimLatency {
  ttftMs: number;
  tokensPerSecond: number;
}

/**
 * The embedded default backend: deterministic text (or a tool call) derived from the input, with
 * a latency model so load tests look like a provider. Usage counts exactly what it produced. Every
 * stream waits on one shared pacer, so thousands of slow streams cost a few hundred timers.
 */
export function createSimChatBackend(latency: SimLatency): ChatBackend {
  const nominal = { ttftMs: latency.ttftMs, tokensPerSecond: latency.tokensPerSecond };
  return {
    name: 'sim',
    latency: nominal,
    stream(request: ChatBackendRequest): AsyncIterable<ChatBackendEvent> {
      return new SimChatStream(request, nominal, simPacer);
    },
  };
}
