import { createActor } from 'xstate';
import type { ChatPlan } from '../../actors/chat-plan.js';
import { completionMachine, type CompletionActor, type CompletionEmitted, type PassFailure } from '../../actors/completion-machine.js';
import type { ChatBackend, ChatBackendRequest, ToolChoice, ToolDefinition } from '../../backends/chat-backend.js';
import type { ChatCompletionRequest, ChatMessage } from '../../protocols/chat.js';
import type { ChoiceView } from '../../protocols/chat-response.js';
import { chatPriceMicros, type TokenUsage } from '../../protocols/pricing.js';
import type { AccountServices } from '../../runtime/accounts/account-services.js';
import type { ActorRegistry } from '../../runtime/actor-registry.js';
import { runPassLogic, type AnswerFragment, type CompletionPort } from './run-pass.js';

/** The completion machine with the runtime's backend actor plugged in (provided once). */
export const runtimeCompletionMachine = completionMachine.provide({ actors: { runPass: runPassLogic } });

/** How a completion ended, after the ledger settled it. */
export interface CompletionOutcome {
  status: 'completed' | 'cancelled' | 'failed';
  choices: ChoiceView[];
  usage: TokenUsage;
  priceMicros: number;
  error: PassFailure | null;
  cancelReason: string | null;
}

function tools(request: ChatCompletionRequest): ToolDefinition[] {
  const defs = request.tools?.map((tool) => tool.function) ?? request.functions ?? [];
  return defs.map((def) => ({ name: def.name, description: def.description ?? null, parameters: def.parameters ?? null }));
}

function toolChoice(request: ChatCompletionRequest): ToolChoice {
  const choice = request.tool_choice ?? request.function_call;
  if (!choice) return 'auto';
  if (typeof choice === 'string') return choice;
  return 'type' in choice && choice.type === 'function' ? { name: (choice.function as { name: string }).name } : { name: (choice as { name: string }).name };
}

/** The backend settings of a request, shared by every pass and choice. */
export function backendBase(request: ChatCompletionRequest): CompletionPort['base'] {
  const format = request.response_format;
  const stop: ChatBackendRequest['stop'] = request.stop == null ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop;
  return {
    model: request.model,
    temperature: request.temperature ?? null,
    stop,
    responseFormat: { type: format?.type ?? 'text', schema: format?.type === 'json_schema' ? (format.json_schema.schema ?? null) : null },
    tools: tools(request),
    toolChoice: toolChoice(request),
    metadata: request.metadata ?? null,
  };
}

/** A running completion as the routes reach it: its actor, and how to cancel it. */
export interface CompletionHandle {
  actor: CompletionActor;
  /** Cancels the run, billing what its pass in flight had produced. */
  cancel(reason: string | null): void;
  /** The text each choice of the pass in flight has produced so far. */
  partial(): readonly string[];
}

/** A started completion: its handle, and the outcome once settled. */
export interface StartedCompletion extends CompletionHandle {
  done: Promise<CompletionOutcome>;
}

/**
 * Holds the worst case, starts the completion actor, and settles when it ends: completed and
 * cancelled runs are charged their processed tokens, failed runs nothing.
 */
export function startCompletion(input: {
  id: string;
  request: ChatCompletionRequest;
  /** The conversation after non-text parts were resolved, and what resolving them processed. */
  conversation: ChatMessage[];
  preprocessed: TokenUsage;
  plan: ChatPlan;
  accountId: string;
  tokenId: string | null;
  requestId: string;
  services: AccountServices;
  backend: ChatBackend;
  registry: ActorRegistry<CompletionHandle>;
  signal: AbortSignal;
  ready: () => Promise<void> | null;
  /** Receives the visible answer as it is produced and the machine's phase and live-input events. */
  onEmit?: (event: CompletionEmitted | AnswerFragment) => void;
}): StartedCompletion {
  const { services, plan } = input;
  const hold = services.ledger.hold({ accountId: input.accountId, tokenId: input.tokenId, amount: chatPriceMicros(plan.worstCase) });
  const port: CompletionPort = { backend: input.backend, base: backendBase(input.request), ready: input.ready, relay: input.onEmit ?? (() => {}), partial: [] };
  const actor = createActor(runtimeCompletionMachine, {
    input: { id: input.id, n: input.request.n, conversation: input.conversation, plan, port, preprocessed: input.preprocessed },
  });
  if (input.onEmit) actor.on('*', input.onEmit);
  const cancel = (reason: string | null) => actor.send({ type: 'CANCEL', reason, partial: port.partial.slice() });
  const partial = () => port.partial;
  input.registry.add(input.id, input.accountId, { actor, cancel, partial });
  const onAbort = () => cancel('client disconnected');
  input.signal.addEventListener('abort', onAbort, { once: true });

  const done = new Promise<CompletionOutcome>((resolve, reject) => {
    actor.subscribe({
      complete: () => {
        input.signal.removeEventListener('abort', onAbort);
        input.registry.retire(input.id);
        const { context } = actor.getSnapshot();
        const status = context.error ? 'failed' : context.cancelReason ? 'cancelled' : 'completed';
        const outcome: CompletionOutcome = {
          status,
          choices: context.answers.map((a) => ({ text: a.text, toolCalls: a.toolCalls, finishReason: a.finishReason })),
          usage: context.usage,
          priceMicros: status === 'failed' ? 0 : chatPriceMicros(context.usage),
          error: context.error,
          cancelReason: context.cancelReason,
        };
        if (status === 'failed') {
          services.ledger.release(hold);
          resolve(outcome);
          return;
        }
        services.ledger
          .settle(hold, {
            charge: outcome.priceMicros,
            description: `chat completion (${plan.depth}${status === 'cancelled' ? ', cancelled' : ''})`,
            requestId: input.requestId,
            model: input.request.model,
            promptTokens: context.usage.promptTokens,
            completionTokens: context.usage.completionTokens,
          })
          .then((entry) => resolve({ ...outcome, priceMicros: entry ? -entry.amount : 0 }), reject);
      },
      error: (err) => {
        services.ledger.release(hold);
        input.registry.retire(input.id);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    });
  });
  actor.start();
  return { actor, cancel, partial, done };
}
