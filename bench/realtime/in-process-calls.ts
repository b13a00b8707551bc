// Realtime calls in this process, for the per-frame and per-turn benchmarks: an account with ample
// credit, an actor host on `store`, and a CallRuntime on the instant sim backends (the sim voice on
// `pool`'s threads when one is given, else in the loop).
import { AccountServices } from '../../actors/accounts/account-services.js';
import { CallRuntime } from '../../actors/realtime/call-runtime.js';
import { createSimChatBackend } from '../../backends/sim/sim-chat-backend.js';
import { createSimSpeechBackend } from '../../backends/sim/sim-speech.js';
import { createSimTranscriptionBackend } from '../../backends/sim/sim-transcription.js';
import type { SimVoicePool } from '../../backends/sim/sim-voice-pool.js';
import { systemClock } from '../../runtime/clock.js';
import { ActorHost } from '../../runtime/host/actor-host.js';
import { createLogger, type Logger } from '../../runtime/logger.js';
import type { Store } from '../../runtime/store/store.js';

/** What a benchmark needs to open calls and to shut them down. */
export interface InProcessCalls {
  calls: CallRuntime;
  holder: { accountId: string; tokenId: string };
  logger: Logger;
  close: () => Promise<void>;
}

/** Opens the account, host and runtime; `close` stops the host and the account services (not `store`, nor `pool`). */
export async function inProcessCalls(
  store: Store,
  pool: SimVoicePool | null = null,
  history = false,
): Promise<InProcessCalls> {
  const logger = createLogger('silent');
  const services = new AccountServices(store, systemClock, { sessionTtlMs: 60_000, usageFlushMs: 0 });
  const created = await services.createAccount({
    email: 'bench-calls@example.com',
    password: null,
    creditMicros: 1e12,
    tokenLabel: 'bench',
  });
  // The server keeps a step history when its admin API is on (the bench's servers do): `history` mirrors it.
  const host = new ActorHost(store, systemClock, logger, { history });
  const calls = new CallRuntime({
    host,
    billing: services.ledger,
    chat: createSimChatBackend({ ttftMs: 0, tokensPerSecond: 0 }),
    speech: createSimSpeechBackend({ pool }),
    transcription: createSimTranscriptionBackend({ pool }),
    clock: systemClock,
    logger,
    holdStepMicros: 1_000_000,
    endGraceMs: 3000,
  });
  host.register(calls.hosted());
  return {
    calls,
    holder: { accountId: created!.account.id, tokenId: created!.token!.record.id },
    logger,
    close: async () => {
      await host.close();
      await services.close();
    },
  };
}
