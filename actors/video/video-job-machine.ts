import { assign, emit, fromPromise, setup } from 'xstate';
import type { RemoteVideoJob, VideoSpec } from '../../backends/video-generation.js';
import { effectOutput } from '../effect-results.js';
import type {
  FinishInput,
  JobError,
  PollOutput,
  StoreInput,
  SubmitOutput,
  VideoJobContext,
  VideoJobEmitted,
  VideoJobEvent,
  VideoJobInput,
} from './video-job-types.js';

/** The name video jobs are registered under in the actor host. */
export const VIDEO_JOB_MACHINE = 'video-job';

/** Retryable poll failures in a row before a job fails. */
export const MAX_POLL_FAILURES = 5;

/** Submit attempts a backend may turn away as busy before the job fails (our job id is the Idempotency-Key, so a retry never makes a second job). */
export const MAX_SUBMIT_ATTEMPTS = 5;

/** The longest wait between two submit attempts. */
const MAX_SUBMIT_BACKOFF_MS = 30_000;

const notProvided = (name: string) => () => Promise.reject(new Error(`${name} must be provided by the runtime`));

/** The code and message of whatever an effect threw (a backend error carries its `kind`). */
function errorOf(error: unknown, fallback: string): JobError {
  const kind = (error as { kind?: unknown } | null)?.kind;
  const message = error instanceof Error ? error.message : fallback;
  return { code: typeof kind === 'string' ? kind : 'internal_error', message: message.slice(0, 500) };
}

/**
 * A video job (spec §2.7, §3): queued → running (submitting, then polling with progress) →
 * storing → settling → completed, or failed, or cancelled. It runs whether or not anyone polls:
 * the poll deadline is data in `context.deadlines`, armed by the host on its clock and re-armed
 * after a restart, and every step is an idempotent effect of the runtime, so a step cut by a
 * crash runs again. The charge is made once, in `settling`, by reference to the job (a repeated
 * settle charges nothing); failing and cancelling let the hold go without a charge. A job can be
 * cancelled while queued or running; once storing it completes.
 */
export const videoJobMachine = setup({
  types: {
    context: {} as VideoJobContext,
    events: {} as VideoJobEvent,
    input: {} as VideoJobInput,
    emitted: {} as VideoJobEmitted,
  },
  actors: {
    submit: fromPromise<SubmitOutput, { jobId: string; spec: VideoSpec }>(notProvided('submit')),
    poll: fromPromise<PollOutput, { remote: RemoteVideoJob; spec: VideoSpec }>(notProvided('poll')),
    store: fromPromise<{ bytes: number; contentType: string; at: number }, StoreInput>(notProvided('store')),
    finish: fromPromise<{ priceMicros: number; at: number }, FinishInput>(notProvided('finish')),
  },
  // Guards and actions on a step's result take it as params (`effectOutput`): typed from `actors` above.
  guards: {
    isPollTimer: ({ event }) => event.type === 'TIMER' && event.name === 'poll',
    isSubmitTimer: ({ event }) => event.type === 'TIMER' && event.name === 'submit',
    submitted: (_, output: SubmitOutput) => 'remote' in output,
    submitRetryable: ({ context }) => (context.submitFailures ?? 0) + 1 < MAX_SUBMIT_ATTEMPTS,
    pollCompleted: (_, output: PollOutput) => output.state === 'completed',
    pollFailed: (_, output: PollOutput) => output.state === 'failed',
    pollRetryable: ({ context }, output: PollOutput) =>
      output.state === 'retry' && context.pollFailures + 1 < MAX_POLL_FAILURES,
    pollGaveUp: (_, output: PollOutput) => output.state === 'retry',
    progressChanged: ({ context }, output: PollOutput) =>
      output.state === 'running' && output.progress !== context.progress,
  },
  actions: {
    recordPoll: assign(({ context }, output: PollOutput) => {
      const backoff = output.state === 'retry' ? 2 ** Math.min(context.pollFailures, 5) : 1;
      return {
        progress:
          output.state === 'running' ? Math.max(context.progress, Math.min(99, output.progress)) : context.progress,
        pollFailures: output.state === 'retry' ? context.pollFailures + 1 : 0,
        deadlines: { poll: output.at + context.pollMs * backoff },
        updatedAt: output.at,
      };
    }),
    // The two below follow a `submitted` guard that failed: the output is a refusal.
    recordSubmitRetry: assign(({ context }, output: SubmitOutput) => {
      if ('remote' in output) return {};
      const failures = (context.submitFailures ?? 0) + 1;
      const wait = Math.min(
        MAX_SUBMIT_BACKOFF_MS,
        Math.max(output.retryAfterMs ?? 0, context.pollMs * 2 ** (failures - 1)),
      );
      return { submitFailures: failures, deadlines: { submit: output.at + wait }, updatedAt: output.at };
    }),
    recordSubmitGaveUp: assign((_, output: SubmitOutput) => {
      if ('remote' in output) return {};
      return {
        error: {
          code: 'upstream_unavailable',
          message: `the backend turned the job away ${MAX_SUBMIT_ATTEMPTS} times: ${output.retry}`.slice(0, 500),
        },
        updatedAt: output.at,
      };
    }),
    emitProgress: emit(({ context }) => ({ type: 'progress', progress: context.progress })),
    clearDeadlines: assign({ deadlines: () => ({}) }),
    recordPollFailure: assign((_, output: PollOutput) => {
      const error =
        output.state === 'failed'
          ? { code: output.code, message: output.message }
          : {
              code: 'upstream_unavailable',
              message: `the backend did not answer ${MAX_POLL_FAILURES} polls in a row: ${output.state === 'retry' ? output.message : ''}`,
            };
      return { error: { code: error.code, message: error.message.slice(0, 500) }, updatedAt: output.at };
    }),
  },
}).createMachine({
  id: 'videoJob',
  context: ({ input }) => ({
    ...input,
    progress: 0,
    remote: null,
    startedAt: null,
    finishedAt: null,
    priceMicros: 0,
    output: null,
    error: null,
    cancelReason: null,
    pollFailures: 0,
    deadlines: {},
    updatedAt: input.at,
  }),
  initial: 'queued',
  states: {
    queued: {
      entry: emit({ type: 'queued' }),
      on: {
        START: { target: 'submitting', actions: assign(({ event }) => ({ startedAt: event.at, updatedAt: event.at })) },
        CANCEL: {
          target: 'cancelling',
          actions: assign(({ event }) => ({ cancelReason: event.reason, updatedAt: event.at })),
        },
      },
    },
    submitting: {
      entry: emit({ type: 'started' }),
      exit: 'clearDeadlines',
      initial: 'calling',
      on: {
        CANCEL: {
          target: 'cancelling',
          actions: assign(({ event }) => ({ cancelReason: event.reason, updatedAt: event.at })),
        },
      },
      states: {
        calling: {
          invoke: {
            src: 'submit',
            input: ({ context }) => ({ jobId: context.id, spec: context.spec }),
            onDone: [
              {
                guard: { type: 'submitted', params: effectOutput },
                target: '#videoJob.running',
                actions: assign(({ event }) =>
                  'remote' in event.output ? { remote: event.output.remote, updatedAt: event.output.at } : {},
                ),
              },
              {
                guard: 'submitRetryable',
                target: 'backoff',
                actions: { type: 'recordSubmitRetry', params: effectOutput },
              },
              { target: '#videoJob.failing', actions: { type: 'recordSubmitGaveUp', params: effectOutput } },
            ],
            onError: {
              target: '#videoJob.failing',
              actions: assign(({ event }) => ({ error: errorOf(event.error, 'the backend refused the job') })),
            },
          },
        },
        // The backend was busy or down: wait (a deadline in context, so a restart keeps it), then ask again.
        backoff: { on: { TIMER: { guard: 'isSubmitTimer', target: 'calling' } } },
      },
    },
    running: {
      initial: 'polling',
      exit: 'clearDeadlines',
      on: {
        CANCEL: {
          target: 'cancelling',
          actions: assign(({ event }) => ({ cancelReason: event.reason, updatedAt: event.at })),
        },
      },
      states: {
        waiting: { on: { TIMER: { guard: 'isPollTimer', target: 'polling' } } },
        polling: {
          invoke: {
            src: 'poll',
            input: ({ context }) => ({ remote: context.remote!, spec: context.spec }),
            onDone: [
              {
                guard: { type: 'pollCompleted', params: effectOutput },
                target: '#videoJob.storing',
                actions: assign(({ context, event }) => ({
                  progress: 100,
                  costMicros: event.output.state === 'completed' ? event.output.costMicros : context.costMicros,
                  updatedAt: event.output.at,
                })),
              },
              {
                guard: { type: 'pollFailed', params: effectOutput },
                target: '#videoJob.failing',
                actions: { type: 'recordPollFailure', params: effectOutput },
              },
              {
                guard: { type: 'pollRetryable', params: effectOutput },
                target: 'waiting',
                actions: { type: 'recordPoll', params: effectOutput },
              },
              {
                guard: { type: 'pollGaveUp', params: effectOutput },
                target: '#videoJob.failing',
                actions: { type: 'recordPollFailure', params: effectOutput },
              },
              {
                guard: { type: 'progressChanged', params: effectOutput },
                target: 'waiting',
                actions: [{ type: 'recordPoll', params: effectOutput }, 'emitProgress'],
              },
              { target: 'waiting', actions: { type: 'recordPoll', params: effectOutput } },
            ],
            onError: {
              target: '#videoJob.failing',
              actions: assign(({ event }) => ({ error: errorOf(event.error, 'polling the backend failed') })),
            },
          },
        },
      },
    },
    storing: {
      invoke: {
        src: 'store',
        input: ({ context }): StoreInput => ({
          jobId: context.id,
          mediaId: context.mediaId,
          accountId: context.accountId,
          remote: context.remote!,
          spec: context.spec,
        }),
        onDone: {
          target: 'settling',
          actions: assign(({ event }) => ({
            output: { bytes: event.output.bytes, contentType: event.output.contentType },
            updatedAt: event.output.at,
          })),
        },
        onError: {
          target: 'failing',
          actions: assign(({ event }) => ({ error: errorOf(event.error, 'storing the clip failed') })),
        },
      },
    },
    settling: {
      invoke: {
        src: 'finish',
        input: ({ context }): FinishInput => finishInput(context, 'completed'),
        onDone: {
          target: 'completed',
          actions: assign(({ event }) => ({
            priceMicros: event.output.priceMicros,
            finishedAt: event.output.at,
            updatedAt: event.output.at,
          })),
        },
        onError: {
          target: 'failed',
          actions: assign(({ event }) => ({ error: errorOf(event.error, 'charging the job failed') })),
        },
      },
    },
    failing: {
      invoke: {
        src: 'finish',
        input: ({ context }): FinishInput => finishInput(context, 'failed'),
        onDone: {
          target: 'failed',
          actions: assign(({ event }) => ({ finishedAt: event.output.at, updatedAt: event.output.at })),
        },
        onError: { target: 'failed' },
      },
    },
    cancelling: {
      invoke: {
        src: 'finish',
        input: ({ context }): FinishInput => finishInput(context, 'cancelled'),
        onDone: {
          target: 'cancelled',
          actions: assign(({ event }) => ({ finishedAt: event.output.at, updatedAt: event.output.at })),
        },
        onError: { target: 'cancelled' },
      },
    },
    completed: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'completed',
        mediaId: context.mediaId,
        priceMicros: context.priceMicros,
        costMicros: context.costMicros,
        bytes: context.output?.bytes ?? 0,
      })),
    },
    failed: {
      type: 'final',
      entry: emit(({ context }) => ({
        type: 'failed',
        code: context.error?.code ?? 'internal_error',
        message: context.error?.message ?? 'the job failed',
      })),
    },
    cancelled: { type: 'final', entry: emit(({ context }) => ({ type: 'cancelled', reason: context.cancelReason })) },
  },
});

function finishInput(context: VideoJobContext, outcome: FinishInput['outcome']): FinishInput {
  return {
    jobId: context.id,
    accountId: context.accountId,
    tokenId: context.tokenId,
    outcome,
    model: context.model,
    spec: context.spec,
    costMicros: context.costMicros,
    holdMicros: context.holdMicros,
    remote: context.remote,
  };
}
