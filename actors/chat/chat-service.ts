import type { ChatBackend } from '../../backends/chat-backend.js';
import type { ChatCompletionRequest, ChatMessage } from '../../protocols/chat.js';
import type { CompletionHeader } from '../../protocols/chat-response.js';
import { ApiError } from '../../protocols/errors.js';
import type { ModelCard } from '../../protocols/models.js';
import { chatPriceMicros } from '../../protocols/pricing.js';
import { countPromptTokens } from '../../protocols/tokens.js';
import { abortSignalOf, type CancelSignal } from '../../runtime/cancel-signal.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorRegistry } from '../../runtime/host/actor-registry.js';
import { randomBase62 } from '../../runtime/ids.js';
import type { Logger } from '../../runtime/logger.js';
import type { Billing } from '../billing/billing.js';
import { holdFor, type OpenCharge, type SettleTerms } from '../billing/charged-work.js';
import { planChat, withPreprocessing, type PassName } from './chat-plan.js';
import { completionBill, outcomeOf, type CompletionOutcome, type PassFailure } from './completion.js';
import type { CompletionEmitted } from './completion-machine.js';
import type { LiveInput } from './completion-passes.js';
import { findCompletion, runtimeCompletionMachine, startCompletion, type CompletionHandle } from './completion-run.js';
import type { PartResolverOptions } from './parts/part-context.js';
import { resolveParts } from './parts/resolve-parts.js';
import type { CachedAnswer, ResponseCache } from './response-cache.js';
import type { AnswerFragment } from './run-pass.js';

/** One chat completion to run: who asks, the validated request and its model, and when to stop. */
export interface ChatCall {
  accountId: string;
  tokenId: string | null;
  /** Recorded on the ledger entry; null when the caller is not an HTTP request. */
  requestId: string | null;
  request: ChatCompletionRequest;
  model: ModelCard;
  /** Aborting it cancels the run (billing what was processed), as a client disconnect does. */
  signal: CancelSignal;
  /**
   * Charges once per ref across restarts: durable work (a background response) that re-runs after
   * a crash. Such a run skips the cache, whose hit would be charged a second time.
   */
  settleRef?: string;
  /**
   * The completion's id is never shown to the caller (a wire format that answers under an id of
   * its own, the Responses API): no late status, live-input or cancel call can name it, so the run
   * is not kept reachable after it ends (no record held in the registry's grace per request).
   */
  unnamed?: boolean;
  /**
   * Writes that must be durable exactly when the charge is (a stored response the answer names):
   * run inside the settle's transaction with the result as it will resolve, priced. Synchronous,
   * write-only and safe to run twice (a cluster transaction re-run); not called when nothing is
   * settled (a failed run).
   */
  persist?: (result: ChatResult) => void;
}

/** What a streaming caller is handed as the run produces it: answer fragments, phases, live input. */
export type CompletionStreamEvent = CompletionEmitted | AnswerFragment;

/** Where a streamed completion goes: events as produced, and flow control (the producer waits on `ready`). */
export interface CompletionSink {
  event(event: CompletionStreamEvent): void;
  /** Null while the consumer keeps up; otherwise a promise to wait on before producing more. */
  ready(): Promise<void> | null;
}

/** A finished (completed or cancelled) and settled completion. */
export interface ChatResult {
  head: CompletionHeader;
  outcome: CompletionOutcome;
  /** The processing depth (`simple` or `complex`), as `svc.depth` reports it. */
  depth: string;
  /** Answered from the response cache. */
  cached: boolean;
}

/** Live input as any caller sends it (spec 2.4). */
export interface LiveInputCommand {
  content: unknown;
  questionId: string | null;
  source: string;
  modality: string;
}

/** How a live-input or cancel call was taken: by a plain completion, or by a session's run. */
export type LiveInputTaken =
  | { kind: 'completion'; completionId: string; seq: number; state: string }
  | { kind: 'session_run'; completionId: string; sessionId: string };
export type CancelTaken =
  | { kind: 'completion'; completionId: string; cancelled: boolean; state: string }
  | { kind: 'session_run'; completionId: string; sessionId: string };

/** A completion's state for GET …/live-input. */
export interface CompletionStatus {
  completionId: string;
  state: string;
  active: boolean;
  phase: PassName | null;
  inputs: readonly LiveInput[];
  pending: number;
}

/**
 * Runs that answer to a completion id without being plain completions: a chat session's run
 * (spec 3: live input and cancel work on either route). Implemented by the sessions feature.
 */
export interface LinkedRuns {
  liveInputToRun(
    accountId: string,
    completionId: string,
    input: LiveInputCommand,
  ): Promise<{ sessionId: string } | undefined>;
  cancelRun(accountId: string, completionId: string, reason: string | null): Promise<{ sessionId: string } | undefined>;
}

/** What the chat feature runs on. */
export interface ChatServiceOptions {
  billing: Billing;
  backend: ChatBackend;
  registry: ActorRegistry;
  cache: ResponseCache;
  parts: PartResolverOptions;
  clock: Clock;
  logger: Logger;
  linked?: LinkedRuns;
}

/** Maps a failed pass to the API's explicit upstream error; never a degraded answer. */
function upstreamError(failure: PassFailure | null): ApiError {
  const kind = failure?.kind ?? 'upstream_error';
  return new ApiError(kind, `The model provider failed: ${failure?.message ?? 'unknown error'}. Nothing was charged.`, {
    retryAfterMs: failure?.retryAfterMs ?? null,
  });
}

/**
 * The chat feature: completions (plain or streamed, cached answers included) and the live input,
 * cancel and status of a running one. Callers (the HTTP route, MCP tools, workers) pass plain
 * inputs and render the results; a failed run throws the API's upstream error, and nothing of it
 * is charged. Another account's completion is 404, never 403.
 */
export class ChatService {
  constructor(private readonly options: ChatServiceOptions) {}

  /** Runs a completion to its end and settles it. */
  complete(call: ChatCall): Promise<ChatResult> {
    return this.run(call, null);
  }

  /**
   * Runs a completion, handing what it produces to the sink `sinkFor(head)` returns (called once,
   * before anything is produced, with the id and header every chunk carries); resolves settled.
   */
  stream(call: ChatCall, sinkFor: (head: CompletionHeader) => CompletionSink): Promise<ChatResult> {
    return this.run(call, sinkFor);
  }

  private async run(call: ChatCall, sinkFor: ((head: CompletionHeader) => CompletionSink) | null): Promise<ChatResult> {
    const { request, model } = call;
    const head: CompletionHeader = {
      id: `chatcmpl-${randomBase62(24)}`,
      created: Math.floor(this.options.clock.now() / 1000),
      model: model.id,
      legacyFunctions: !request.tools && Boolean(request.functions),
    };
    const { cache } = this.options;
    const cacheKey = call.settleRef === undefined ? cache.keyOf(call.accountId, request) : null;
    const hit = cacheKey ? cache.get(cacheKey) : undefined;
    const sink = sinkFor ? sinkFor(head) : null;
    if (hit) return this.answerFromCache(call, head, hit, sink);
    const { plan, done } = await this.start(call, head, sink);
    const outcome = await done;
    if (outcome.status === 'failed') throw upstreamError(outcome.error);
    if (cacheKey && outcome.status === 'completed') {
      cache
        .put(cacheKey, outcome.choices, plan.depth)
        .catch((err: unknown) => this.options.logger.warn('chat cache write failed', { err }));
    }
    return { head, outcome, depth: plan.depth, cached: false };
  }

  /** Plans, checks the balance, resolves the parts and starts the run (which holds its worst case). */
  private async start(call: ChatCall, head: CompletionHeader, sink: CompletionSink | null) {
    const { request, model, accountId } = call;
    const { billing, parts } = this.options;
    const rawPlan = planChat(request, countPromptTokens(request.messages), model.max_output_tokens);
    // Refuse an unpayable request before spending anything on its parts.
    billing.assertCanHold(accountId, chatPriceMicros(rawPlan.worstCase));
    // The AbortSignal only if a part is fetched or analysed (resolveParts reads it only then).
    const context = {
      accountId,
      options: parts,
      get signal() {
        return abortSignalOf(call.signal);
      },
    };
    const resolved = await resolveParts(request.messages, context);
    // The passes read the resolved text, and resolving cost `added` once: the hold covers both.
    const plan =
      resolved.messages === request.messages
        ? rawPlan
        : withPreprocessing(
            planChat(request, countPromptTokens(resolved.messages), model.max_output_tokens),
            resolved.added,
          );
    const { done } = startCompletion({
      id: head.id,
      request,
      conversation: resolved.messages,
      preprocessed: resolved.added,
      plan,
      accountId,
      tokenId: call.tokenId,
      requestId: call.requestId,
      billing,
      backend: this.options.backend,
      registry: this.options.registry,
      signal: call.signal,
      ready: sink ? () => sink.ready() : () => null,
      onEmit: sink ? (event) => sink.event(event) : undefined,
      streaming: sink !== null,
      ...(call.settleRef !== undefined && { settleRef: call.settleRef }),
      ...(call.unnamed && { graceMs: 0 }),
      ...(call.persist && {
        alsoWrite: (outcome: CompletionOutcome) => call.persist!({ head, outcome, depth: plan.depth, cached: false }),
      }),
    });
    return { plan, done };
  }

  /**
   * A cache hit: charged its prompt tokens only (nothing was generated), marked cached. The hold
   * comes first (402 before anything is streamed), the answer next, the charge last: what
   * `persist` writes with the charge has the whole answer.
   */
  private async answerFromCache(
    call: ChatCall,
    head: CompletionHeader,
    hit: CachedAnswer,
    sink: CompletionSink | null,
  ): Promise<ChatResult> {
    const usage = { promptTokens: countPromptTokens(call.request.messages), completionTokens: 0 };
    const outcome = outcomeOf('completed', hit.choices, usage);
    const bill = completionBill(outcome, { model: call.request.model, depth: hit.depth, cached: true })!;
    const charge = holdFor(this.options.billing, call, bill.charge);
    if (sink) this.replayCached(hit, sink, charge);
    const { persist } = call;
    const terms: SettleTerms | undefined = persist && {
      alsoWrite: (charged) => {
        outcome.priceMicros = charged.micros;
        persist({ head, outcome, depth: hit.depth, cached: true });
      },
    };
    outcome.priceMicros = (await charge.settle(bill, terms)).micros;
    return { head, outcome, depth: hit.depth, cached: true };
  }

  /** Hands a cached answer to a streaming sink (giving the hold back if the sink throws). */
  private replayCached(hit: CachedAnswer, sink: CompletionSink, charge: OpenCharge): void {
    try {
      hit.choices.forEach((choice, index) => {
        if (choice.text) sink.event({ type: 'delta', choice: index, text: choice.text });
        choice.toolCalls.forEach((call, i) =>
          sink.event({
            type: 'tool_call',
            choice: index,
            index: i,
            id: call.id,
            name: call.name,
            arguments: call.arguments,
          }),
        );
      });
    } catch (err) {
      charge.release();
      throw err;
    }
  }

  private find(accountId: string, completionId: string): CompletionHandle {
    const handle = findCompletion(this.options.registry, completionId, accountId);
    if (!handle)
      throw new ApiError('not_found', `No running or recent completion ${completionId}.`, { param: 'completion_id' });
    return handle;
  }

  /**
   * The input tokens one pass of `messages` bills (count_tokens): the prompt with its media parts
   * resolved, plus the tokens those parts add. Nothing is held or charged.
   */
  async inputTokens(accountId: string, messages: ChatMessage[], signal: AbortSignal): Promise<number> {
    const resolved = await resolveParts(messages, { accountId, signal, options: this.options.parts });
    return countPromptTokens(resolved.messages) + resolved.added.promptTokens;
  }

  /** Live input to a running completion (it joins the next pass), or to a session's run by its completion id. */
  async liveInput(accountId: string, completionId: string, input: LiveInputCommand): Promise<LiveInputTaken> {
    if (!findCompletion(this.options.registry, completionId, accountId)) {
      const run = await this.options.linked?.liveInputToRun(accountId, completionId, input);
      if (run) return { kind: 'session_run', completionId, sessionId: run.sessionId };
    }
    const handle = this.find(accountId, completionId);
    if (!handle.state().active) {
      throw new ApiError('conflict', 'This completion has finished; live input can no longer join it.');
    }
    const seq = handle.liveInput({
      content: input.content,
      questionId: input.questionId,
      source: input.source,
      modality: input.modality,
      at: this.options.clock.now(),
    });
    return { kind: 'completion', completionId, seq, state: handle.state().name };
  }

  /** Cancels a running completion (billing what it processed), or a session's run by its completion id. */
  async cancel(accountId: string, completionId: string, reason: string | null): Promise<CancelTaken> {
    if (!findCompletion(this.options.registry, completionId, accountId)) {
      const run = await this.options.linked?.cancelRun(accountId, completionId, reason);
      if (run) return { kind: 'session_run', completionId, sessionId: run.sessionId };
    }
    const handle = this.find(accountId, completionId);
    const wasActive = handle.state().active;
    handle.cancel(reason);
    if (wasActive) await handle.done.catch(() => undefined);
    const state = handle.state().name;
    return { kind: 'completion', completionId, cancelled: wasActive && state === 'cancelled', state };
  }

  /** A running or recently finished completion's state, phase and live inputs. */
  /** The completion machine's definition, as JSON for visualisers (completions are not hosted, so the host does not list it). */
  machineDefinition(): unknown {
    return runtimeCompletionMachine.toJSON();
  }

  status(accountId: string, completionId: string): CompletionStatus {
    const state = this.find(accountId, completionId).state();
    return {
      completionId,
      state: state.name,
      active: state.active,
      phase: state.phase,
      inputs: state.liveInputs,
      pending: state.liveInputs.filter((input) => input.usedIn === null).length,
    };
  }
}
