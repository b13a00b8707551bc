import type { ChatCompletionRequest } from '../../protocols/chat.js';
import type { TokenUsage } from '../../protocols/pricing.js';

/** How deep a request is processed: one backend call, or plan → draft → check (→ judge). */
export type Depth = 'simple' | 'complex';

/** One internal backend call of a request. */
export type PassName = 'answer' | 'plan' | 'draft' | 'check' | 'judge';

/** Generated-token caps of the internal passes around the answer. */
export const PLAN_MAX_TOKENS = 256;
export const CHECK_MAX_TOKENS = 64;

/** Prompt tokens each internal pass adds (its instruction), budgeted in the worst case. */
export const PASS_INSTRUCTION_TOKENS = 64;

/** The answer cap when the request sets none. */
export const DEFAULT_MAX_COMPLETION_TOKENS = 4096;

/** The classification thresholds: past any of them a request is complex. */
const COMPLEX_PROMPT_TOKENS = 2000;
const COMPLEX_MESSAGES = 12;

/** A request's processing plan and its worst-case processed tokens (what the hold covers). */
export interface ChatPlan {
  depth: Depth;
  passes: PassName[];
  maxTokens: number;
  worstCase: TokenUsage;
}

/** Classifies a request by size, non-text parts, tools and judge flag; `response_mode` overrides. */
export function classifyDepth(request: ChatCompletionRequest, promptTokens: number): Depth {
  if (request.response_mode === 'simple' || request.response_mode === 'complex') return request.response_mode;
  if (request.enable_judge) return 'complex';
  if (promptTokens > COMPLEX_PROMPT_TOKENS || request.messages.length > COMPLEX_MESSAGES) return 'complex';
  if ((request.tools?.length ?? 0) > 0 || (request.functions?.length ?? 0) > 0) return 'complex';
  return request.messages.some((m) => Array.isArray(m.content) && m.content.some((part) => part.type !== 'text'))
    ? 'complex'
    : 'simple';
}

/** Plans a request whose prompt counts `promptTokens`. */
export function planChat(request: ChatCompletionRequest, promptTokens: number, modelMaxOutput: number): ChatPlan {
  const maxTokens = Math.min(
    request.max_completion_tokens ?? request.max_tokens ?? DEFAULT_MAX_COMPLETION_TOKENS,
    modelMaxOutput,
  );
  const depth = classifyDepth(request, promptTokens);
  const n = request.n;
  if (depth === 'simple') {
    return {
      depth,
      passes: ['answer'],
      maxTokens,
      worstCase: { promptTokens: promptTokens * n, completionTokens: maxTokens * n },
    };
  }
  const passes: PassName[] = request.enable_judge ? ['plan', 'draft', 'check', 'judge'] : ['plan', 'draft', 'check'];
  // plan reads the prompt; draft reads prompt + plan; check and judge read prompt + draft.
  const reviews = passes.length - 2;
  const perPass = promptTokens + PASS_INSTRUCTION_TOKENS;
  const input = perPass + (perPass + PLAN_MAX_TOKENS) + reviews * (perPass + maxTokens);
  const output = PLAN_MAX_TOKENS + maxTokens + reviews * CHECK_MAX_TOKENS;
  return { depth, passes, maxTokens, worstCase: { promptTokens: input * n, completionTokens: output * n } };
}

/** The plan with `added` processed tokens (spent once, before the passes) on top of its worst case. */
export function withPreprocessing(plan: ChatPlan, added: TokenUsage): ChatPlan {
  if (added.promptTokens === 0 && added.completionTokens === 0) return plan;
  return {
    ...plan,
    worstCase: {
      promptTokens: plan.worstCase.promptTokens + added.promptTokens,
      completionTokens: plan.worstCase.completionTokens + added.completionTokens,
    },
  };
}

/** A session's plan: sessions always take the deep path (plan, draft, check; judge when asked). */
export function chatPlanForSession(
  request: ChatCompletionRequest,
  promptTokens: number,
  modelMaxOutput: number,
): ChatPlan {
  return planChat({ ...request, response_mode: 'complex' }, promptTokens, modelMaxOutput);
}
