import { createOpenAICompatibleChatBackend } from '../backends/openai-compatible/openai-compatible-chat-backend.js';
import { createSimChatBackend } from '../backends/sim/sim-chat-backend.js';
import { runBackendContract } from './contracts/backend.js';
import { echoModel, startFakeUpstream } from './fake-upstream.js';

// A small pace for the sim, so that "mid-stream" exists for the abort case.
runBackendContract('sim', () =>
  Promise.resolve({
    backend: createSimChatBackend({ ttftMs: 0, tokensPerSecond: 2000 }),
    close: () => Promise.resolve(),
  }),
);

runBackendContract('openai-compatible against an echo model', async () => {
  const upstream = await startFakeUpstream(echoModel);
  const backend = createOpenAICompatibleChatBackend({
    baseUrl: upstream.url,
    model: 'echo-1',
    firstByteTimeoutMs: 5000,
    idleTimeoutMs: 5000,
  });
  return { backend, close: () => upstream.close() };
});
