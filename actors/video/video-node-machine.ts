import { assign, setup, transition } from 'xstate';
import type { JobError } from './video-job-types.js';

/** The name the node machine is documented (and inspected) under. */
export const VIDEO_NODE_MACHINE = 'video-node';

/** A node's life beyond its content: approval, the job that renders it, and what came of it. */
export interface VideoNodeContext {
  note: string | null;
  approvedAt: number | null;
  jobId: string | null;
  /** The rendered clip (the job's media), once rendered. */
  mediaId: string | null;
  error: JobError | null;
  updatedAt: number;
}

/** What happens to a node: its content changes, it is approved, a job is attached, the job ends. */
export type VideoNodeEvent =
  | { type: 'UPDATE'; at: number }
  | { type: 'APPROVE'; at: number; note: string | null; dependenciesApproved: boolean }
  | { type: 'ATTACH'; at: number; jobId: string }
  | {
      type: 'JOB_DONE';
      at: number;
      outcome: 'completed' | 'failed' | 'cancelled';
      mediaId: string | null;
      error: JobError | null;
    };

/** A node's state names. */
export type VideoNodeState = 'draft' | 'approved' | 'rendering' | 'rendered' | 'failed';

/**
 * One node of a video project (a scene or a shot): draft → approved (only once every node it
 * depends on is approved) → rendering (a video job attached; only approved nodes render) →
 * rendered | failed, following its job. Changing a node's content sends it back to draft (its
 * approval was for the old content); a cancelled job leaves it approved; a failed or rendered
 * node can take another job. Small and pure: nodes live inside their project's record and move
 * by {@link nextNodeState}.
 */
export const videoNodeMachine = setup({
  types: { context: {} as VideoNodeContext, events: {} as VideoNodeEvent, input: {} as { at: number } },
  guards: {
    dependenciesApproved: ({ event }) => event.type === 'APPROVE' && event.dependenciesApproved,
    jobCompleted: ({ event }) => event.type === 'JOB_DONE' && event.outcome === 'completed',
    jobFailed: ({ event }) => event.type === 'JOB_DONE' && event.outcome === 'failed',
  },
  actions: {
    touch: assign(({ event }) => ({ updatedAt: event.at })),
    backToDraft: assign(({ event }) => ({
      note: null,
      approvedAt: null,
      jobId: null,
      mediaId: null,
      error: null,
      updatedAt: event.at,
    })),
    attach: assign(({ event }) =>
      event.type === 'ATTACH' ? { jobId: event.jobId, mediaId: null, error: null, updatedAt: event.at } : {},
    ),
  },
}).createMachine({
  id: 'videoNode',
  context: ({ input }) => ({
    note: null,
    approvedAt: null,
    jobId: null,
    mediaId: null,
    error: null,
    updatedAt: input.at,
  }),
  initial: 'draft',
  states: {
    draft: {
      on: {
        UPDATE: { actions: 'touch' },
        APPROVE: {
          guard: 'dependenciesApproved',
          target: 'approved',
          actions: assign(({ event }) =>
            event.type === 'APPROVE' ? { note: event.note, approvedAt: event.at, updatedAt: event.at } : {},
          ),
        },
      },
    },
    approved: {
      on: {
        UPDATE: { target: 'draft', actions: 'backToDraft' },
        APPROVE: {
          actions: assign(({ event }) =>
            event.type === 'APPROVE' ? { note: event.note ?? null, updatedAt: event.at } : {},
          ),
        },
        ATTACH: { target: 'rendering', actions: 'attach' },
      },
    },
    rendering: {
      on: {
        JOB_DONE: [
          {
            guard: 'jobCompleted',
            target: 'rendered',
            actions: assign(({ event }) =>
              event.type === 'JOB_DONE' ? { mediaId: event.mediaId, updatedAt: event.at } : {},
            ),
          },
          {
            guard: 'jobFailed',
            target: 'failed',
            actions: assign(({ event }) =>
              event.type === 'JOB_DONE' ? { error: event.error, updatedAt: event.at } : {},
            ),
          },
          { target: 'approved', actions: assign(({ event }) => ({ jobId: null, updatedAt: event.at })) },
        ],
      },
    },
    rendered: {
      on: { UPDATE: { target: 'draft', actions: 'backToDraft' }, ATTACH: { target: 'rendering', actions: 'attach' } },
    },
    failed: {
      on: { UPDATE: { target: 'draft', actions: 'backToDraft' }, ATTACH: { target: 'rendering', actions: 'attach' } },
    },
  },
});

/** A node's persisted state: its state name and context. */
export interface NodeLife {
  state: VideoNodeState;
  context: VideoNodeContext;
}

/** A new node's life: draft. */
export function initialNodeLife(at: number): NodeLife {
  return {
    state: 'draft',
    context: { note: null, approvedAt: null, jobId: null, mediaId: null, error: null, updatedAt: at },
  };
}

/** The node's next life after `event`, or null when its state does not take the event (guards included). */
export function nextNodeState(life: NodeLife, event: VideoNodeEvent): NodeLife | null {
  const snapshot = videoNodeMachine.resolveState({ value: life.state, context: life.context });
  if (!snapshot.can(event)) return null;
  const [next] = transition(videoNodeMachine, snapshot, event);
  return { state: next.value, context: next.context };
}
