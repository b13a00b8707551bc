import { assign, fromPromise, setup } from 'xstate';
import type { ResponseCreateRequest } from '../../protocols/responses.js';

/** The name background responses are registered under in the actor host. */
export const BACKGROUND_RESPONSE_MACHINE = 'response-background';

/** What a background response is started with: everything its run needs, after a restart too. */
export interface BackgroundInput {
  id: string;
  accountId: string;
  tokenId: string | null;
  model: string;
  createdAt: number;
  request: ResponseCreateRequest;
}

/** What settling a cancel needs: whose response, and the reason. */
export interface CancelInput extends BackgroundInput {
  reason: string;
}

/** How a run ended, as the machine keeps it (the response itself is in the response store). */
export interface BackgroundOutcome {
  status: string;
  priceMicros: number;
}

/** A background response's state between events. */
export interface BackgroundContext extends BackgroundInput {
  outcome: BackgroundOutcome | null;
  cancelReason: string | null;
}

/** What a background response takes: a cancel (POST /v1/responses/{id}/cancel). */
export type BackgroundEvent = { type: 'CANCEL'; reason: string };

/** What the response was started with, out of its context. */
function inputOf(context: BackgroundContext): BackgroundInput {
  const { id, accountId, tokenId, model, createdAt, request } = context;
  return { id, accountId, tokenId, model, createdAt, request };
}

/**
 * A background response (`background: true`) as a durable actor: it runs without the client that
 * created it, and because its snapshot is persisted in `running`, a restart after kill -9 runs it
 * again; its charge settles by reference (`response:<id>`), so the re-run is charged once. CANCEL
 * leaves `running`, which stops the run (billing what it processed, as a disconnect does on chat),
 * and `cancelling` stores the cancelled response before the machine ends: a kill after the cancel
 * was recorded finishes that step after restart instead of leaving the response `in_progress`.
 */
export const backgroundResponseMachine = setup({
  types: {
    context: {} as BackgroundContext,
    input: {} as BackgroundInput,
    events: {} as BackgroundEvent,
  },
  actors: {
    runResponse: fromPromise<BackgroundOutcome, BackgroundInput>(() => {
      throw new Error('runResponse must be provided by the runtime');
    }),
    settleCancel: fromPromise<void, CancelInput>(() => {
      throw new Error('settleCancel must be provided by the runtime');
    }),
  },
}).createMachine({
  id: 'response-background',
  context: ({ input }) => ({ ...input, outcome: null, cancelReason: null }),
  initial: 'running',
  states: {
    running: {
      invoke: {
        src: 'runResponse',
        input: ({ context }) => inputOf(context),
        onDone: { target: 'finished', actions: assign({ outcome: ({ event }) => event.output }) },
        onError: { target: 'finished', actions: assign({ outcome: () => ({ status: 'failed', priceMicros: 0 }) }) },
      },
      on: {
        CANCEL: { target: 'cancelling', actions: assign({ cancelReason: ({ event }) => event.reason }) },
      },
    },
    cancelling: {
      invoke: {
        src: 'settleCancel',
        input: ({ context }) => ({ ...inputOf(context), reason: context.cancelReason ?? 'cancelled' }),
        onDone: { target: 'cancelled' },
        onError: { target: 'cancelled' },
      },
    },
    finished: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
