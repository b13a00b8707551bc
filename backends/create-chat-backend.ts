import { ConfigError, type Config } from '../runtime/config.js';
import type { ChatBackend } from './chat-backend.js';
import { createOpenAICompatibleChatBackend } from './openai-compatible/openai-compatible-chat-backend.js';
import { createSimChatBackend } from './sim/sim-chat-backend.js';

/** The chat backend `SVC_BACKEND` names, set up from the rest of the configuration. */
export function createChatBackend(config: Config): ChatBackend {
  switch (config.SVC_BACKEND) {
    case 'sim':
      return createSimChatBackend({ ttftMs: config.SVC_SIM_TTFT_MS, tokensPerSecond: config.SVC_SIM_TOKENS_PER_S });
    case 'openai-compatible': {
      // loadConfig already refuses these missing; a Config built by hand gets the same message.
      if (!config.SVC_UPSTREAM_BASE_URL)
        throw new ConfigError('SVC_UPSTREAM_BASE_URL: required when SVC_BACKEND is openai-compatible');
      if (!config.SVC_UPSTREAM_MODEL)
        throw new ConfigError('SVC_UPSTREAM_MODEL: required when SVC_BACKEND is openai-compatible');
      return createOpenAICompatibleChatBackend({
        baseUrl: config.SVC_UPSTREAM_BASE_URL,
        apiKey: config.SVC_UPSTREAM_API_KEY ?? null,
        model: config.SVC_UPSTREAM_MODEL,
        concurrency: config.SVC_UPSTREAM_CONCURRENCY,
        firstByteTimeoutMs: config.SVC_UPSTREAM_TIMEOUT_MS,
        idleTimeoutMs: config.SVC_UPSTREAM_IDLE_TIMEOUT_MS,
      });
    }
  }
}
