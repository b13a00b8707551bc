import { assign, emit, fromPromise, setup } from 'xstate';
import type { ChatMessage } from '../../protocols/chat.js';
import type { LiveInput } from '../chat/completion-passes.js';
import { effectError, effectOutput } from '../effect-results.js';
import type { SessionDomainEvent } from './session-events.js';
import { add, ASK_USER, askedQuestion, stepInput, stepUpdate } from './session-steps.js';
import type {
  RunStepInput,
  SessionContext,
  SessionEvent,
  SessionInput,
  SessionTurn,
  SettleInput,
  StepResult,
} from './session-types.js';

/**
 * A chat session: an asynchronous run with optional cost approval and clarifying questions.
 * Deadlines (approval expiry, idle limit) are data in `context.deadlines`; the host arms them and
 * sends TIMER. Backend steps and the charge are the runtime's `runStep` and `settleCharge`.
 */
export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    input: {} as SessionInput,
    emitted: {} as SessionDomainEvent,
  },
  actors: {
    runStep: fromPromise<StepResult, RunStepInput>(() =>
      Promise.reject(new Error('runStep must be provided by the runtime')),
    ),
    settleCharge: fromPromise<{ priceMicros: number }, SettleInput>(() =>
      Promise.reject(new Error('settleCharge must be provided by the runtime')),
    ),
  },
  guards: {
    needsApproval: ({ context }) => context.requireApproval,
    wantsJudge: ({ context }) => context.plan.passes.includes('judge'),
    // A step's result arrives as params (effectOutput), typed from `actors` above.
    askedUser: (_, result: StepResult) => askedQuestion(result) !== null,
    calledTools: (_, result: StepResult) => result.finishReason === 'tool_calls',
    isApprovalTimer: ({ event }) => event.type === 'TIMER' && event.name === 'approval',
    isIdleTimer: ({ event }) => event.type === 'TIMER' && event.name === 'idle',
    answersQuestion: ({ context, event }) =>
      event.type === 'LIVE_INPUT' && (event.questionId === null || event.questionId === context.question?.id),
  },
  actions: {
    touch: assign(({ event, context }) => ({ updatedAt: 'at' in event ? event.at : context.updatedAt })),
    armApproval: assign(({ context }) => ({
      deadlines: { ...context.deadlines, approval: context.updatedAt + context.approvalTtlMs },
    })),
    armIdle: assign(({ context }) => ({
      deadlines: { ...context.deadlines, idle: context.updatedAt + context.idleTtlMs },
    })),
    clearDeadlines: assign({ deadlines: () => ({}) }),
    // Approval brings the attached files' deferred full scan: the resolved conversation and its cost.
    applyApproval: assign(({ context, event }) =>
      event.type === 'APPROVE'
        ? { conversation: event.conversation, usage: add(context.usage, event.preprocessed) }
        : {},
    ),
    acceptLiveInput: assign(({ context, event }) => {
      if (event.type !== 'LIVE_INPUT') return {};
      const input: LiveInput = {
        seq: context.liveInputs.length + 1,
        content: event.content,
        questionId: event.questionId,
        source: event.source,
        modality: event.modality,
        receivedAt: event.at,
        usedIn: null,
      };
      return { liveInputs: [...context.liveInputs, input] };
    }),
    answerQuestion: assign(({ context, event }) => {
      if (event.type !== 'LIVE_INPUT' || !context.question) return {};
      const content = typeof event.content === 'string' ? event.content : JSON.stringify(event.content);
      const asked: ChatMessage = {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: context.question.id,
            type: 'function',
            function: { name: ASK_USER, arguments: JSON.stringify({ question: context.question.text }) },
          },
        ],
      };
      const answer: ChatMessage = { role: 'tool', tool_call_id: context.question.id, content };
      const turn: SessionTurn = {
        phase: 'clarification',
        at: event.at,
        promptTokens: 0,
        completionTokens: 0,
        summary: `${context.question.text} → ${content}`.slice(0, 200),
      };
      return {
        clarifications: [...context.clarifications, asked, answer],
        question: null,
        turns: [...context.turns, turn],
      };
    }),
    // The actions below on a step's result or error take it as params (effectOutput, effectError).
    setQuestion: assign((_, result: StepResult) => ({ question: askedQuestion(result) })),
    recordCancel: assign(({ event }) => ({
      outcome: 'cancelled' as const,
      cancelReason: event.type === 'CANCEL' ? (event.reason ?? 'cancelled by client') : null,
    })),
    recordPlan: assign(({ context }, result: StepResult) => stepUpdate(context, result, 'plan')),
    recordDraft: assign(({ context }, result: StepResult) => stepUpdate(context, result, 'draft')),
    recordCheck: assign(({ context }, result: StepResult) => stepUpdate(context, result, 'check')),
    recordJudge: assign(({ context }, result: StepResult) => stepUpdate(context, result, 'judge')),
    recordFailure: assign((_, error: unknown) => ({
      outcome: 'failed' as const,
      error: error instanceof Error ? error.message : 'the model backend failed',
    })),
    markCompleted: assign({ outcome: () => 'completed' as const }),
    markExpired: assign({ outcome: () => 'expired' as const }),
    recordPrice: assign((_, output: { priceMicros: number }) => ({ priceMicros: output.priceMicros })),
    // Domain events (camelCase, micro-USD, epoch ms): the API's wire is rendered from them at the edge.
    emitAwaitingApproval: emit(({ context }): SessionDomainEvent => ({
      type: 'awaiting_approval',
      quote: context.quote,
      expiresAt: context.deadlines.approval ?? null,
    })),
    emitApproved: emit({ type: 'approved' } satisfies SessionDomainEvent),
    emitAwaitingUser: emit(({ context }): SessionDomainEvent => ({
      type: 'awaiting_user',
      question: context.question?.text ?? null,
      questionId: context.question?.id ?? null,
      expiresAt: context.deadlines.idle ?? null,
    })),
    emitLiveInput: emit(({ context }): SessionDomainEvent => ({ type: 'live_input', seq: context.liveInputs.length })),
    emitAnswer: emit(({ context }): SessionDomainEvent => ({
      type: 'answer',
      text: context.answer?.text ?? '',
      finishReason: context.answer?.finishReason ?? null,
    })),
    emitEnded: emit(({ context }): SessionDomainEvent => ({
      type: context.outcome ?? 'failed',
      priceMicros: context.priceMicros ?? 0,
      usage: { promptTokens: context.usage.promptTokens, completionTokens: context.usage.completionTokens },
      reason: context.cancelReason,
      error: context.error,
    })),
    emitAcknowledged: emit({ type: 'acknowledged' } satisfies SessionDomainEvent),
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({
    ...input,
    planText: '',
    answer: null,
    usage: input.preprocessed,
    liveInputs: [],
    question: null,
    clarifications: [],
    turns: [],
    deadlines: {},
    outcome: null,
    cancelReason: null,
    error: null,
    priceMicros: null,
    updatedAt: input.at,
  }),
  initial: 'created',
  states: {
    created: {
      entry: emit(({ context }): SessionDomainEvent => ({
        type: 'created',
        quote: context.quote,
        requireApproval: context.requireApproval,
      })),
      always: [{ guard: 'needsApproval', target: 'awaiting_approval' }, { target: 'running' }],
    },
    awaiting_approval: {
      entry: ['armApproval', 'emitAwaitingApproval'],
      exit: 'clearDeadlines',
      on: {
        APPROVE: { target: 'running', actions: ['touch', 'applyApproval', 'emitApproved'] },
        CANCEL: { target: 'settling', actions: ['touch', 'recordCancel'] },
        TIMER: { guard: 'isApprovalTimer', target: 'settling', actions: 'markExpired' },
      },
    },
    running: {
      initial: 'planning',
      on: {
        CANCEL: { target: 'settling', actions: ['touch', 'recordCancel'] },
        LIVE_INPUT: { actions: ['touch', 'acceptLiveInput', 'emitLiveInput'] },
      },
      states: {
        planning: {
          entry: emit({ type: 'phase', phase: 'planning' } satisfies SessionDomainEvent),
          invoke: {
            src: 'runStep',
            input: ({ context }) => stepInput(context, 'plan'),
            onDone: { target: 'drafting', actions: { type: 'recordPlan', params: effectOutput } },
            onError: { target: '#session.settling', actions: { type: 'recordFailure', params: effectError } },
          },
        },
        drafting: {
          entry: emit({ type: 'phase', phase: 'drafting' } satisfies SessionDomainEvent),
          invoke: {
            src: 'runStep',
            input: ({ context }) => stepInput(context, 'draft'),
            onDone: [
              {
                guard: { type: 'askedUser', params: effectOutput },
                target: '#session.awaiting_user',
                actions: [
                  { type: 'recordDraft', params: effectOutput },
                  { type: 'setQuestion', params: effectOutput },
                ],
              },
              {
                guard: { type: 'calledTools', params: effectOutput },
                target: '#session.settling',
                actions: [{ type: 'recordDraft', params: effectOutput }, 'emitAnswer', 'markCompleted'],
              },
              { target: 'checking', actions: [{ type: 'recordDraft', params: effectOutput }, 'emitAnswer'] },
            ],
            onError: { target: '#session.settling', actions: { type: 'recordFailure', params: effectError } },
          },
        },
        checking: {
          entry: emit({ type: 'phase', phase: 'checking' } satisfies SessionDomainEvent),
          invoke: {
            src: 'runStep',
            input: ({ context }) => stepInput(context, 'check'),
            onDone: [
              { guard: 'wantsJudge', target: 'judging', actions: { type: 'recordCheck', params: effectOutput } },
              {
                target: '#session.settling',
                actions: [{ type: 'recordCheck', params: effectOutput }, 'markCompleted'],
              },
            ],
            onError: { target: '#session.settling', actions: { type: 'recordFailure', params: effectError } },
          },
        },
        judging: {
          entry: emit({ type: 'phase', phase: 'judging' } satisfies SessionDomainEvent),
          invoke: {
            src: 'runStep',
            input: ({ context }) => stepInput(context, 'judge'),
            onDone: {
              target: '#session.settling',
              actions: [{ type: 'recordJudge', params: effectOutput }, 'markCompleted'],
            },
            onError: { target: '#session.settling', actions: { type: 'recordFailure', params: effectError } },
          },
        },
      },
    },
    awaiting_user: {
      entry: ['armIdle', 'emitAwaitingUser'],
      exit: 'clearDeadlines',
      on: {
        LIVE_INPUT: {
          guard: 'answersQuestion',
          target: 'running.drafting',
          actions: ['touch', 'acceptLiveInput', 'answerQuestion', 'emitLiveInput'],
        },
        CANCEL: { target: 'settling', actions: ['touch', 'recordCancel'] },
        TIMER: { guard: 'isIdleTimer', target: 'settling', actions: 'markExpired' },
      },
    },
    settling: {
      invoke: {
        src: 'settleCharge',
        input: ({ context }): SettleInput => ({
          sessionId: context.id,
          accountId: context.accountId,
          tokenId: context.tokenId,
          model: context.model,
          outcome: context.outcome ?? 'failed',
          usage: context.usage,
          capMicros: context.quote.holdMicros,
        }),
        onDone: [
          {
            guard: ({ context }) => context.outcome === 'completed',
            target: 'completed',
            actions: [{ type: 'recordPrice', params: effectOutput }, 'emitEnded'],
          },
          {
            guard: ({ context }) => context.outcome === 'cancelled',
            target: 'cancelled',
            actions: [{ type: 'recordPrice', params: effectOutput }, 'emitEnded'],
          },
          {
            guard: ({ context }) => context.outcome === 'expired',
            target: 'expired',
            actions: [{ type: 'recordPrice', params: effectOutput }, 'emitEnded'],
          },
          { target: 'failed', actions: [{ type: 'recordPrice', params: effectOutput }, 'emitEnded'] },
        ],
        onError: { target: 'failed', actions: 'emitEnded' },
      },
    },
    completed: {
      on: { ACKNOWLEDGE: { target: 'acknowledged', actions: ['touch', 'emitAcknowledged'] } },
    },
    acknowledged: { type: 'final' },
    cancelled: { type: 'final' },
    failed: { type: 'final' },
    expired: { type: 'final' },
  },
});
