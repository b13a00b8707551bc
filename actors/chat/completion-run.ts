import { createActor } from 'xstate';
import { countPromptTokens, countTokens } from '../../protocols/tokens.js';
import type { PassName } from './chat-plan.js';
import type { LiveInput } from './completion-passes.js';
import { passMessages } from './completion-passes.js';
import { collectAnswer } from './collect-answer.js';
import type { PassChoiceResult } from './completion-machine.js';
import type { ChatPlan } from './chat-plan.js';
import { completionMachine, type CompletionEmitted, type PassFailure } from './completion-machine.js';
import type { ChatBackend, ChatBackendRequest, ToolChoice, ToolDefinition } from '../../backends/chat-backend.js';
import type { ChatCompletionRequest, ChatMessage } from '../../protocols/chat.js';
import type { ChoiceView } from '../../protocols/chat-response.js';
import { chatPriceMicros, type TokenUsage } from '../../protocols/pricing.js';
import type { Billing } from '../billing/billing.js';
import type { ActorRegistry } from '../../runtime/host/actor-registry.js';
import { runPassLogic, toPassFailure, type AnswerFragment, type CompletionPort } from './run-pass.js';
import type { AnswerEvent } from './collect-answer.js';

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
  return defs.map((def) => ({
    name: def.name,
    description: def.description ?? null,
    parameters: def.parameters ?? null,
  }));
}

function toolChoice(request: ChatCompletionRequest): ToolChoice {
  const choice = request.tool_choice ?? request.function_call;
  if (!choice) return 'auto';
  if (typeof choice === 'string') return choice;
  return 'type' in choice && choice.type === 'function'
    ? { name: (choice.function as { name: string }).name }
    : { name: (choice as { name: string }).name };
}

/** The backend settings of a request, shared by every pass and choice (`stream`: whether backends should stream). */
export function backendBase(request: ChatCompletionRequest, stream = true): CompletionPort['base'] {
  const format = request.response_format;
  const stop: ChatBackendRequest['stop'] =
    request.stop == null ? [] : typeof request.stop === 'string' ? [request.stop] : request.stop;
  return {
    model: request.model,
    temperature: request.temperature ?? null,
    stop,
    responseFormat: {
      type: format?.type ?? 'text',
      schema: format?.type === 'json_schema' ? (format.json_schema.schema ?? null) : null,
    },
    tools: tools(request),
    toolChoice: toolChoice(request),
    metadata: request.metadata ?? null,
    stream,
  };
}

/** The kind completions are listed under in the actor registry. */
export const COMPLETION_MACHINE = 'chat-completion';

/** How long a finished completion stays reachable by id (late status, live-input and cancel calls), as a small record. */
const COMPLETION_GRACE_MS = 5 * 60_000;

/** A completion's state as status and live-input calls read it. */
export interface CompletionState {
  /** `running`, `completed`, `cancelled` or `failed`. */
  name: string;
  active: boolean;
  /** The pass in flight, null when none. */
  phase: PassName | null;
  liveInputs: readonly LiveInput[];
}

/** Live input as a run takes it. */
export interface LiveInputEvent {
  content: unknown;
  questionId: string | null;
  source: string;
  modality: string;
  at: number;
}

/**
 * A running (or recently finished) completion as callers reach it by id: its state, live input,
 * cancel, the text of the pass in flight, and the settled outcome. Simple runs are direct functions,
 * complex ones the completion machine; both answer the same way.
 */
export interface CompletionHandle {
  state(): CompletionState;
  /** Takes live input (it joins the next pass, if any); the live input's seq. Call only while active. */
  liveInput(input: LiveInputEvent): number;
  /** Cancels the run, billing what its pass in flight had produced. */
  cancel(reason: string | null): void;
  /** The text each choice of the pass in flight has produced so far. */
  partial(): readonly string[];
  /** The outcome once the run ended and its charge settled (or its hold was released). */
  done: Promise<CompletionOutcome>;
}

/** The running (or recently finished) completion `id` of `ownerId`, if any. */
export function findCompletion(registry: ActorRegistry, id: string, ownerId: string): CompletionHandle | undefined {
  return registry.get<CompletionHandle>(id, ownerId, COMPLETION_MACHINE);
}

/** What every run is started with. */
export interface CompletionStart {
  id: string;
  request: ChatCompletionRequest;
  /** The conversation after non-text parts were resolved, and what resolving them processed. */
  conversation: ChatMessage[];
  preprocessed: TokenUsage;
  plan: ChatPlan;
  accountId: string;
  tokenId: string | null;
  requestId: string | null;
  billing: Billing;
  backend: ChatBackend;
  registry: ActorRegistry;
  signal: AbortSignal;
  ready: () => Promise<void> | null;
  /** Receives the visible answer as it is produced and the run's phase and live-input events. */
  onEmit?: (event: CompletionEmitted | AnswerFragment) => void;
  /** The client reads the answer as it comes (a non-streaming one lets backends answer in one piece). */
  streaming: boolean;
}

/** What a finished run leaves in the registry: one shared handle per final state, no memory of the run. */
const FINISHED = new Map<string, CompletionHandle>();

function finishedHandle(name: string, liveInputs: readonly LiveInput[]): CompletionHandle {
  // A run that took live input keeps its list (late GETs report it); the rest share one handle.
  let handle = liveInputs.length === 0 ? FINISHED.get(name) : undefined;
  if (!handle) {
    const finalState: CompletionState = Object.freeze({
      name,
      active: false,
      phase: null,
      liveInputs: liveInputs.length === 0 ? Object.freeze([]) : liveInputs,
    });
    const outcome: CompletionOutcome = {
      status: name as CompletionOutcome['status'],
      choices: [],
      usage: { promptTokens: 0, completionTokens: 0 },
      priceMicros: 0,
      error: null,
      cancelReason: null,
    };
    handle = {
      state: () => finalState,
      liveInput: () => {
        throw new Error('the completion has finished');
      },
      cancel: () => {},
      partial: () => [],
      done: Promise.resolve(outcome),
    };
    if (liveInputs.length === 0) FINISHED.set(name, handle);
  }
  return handle;
}

/**
 * Starts a completion: holds the worst case, runs it (a direct function for simple one-pass
 * requests, the completion machine where passes, live input between them and review buy
 * something), and settles when it ends: completed and cancelled runs are charged their processed
 * tokens, failed runs nothing. The run is reachable by id while it runs and, as a small record,
 * for a grace period after.
 */
export function startCompletion(input: CompletionStart): CompletionHandle {
  const hold = input.billing.hold({
    accountId: input.accountId,
    tokenId: input.tokenId,
    amount: chatPriceMicros(input.plan.worstCase),
  });
  const handle =
    input.plan.depth === 'complex' || input.plan.passes.length !== 1 ? startMachineRun(input) : startDirectRun(input);
  const onAbort = () => handle.cancel('client disconnected');
  if (input.signal.aborted) onAbort();
  else input.signal.addEventListener('abort', onAbort, { once: true });

  const settled = handle.done.then(
    async (outcome) => {
      input.signal.removeEventListener('abort', onAbort);
      if (outcome.status === 'failed') {
        input.billing.release(hold);
        return outcome;
      }
      const entry = await input.billing.settle(hold, {
        charge: outcome.priceMicros,
        description: `chat completion (${input.plan.depth}${outcome.status === 'cancelled' ? ', cancelled' : ''})`,
        requestId: input.requestId,
        model: input.request.model,
        promptTokens: outcome.usage.promptTokens,
        completionTokens: outcome.usage.completionTokens,
      });
      return { ...outcome, priceMicros: entry ? -entry.amount : 0 };
    },
    (err: unknown) => {
      input.signal.removeEventListener('abort', onAbort);
      input.billing.release(hold);
      throw err;
    },
  );
  void settled.then(
    () =>
      input.registry.retire(
        input.id,
        COMPLETION_GRACE_MS,
        finishedHandle(handle.state().name, handle.state().liveInputs),
      ),
    () => input.registry.retire(input.id, 0),
  );
  const live: CompletionHandle = {
    state: () => handle.state(),
    liveInput: (event) => handle.liveInput(event),
    cancel: (reason) => handle.cancel(reason),
    partial: () => handle.partial(),
    done: settled,
  };
  input.registry.add<CompletionHandle>({
    id: input.id,
    machine: COMPLETION_MACHINE,
    ownerId: input.accountId,
    handle: live,
  });
  return live;
}

function outcomeOf(
  status: CompletionOutcome['status'],
  answers: readonly PassChoiceResult[],
  usage: TokenUsage,
  error: PassFailure | null,
  cancelReason: string | null,
): CompletionOutcome {
  return {
    status,
    choices: answers.map((a) => ({ text: a.text, toolCalls: a.toolCalls, finishReason: a.finishReason })),
    usage,
    priceMicros: status === 'failed' ? 0 : chatPriceMicros(usage),
    error,
    cancelReason,
  };
}

/** The completion machine: planning, drafting, review and live input between passes. */
function startMachineRun(input: CompletionStart): CompletionHandle {
  const port: CompletionPort = {
    backend: input.backend,
    base: backendBase(input.request, true),
    ready: input.ready,
    relay: input.onEmit ?? (() => {}),
    partial: [],
  };
  const actor = createActor(runtimeCompletionMachine, {
    input: {
      id: input.id,
      n: input.request.n,
      conversation: input.conversation,
      plan: input.plan,
      port,
      preprocessed: input.preprocessed,
    },
  });
  if (input.onEmit) actor.on('*', input.onEmit);
  const done = new Promise<CompletionOutcome>((resolve, reject) => {
    actor.subscribe({
      complete: () => {
        const { context } = actor.getSnapshot();
        const status = context.error ? 'failed' : context.cancelReason ? 'cancelled' : 'completed';
        resolve(outcomeOf(status, context.answers, context.usage, context.error, context.cancelReason));
      },
      error: (err) => reject(err instanceof Error ? err : new Error(String(err))),
    });
  });
  const handle: CompletionHandle = {
    state: () => {
      const { value, status, context } = actor.getSnapshot();
      return {
        name: typeof value === 'string' ? value : 'running',
        active: status === 'active',
        phase: context.pass,
        liveInputs: context.liveInputs,
      };
    },
    liveInput: (event) => {
      actor.send({ type: 'LIVE_INPUT', ...event });
      return actor.getSnapshot().context.liveInputs.length;
    },
    cancel: (reason) => actor.send({ type: 'CANCEL', reason, partial: port.partial.slice() }),
    partial: () => port.partial,
    done,
  };
  actor.start();
  return handle;
}

/** No live input yet: shared, never mutated (the first input replaces it with the run's own list). */
const NO_LIVE_INPUTS: readonly LiveInput[] = Object.freeze([]);

/**
 * A simple request's one answering pass as a direct function: no actor, no transitions, the
 * same observable behaviour (the `answer` phase, live input recorded and announced, cancel billing
 * what the pass had processed, failure charging nothing). A class, so an open stream holds one
 * object and its methods live on the prototype instead of a closure per method per run.
 */
class DirectRun implements CompletionHandle {
  readonly done: Promise<CompletionOutcome>;
  private name = 'running';
  private cancelReason: string | null = null;
  private liveInputs: readonly LiveInput[] = NO_LIVE_INPUTS;
  /** Text pieces received (all choices). */
  private pieces = 0;
  private readonly controller = new AbortController();
  private readonly texts: string[];
  private readonly messages: ChatMessage[];

  constructor(private readonly input: CompletionStart) {
    const n = input.request.n;
    this.texts = n === 1 ? [''] : Array.from({ length: n }, () => '');
    this.messages = passMessages({
      pass: 'answer',
      conversation: input.conversation,
      liveInputs: [],
      planText: '',
      answerText: '',
    });
    input.onEmit?.({ type: 'phase', phase: 'answer' });
    const running =
      n === 1
        ? this.runChoice(0).then((answer) => [answer])
        : Promise.all(this.texts.map((_, choice) => this.runChoice(choice)));
    this.done = running.then(
      (answers) => this.completed(answers),
      (err: unknown) => this.failed(err),
    );
  }

  private runChoice(choice: number): Promise<PassChoiceResult> {
    const { input } = this;
    const request: ChatBackendRequest = {
      ...backendBase(input.request, input.streaming || input.request.n > 1),
      messages: this.messages,
      maxTokens: input.plan.maxTokens,
      choiceIndex: choice,
      signal: this.controller.signal,
    };
    return collectAnswer(input.backend.stream(request), this.controller.signal, (event) =>
      this.fragment(choice, event),
    );
  }

  private fragment(choice: number, event: AnswerEvent): Promise<void> | null {
    if (event.type === 'delta') {
      const text = (this.texts[choice] += event.text);
      // `+=` builds a chain of cons strings (about 40 bytes a piece for the stream's life); reading a
      // character flattens it, so a long-open stream holds its text, not the chain.
      if ((++this.pieces & 15) === 0) text.charCodeAt(0);
    }
    this.input.onEmit?.(
      event.type === 'delta' ? { type: 'delta', choice, text: event.text } : { ...event, type: 'tool_call', choice },
    );
    return this.input.ready();
  }

  private completed(answers: PassChoiceResult[]): CompletionOutcome {
    if (this.cancelReason !== null) return this.cancelled();
    this.name = 'completed';
    const usage = answers.reduce(
      (sum, a) => ({
        promptTokens: sum.promptTokens + a.usage.promptTokens,
        completionTokens: sum.completionTokens + a.usage.completionTokens,
      }),
      this.input.preprocessed,
    );
    return outcomeOf('completed', answers, usage, null, null);
  }

  private failed(err: unknown): CompletionOutcome {
    if (this.cancelReason !== null) return this.cancelled();
    this.name = 'failed';
    return outcomeOf('failed', [], this.input.preprocessed, toPassFailure(err), null);
  }

  /** A cut-short answer keeps what it had produced, so the client gets (and pays for) exactly that. */
  private cancelled(): CompletionOutcome {
    this.name = 'cancelled';
    const { preprocessed } = this.input;
    const promptTokens = countPromptTokens(this.messages) * this.texts.length;
    const completionTokens = this.texts.reduce((sum, text) => sum + countTokens(text), 0);
    const usage = {
      promptTokens: preprocessed.promptTokens + promptTokens,
      completionTokens: preprocessed.completionTokens + completionTokens,
    };
    const answers = this.texts.map((text) => ({
      text,
      toolCalls: [],
      finishReason: 'stop' as const,
      usage: { promptTokens: 0, completionTokens: 0 },
    }));
    return outcomeOf('cancelled', answers, usage, null, this.cancelReason);
  }

  state(): CompletionState {
    const running = this.name === 'running';
    return { name: this.name, active: running, phase: running ? 'answer' : null, liveInputs: this.liveInputs };
  }

  liveInput(event: LiveInputEvent): number {
    const inputs = this.liveInputs === NO_LIVE_INPUTS ? [] : (this.liveInputs as LiveInput[]);
    inputs.push({
      seq: inputs.length + 1,
      content: event.content,
      questionId: event.questionId,
      source: event.source,
      modality: event.modality,
      receivedAt: event.at,
      usedIn: null,
    });
    this.liveInputs = inputs;
    this.input.onEmit?.({ type: 'live_input', seq: inputs.length });
    return inputs.length;
  }

  cancel(reason: string | null): void {
    if (this.name !== 'running' || this.cancelReason !== null) return;
    this.cancelReason = reason ?? 'cancelled by client';
    this.controller.abort(new Error('cancelled'));
  }

  partial(): readonly string[] {
    return this.texts;
  }
}

/** A simple request's one answering pass (see {@link DirectRun}). */
function startDirectRun(input: CompletionStart): CompletionHandle {
  return new DirectRun(input);
}
