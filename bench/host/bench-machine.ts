import { assign, emit, enqueueActions, setup } from 'xstate';

/** The name the bench machine is registered under in a host. */
export const BENCH_MACHINE = 'bench-counter';

/** Payload of every event the bench machine emits (about 90 bytes encoded, like a small session event). */
export const EVENT_TEXT = 'a small payload, about the size of a phase or live_input event';

/** Events the bench machine takes. */
export type BenchEvent = { type: 'INC' } | { type: 'BURST'; n: number };

/**
 * A counter that stays active forever: `INC` adds one and emits one `counted` event, `BURST`
 * emits `n` `tick` events in one transition. With the host, every transition is one persisted
 * snapshot and as many log entries as it emitted.
 */
export const benchMachine = setup({
  types: {
    context: {} as { count: number },
    events: {} as BenchEvent,
    input: {} as { start: number },
    emitted: {} as { type: string; [key: string]: unknown },
  },
}).createMachine({
  id: 'bench',
  context: ({ input }) => ({ count: input.start }),
  initial: 'counting',
  states: {
    counting: {
      on: {
        INC: {
          actions: [
            assign({ count: ({ context }) => context.count + 1 }),
            emit(({ context }) => ({ type: 'counted', count: context.count, text: EVENT_TEXT })),
          ],
        },
        BURST: {
          actions: [
            assign({ count: ({ context, event }) => context.count + event.n }),
            enqueueActions(({ enqueue, event, context }) => {
              for (let i = 0; i < event.n; i++)
                enqueue.emit({ type: 'tick', count: context.count + i, text: EVENT_TEXT });
            }),
          ],
        },
      },
    },
  },
});
