// What a session's steps are given and what their results change: pure functions of its context.
import type { ChatMessage } from '../../protocols/chat.js';
import type { TokenUsage } from '../../protocols/pricing.js';
import type { PassName } from '../chat/chat-plan.js';
import { CHECK_MAX_TOKENS, PLAN_MAX_TOKENS } from '../chat/chat-plan.js';
import type { PassChoiceResult } from '../chat/completion.js';
import { passMessages } from '../chat/completion-passes.js';
import type { PendingQuestion, RunStepInput, SessionContext, SessionTurn, StepResult } from './session-types.js';

/** The tool the drafting step may call to ask the user a clarifying question. */
export const ASK_USER = 'ask_user';

function stepMessages(context: SessionContext, pass: PassName): ChatMessage[] {
  return passMessages({
    pass,
    conversation: [...context.conversation, ...context.clarifications],
    liveInputs: context.liveInputs.filter((input) => input.questionId === null || input.usedIn !== null),
    planText: context.planText,
    answerText: context.answer?.text ?? '',
  });
}

/** The runtime's input for one step of `pass`. */
export function stepInput(context: SessionContext, pass: PassName): RunStepInput {
  return {
    sessionId: context.id,
    pass,
    messages: stepMessages(context, pass),
    maxTokens:
      pass === 'plan'
        ? PLAN_MAX_TOKENS
        : pass === 'check' || pass === 'judge'
          ? CHECK_MAX_TOKENS
          : context.plan.maxTokens,
    settings: context.settings,
    mayAsk: pass === 'draft',
  };
}

/** The clarifying question a step's result asks through ask_user, or null. */
export function askedQuestion(result: PassChoiceResult): PendingQuestion | null {
  const call = result.toolCalls.find((c) => c.name === ASK_USER);
  if (!call) return null;
  let text = call.arguments;
  try {
    const parsed = JSON.parse(call.arguments) as { question?: unknown };
    if (typeof parsed.question === 'string') text = parsed.question;
  } catch {
    // not JSON: the raw arguments are the question
  }
  return { id: call.id || `q_${call.arguments.length}`, text };
}

export const add = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
});

/** What a finished step of `pass` changes in the context: usage, turns, plan or answer, live inputs used. */
export function stepUpdate(context: SessionContext, result: StepResult, pass: PassName): Partial<SessionContext> {
  const turn: SessionTurn = {
    phase: pass,
    at: result.at ?? context.updatedAt,
    ...result.usage,
    summary: result.text.slice(0, 200),
  };
  return {
    usage: add(context.usage, result.usage),
    turns: [...context.turns, turn],
    ...(pass === 'plan' && { planText: result.text }),
    ...(pass === 'draft' && { answer: result }),
    liveInputs: context.liveInputs.map((input) => (input.usedIn ? input : { ...input, usedIn: pass })),
  };
}
