import { createActor } from 'xstate';
import type { ChatBackend, ChatBackendRequest, ToolChoice, ToolDefinition } from '../../backends/chat-backend.js';
import type { ChatCompletionRequest, ChatMessage } from '../../protocols/chat.js';
import { chatPriceMicros, type TokenUsage } from '../../protocols/pricing.js';
import { CancelSource, type CancelSignal } from '../../runtime/cancel-signal.js';
import type { ActorRegistry } from '../../runtime/host/actor-registry.js';
import type { Billing } from '../billing/billing.js';
import { chargedWork } from '../billing/charged-work.js';
import type { ChatPlan } from './chat-plan.js';
import { collectAnswer, type AnswerEvent } from './collect-answer.js';
import { completionMachine, type CompletionActor, type CompletionEmitted } from './completion-machine.js';
import { passMessages, type LiveInput } from './completion-passes.js';
import {
  addUsage,
  completionBill,
  cutShort,
  liveInputEntry,
  NO_USAGE,
  outcomeOf,
  type CompletionOutcome,
  type CompletionState,
  type LiveInputEvent,
  type PassChoiceResult,
} from './completion.js';
import { runPassLogic, toPassFailure, type AnswerFragment, type CompletionPort } from './run-pass.js';

/** The completion machine with the runtime's backend actor plugged in (provided once). */
export const runtimeCompletionMachine = completionMachine.provide({ actors: { runPass: runPassLogic } });

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
    ...(request.parallel_tool_calls === false && { parallelToolCalls: false }),
    metadata: request.metadata ?? null,
    stream,
  };
}

/** The kind completions are listed under in the actor registry. */
export const COMPLETION_MACHINE = 'chat-completion';

/** How long a finished completion stays reachable by id (late status, live-input and cancel calls), as a small record. */
const COMPLETION_GRACE_MS = 5 * 60_000;

/**
 * A running (or recently finished) completion as callers reach it by id: its state, live input,
 * cancel, the text of the pass in flight, and the settled outcome. Simple runs are a direct
 * function, complex ones the completion machine; both answer the same way.
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
  readonly done: Promise<CompletionOutcome>;
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
  signal: CancelSignal;
  ready: () => Promise<void> | null;
  /** Receives the visible answer as it is produced and the run's phase and live-input events. */
  onEmit?: (event: CompletionEmitted | AnswerFragment) => void;
  /** The client reads the answer as it comes (a non-streaming one lets backends answer in one piece). */
  streaming: boolean;
  /** Settles once per ref, across restarts (a background response re-run after a crash). */
  settleRef?: string;
  /** How long the finished run stays reachable by id (default {@link COMPLETION_GRACE_MS}; 0: forgotten at once). */
  graceMs?: number;
  /** Writes committed with the charge, given the outcome priced (see `ChatCall.persist`). */
  alsoWrite?: (outcome: CompletionOutcome) => void;
}

/** One way a completion runs: the live parts of its handle, and the run itself, ending in an unpriced outcome. */
interface Run extends Omit<CompletionHandle, 'done'> {
  /** Starts the run; resolves with how it ended (a backend failure is a `failed` outcome, not a rejection). */
  start(): Promise<CompletionOutcome>;
  done: Promise<CompletionOutcome>;
}

/**
 * Starts a completion: holds the worst case (402 before anything runs when it does not fit), runs
 * it (a direct function for simple one-pass requests, the completion machine where passes, live
 * input between them and review buy something; never both), and settles when it ends: completed
 * and cancelled runs are charged their processed tokens (`completionBill`), failed runs nothing.
 * The run is reachable by id while it runs and, as a small record, for a grace period after.
 */
export function startCompletion(input: CompletionStart): CompletionHandle {
  const { plan, registry, signal } = input;
  const run: Run = plan.depth === 'complex' || plan.passes.length !== 1 ? new MachineRun(input) : new DirectRun(input);
  const how = { model: input.request.model, depth: plan.depth };
  const charged = chargedWork(
    input.billing,
    {
      payer: input,
      hold: chatPriceMicros(plan.worstCase),
      bill: (outcome) => completionBill(outcome, how),
      ...(input.settleRef !== undefined && { ref: input.settleRef }),
      ...(input.alsoWrite && {
        alsoWrite: (outcome: CompletionOutcome, charged: { micros: number }) => {
          outcome.priceMicros = charged.micros;
          input.alsoWrite!(outcome);
        },
      }),
    },
    () => run.start(),
  );
  const onAbort = () => run.cancel('client disconnected');
  run.done = charged.then(
    ({ result, micros }) => {
      signal.removeEventListener('abort', onAbort);
      result.priceMicros = micros;
      const graceMs = input.graceMs ?? COMPLETION_GRACE_MS;
      if (graceMs > 0) {
        const { name, liveInputs } = run.state();
        const kept = liveInputs.length === 0 ? NO_LIVE_INPUTS : liveInputs;
        registry.retire(input.id, graceMs, new FinishedCompletion(name, kept));
      } else registry.retire(input.id, 0);
      return result;
    },
    (err: unknown) => {
      signal.removeEventListener('abort', onAbort);
      registry.retire(input.id, 0);
      throw err;
    },
  );
  registry.add<CompletionHandle>({ id: input.id, machine: COMPLETION_MACHINE, ownerId: input.accountId, handle: run });
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return run;
}

/** What a finished completion leaves in the registry for its grace: its final state, nothing of its run. */
class FinishedCompletion implements CompletionHandle {
  constructor(
    private readonly name: string,
    private readonly liveInputs: readonly LiveInput[],
  ) {}

  state(): CompletionState {
    return { name: this.name, active: false, phase: null, liveInputs: this.liveInputs };
  }

  liveInput(): number {
    throw new Error('the completion has finished');
  }

  cancel(): void {}

  partial(): readonly string[] {
    return NO_TEXT;
  }

  /** Settled long ago: what it was charged is in the ledger, not here. */
  get done(): Promise<CompletionOutcome> {
    return Promise.resolve(outcomeOf(this.name as CompletionOutcome['status'], [], NO_USAGE));
  }
}

const NO_TEXT: readonly string[] = Object.freeze([]);
/** No live input: shared, never mutated (a direct run's first input replaces it with the run's own list). */
const NO_LIVE_INPUTS: readonly LiveInput[] = Object.freeze([]);

/** The completion machine: planning, drafting, review and live input between passes. */
class MachineRun implements Run {
  done!: Promise<CompletionOutcome>;
  private readonly port: CompletionPort;
  private readonly actor: CompletionActor;

  constructor(input: CompletionStart) {
    this.port = {
      backend: input.backend,
      base: backendBase(input.request, true),
      ready: input.ready,
      relay: input.onEmit ?? (() => {}),
      partial: [],
    };
    this.actor = createActor(runtimeCompletionMachine, {
      input: {
        id: input.id,
        n: input.request.n,
        conversation: input.conversation,
        plan: input.plan,
        port: this.port,
        preprocessed: input.preprocessed,
      },
    });
    if (input.onEmit) this.actor.on('*', input.onEmit);
  }

  start(): Promise<CompletionOutcome> {
    const { actor } = this;
    const ended = new Promise<CompletionOutcome>((resolve, reject) => {
      actor.subscribe({
        complete: () => {
          const { context, output } = actor.getSnapshot();
          resolve(outcomeOf(output!.status, context.answers, context.usage, context.error, context.cancelReason));
        },
        error: (err) => reject(err instanceof Error ? err : new Error(String(err))),
      });
    });
    actor.start();
    return ended;
  }

  state(): CompletionState {
    const { value, status, context } = this.actor.getSnapshot();
    return {
      name: typeof value === 'string' ? value : 'running',
      active: status === 'active',
      phase: context.pass,
      liveInputs: context.liveInputs,
    };
  }

  liveInput(event: LiveInputEvent): number {
    this.actor.send({ type: 'LIVE_INPUT', ...event });
    return this.actor.getSnapshot().context.liveInputs.length;
  }

  cancel(reason: string | null): void {
    this.actor.send({ type: 'CANCEL', reason, partial: this.port.partial.slice() });
  }

  partial(): readonly string[] {
    return this.port.partial;
  }
}

/**
 * A simple request's one answering pass as a direct function: no actor, no transitions, the same
 * rules as the machine (`completion.ts`: the `answer` phase, live input recorded and announced,
 * cancel billing what the pass had processed, failure charging nothing). A class, so an open
 * stream holds one object and its methods live on the prototype instead of a closure per method per run.
 */
class DirectRun implements Run {
  done!: Promise<CompletionOutcome>;
  private name = 'running';
  private cancelReason: string | null = null;
  private liveInputs: readonly LiveInput[] = NO_LIVE_INPUTS;
  /** Text pieces received (all choices). */
  private pieces = 0;
  /** What the backend's call listens on: a CancelSource, no EventTarget (the run is rarely cancelled). */
  private readonly stop = new CancelSource();
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
  }

  start(): Promise<CompletionOutcome> {
    this.input.onEmit?.({ type: 'phase', phase: 'answer' });
    const running =
      this.texts.length === 1
        ? this.runChoice(0).then((answer) => [answer])
        : Promise.all(this.texts.map((_, choice) => this.runChoice(choice)));
    return running.then(
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
      signal: this.stop,
    };
    return collectAnswer(input.backend.stream(request), this.stop, (event) => this.fragment(choice, event));
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
    const usage = answers.reduce((sum, answer) => addUsage(sum, answer.usage), this.input.preprocessed);
    return outcomeOf('completed', answers, usage);
  }

  private failed(err: unknown): CompletionOutcome {
    if (this.cancelReason !== null) return this.cancelled();
    this.name = 'failed';
    return outcomeOf('failed', [], this.input.preprocessed, toPassFailure(err));
  }

  private cancelled(): CompletionOutcome {
    this.name = 'cancelled';
    const { usage, answers } = cutShort(
      'answer',
      this.texts.map(() => this.messages),
      this.texts,
    );
    return outcomeOf('cancelled', answers!, addUsage(this.input.preprocessed, usage), null, this.cancelReason);
  }

  state(): CompletionState {
    const running = this.name === 'running';
    return { name: this.name, active: running, phase: running ? 'answer' : null, liveInputs: this.liveInputs };
  }

  liveInput(event: LiveInputEvent): number {
    const inputs = this.liveInputs === NO_LIVE_INPUTS ? [] : (this.liveInputs as LiveInput[]);
    inputs.push(liveInputEntry(inputs, event));
    this.liveInputs = inputs;
    this.input.onEmit?.({ type: 'live_input', seq: inputs.length });
    return inputs.length;
  }

  cancel(reason: string | null): void {
    if (this.name !== 'running' || this.cancelReason !== null) return;
    this.cancelReason = reason ?? 'cancelled by client';
    this.stop.abort(new Error('cancelled'));
  }

  partial(): readonly string[] {
    return this.texts;
  }
}
