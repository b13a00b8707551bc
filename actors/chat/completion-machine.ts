import { assign, emit, fromCallback, setup, type ActorRefFrom } from 'xstate';
import type { ChatMessage } from '../../protocols/chat.js';
import type { TokenUsage } from '../../protocols/pricing.js';
import { CHECK_MAX_TOKENS, PLAN_MAX_TOKENS, type ChatPlan, type PassName } from './chat-plan.js';
import { passMessages, type LiveInput } from './completion-passes.js';
import {
  addUsage,
  cutShort,
  isVisiblePass,
  liveInputEntry,
  type OutcomeStatus,
  type PassChoiceResult,
  type PassFailure,
} from './completion.js';

/** What the runtime's `runPass` actor is given: the pass, one message list per choice, and an opaque port. */
export interface RunPassInput {
  pass: PassName;
  choices: ChatMessage[][];
  maxTokens: number;
  port: unknown;
}

/**
 * Events `runPass` sends back when a pass ends. The text it produces on the way does not pass
 * through the machine (one event per token would dominate the cost of a completion): the runtime
 * relays it straight to the client and reports what the cut-short pass had produced with CANCEL.
 */
export type RunPassEvent =
  { type: 'PASS.DONE'; choices: PassChoiceResult[] } | { type: 'PASS.FAILED'; error: PassFailure };

/** Events clients send to a running completion; CANCEL carries the in-flight pass's text per choice. */
export type CompletionClientEvent =
  | { type: 'LIVE_INPUT'; content: unknown; questionId: string | null; source: string; modality: string; at: number }
  | { type: 'CANCEL'; reason: string | null; partial: string[] };

/** What the machine emits to whoever relays the completion. */
export type CompletionEmitted = { type: 'phase'; phase: PassName } | { type: 'live_input'; seq: number };

/** Everything a completion needs to start. */
export interface CompletionInput {
  id: string;
  n: number;
  conversation: ChatMessage[];
  plan: ChatPlan;
  port: unknown;
  /** Processed tokens spent before the first pass (analysing images, audio, files). */
  preprocessed: TokenUsage;
}

/** The completion's state between events. */
export interface CompletionContext {
  id: string;
  n: number;
  conversation: ChatMessage[];
  plan: ChatPlan;
  port: unknown;
  /** The pass in flight and the prompts it sent (billed even when it is cut short). */
  pass: PassName | null;
  passMessages: ChatMessage[][];
  planText: string[];
  answers: PassChoiceResult[];
  usage: TokenUsage;
  liveInputs: LiveInput[];
  cancelReason: string | null;
  error: PassFailure | null;
}

function startPass(context: CompletionContext, pass: PassName): Partial<CompletionContext> {
  const used = context.liveInputs.map((input) => (input.usedIn ? input : { ...input, usedIn: pass }));
  const messages = Array.from({ length: context.n }, (_, choice) =>
    passMessages({
      pass,
      conversation: context.conversation,
      liveInputs: used,
      planText: context.planText[choice] ?? '',
      answerText: context.answers[choice]?.text ?? '',
    }),
  );
  return { pass, passMessages: messages, liveInputs: used };
}

const invokePass = {
  src: 'runPass' as const,
  input: ({ context }: { context: CompletionContext }): RunPassInput => ({
    pass: context.pass!,
    choices: context.passMessages,
    maxTokens:
      context.pass === 'plan'
        ? PLAN_MAX_TOKENS
        : context.pass === 'check' || context.pass === 'judge'
          ? CHECK_MAX_TOKENS
          : context.plan.maxTokens,
    port: context.port,
  }),
};

/**
 * An in-flight chat completion. Simple requests make one `answering` pass; complex ones go
 * `planning` → `answering` (the draft) → `checking` (→ `judging` when enable_judge). Live input
 * joins the next pass's prompt; CANCEL from any live state ends in `cancelled`, billing what the
 * cut-short pass had processed. Backend calls are the `runPass` actor, provided by the runtime.
 */
export const completionMachine = setup({
  types: {
    context: {} as CompletionContext,
    events: {} as CompletionClientEvent | RunPassEvent,
    input: {} as CompletionInput,
    emitted: {} as CompletionEmitted,
    output: {} as { status: OutcomeStatus },
  },
  actors: {
    runPass: fromCallback<RunPassEvent, RunPassInput>(() => {
      throw new Error('runPass must be provided by the runtime');
    }),
  },
  guards: {
    isComplex: ({ context }) => context.plan.depth === 'complex',
    answerCalledTools: ({ context }) => context.answers.some((answer) => answer.finishReason === 'tool_calls'),
    wantsJudge: ({ context }) => context.plan.passes.includes('judge'),
  },
  actions: {
    finishPass: assign(({ context, event }) => {
      if (event.type !== 'PASS.DONE') return {};
      const usage = event.choices.reduce((sum, choice) => addUsage(sum, choice.usage), context.usage);
      const done: Partial<CompletionContext> = { usage, pass: null, passMessages: [] };
      if (context.pass === 'plan') done.planText = event.choices.map((choice) => choice.text);
      if (isVisiblePass(context.pass)) done.answers = event.choices;
      return done;
    }),
    failPass: assign(({ event }) => (event.type === 'PASS.FAILED' ? { error: event.error, pass: null } : {})),
    // What a cancel bills and leaves is the completion's rule (`cutShort`), the same for the direct run.
    chargePartial: assign(({ context, event }) => {
      const { usage, answers } = cutShort(
        context.pass,
        context.passMessages,
        event.type === 'CANCEL' ? event.partial : [],
      );
      return { usage: addUsage(context.usage, usage), pass: null, answers: answers ?? context.answers };
    }),
    recordCancel: assign(({ event }) =>
      event.type === 'CANCEL' ? { cancelReason: event.reason ?? 'cancelled by client' } : {},
    ),
    acceptLiveInput: assign(({ context, event }) =>
      event.type === 'LIVE_INPUT'
        ? { liveInputs: [...context.liveInputs, liveInputEntry(context.liveInputs, event)] }
        : {},
    ),
    announceLiveInput: emit(({ context }) => ({ type: 'live_input' as const, seq: context.liveInputs.length })),
    enterPlanning: assign(({ context }) => startPass(context, 'plan')),
    enterAnswering: assign(({ context }) => startPass(context, context.plan.depth === 'complex' ? 'draft' : 'answer')),
    enterChecking: assign(({ context }) => startPass(context, 'check')),
    enterJudging: assign(({ context }) => startPass(context, 'judge')),
    announcePhase: emit(({ context }) => ({ type: 'phase' as const, phase: context.pass ?? 'answer' })),
  },
}).createMachine({
  id: 'completion',
  context: ({ input }) => ({
    id: input.id,
    n: input.n,
    conversation: input.conversation,
    plan: input.plan,
    port: input.port,
    pass: null,
    passMessages: [],
    planText: [],
    answers: [],
    usage: input.preprocessed,
    liveInputs: [],
    cancelReason: null,
    error: null,
  }),
  initial: 'running',
  on: {
    LIVE_INPUT: { actions: ['acceptLiveInput', 'announceLiveInput'] },
  },
  states: {
    // One parent for every pass: a failure or a cancel ends the run the same way from any of them.
    running: {
      initial: 'starting',
      on: {
        'PASS.FAILED': { target: 'failed', actions: 'failPass' },
        CANCEL: { target: 'cancelled', actions: ['recordCancel', 'chargePartial'] },
      },
      states: {
        starting: {
          always: [{ guard: 'isComplex', target: 'planning' }, { target: 'answering' }],
        },
        planning: {
          entry: ['enterPlanning', 'announcePhase'],
          invoke: invokePass,
          on: { 'PASS.DONE': { target: 'answering', actions: 'finishPass' } },
        },
        answering: {
          entry: ['enterAnswering', 'announcePhase'],
          invoke: invokePass,
          on: {
            'PASS.DONE': [
              { guard: 'isComplex', target: 'reviewing', actions: 'finishPass' },
              { target: '#completion.completed', actions: 'finishPass' },
            ],
          },
        },
        reviewing: {
          always: [{ guard: 'answerCalledTools', target: '#completion.completed' }, { target: 'checking' }],
        },
        checking: {
          entry: ['enterChecking', 'announcePhase'],
          invoke: invokePass,
          on: {
            'PASS.DONE': [
              { guard: 'wantsJudge', target: 'judging', actions: 'finishPass' },
              { target: '#completion.completed', actions: 'finishPass' },
            ],
          },
        },
        judging: {
          entry: ['enterJudging', 'announcePhase'],
          invoke: invokePass,
          on: { 'PASS.DONE': { target: '#completion.completed', actions: 'finishPass' } },
        },
      },
    },
    completed: { type: 'final' },
    cancelled: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => ({ status: context.error ? 'failed' : context.cancelReason ? 'cancelled' : 'completed' }),
});

/** A running completion actor. */
export type CompletionActor = ActorRefFrom<typeof completionMachine>;
