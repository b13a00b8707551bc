import { fromPromise } from 'xstate';
import { sessionMachine } from './session-machine.js';
import { sessionParks } from './session-states.js';
import type { RunStepInput, SessionContext, SettleInput, StepResult } from './session-types.js';
import type { ChatBackend, ChatBackendRequest, ToolDefinition } from '../../backends/chat-backend.js';
import { chatPriceMicros } from '../../protocols/pricing.js';
import type { Billing } from '../billing/billing.js';
import { StandingCharges, type OpenCharge, type Payer } from '../billing/charged-work.js';
import type { ActorRecord, HostedMachine } from '../../runtime/host/actor-host.js';
import { collectAnswer } from '../chat/collect-answer.js';
import type { Clock } from '../../runtime/clock.js';
import type { Store, Table } from '../../runtime/store/store.js';

/** The name sessions are registered under in the actor host. */
export const SESSION_MACHINE = 'chat-session';

const ASK_USER_TOOL: ToolDefinition = {
  name: 'ask_user',
  description: 'Ask the user one clarifying question when the request cannot be answered well without it.',
  parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
};

/** States in which a session holds money for its run. */
const HOLDING = ['running', 'awaiting_user', 'settling'];

/** The top-level state of a persisted state value. */
const topState = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : Object.keys(value as object)[0];

/** Who pays for a session's run (no request: the run outlives the one that started it). */
const payerOf = (context: Pick<SessionContext, 'accountId' | 'tokenId'>): Payer => ({
  accountId: context.accountId,
  tokenId: context.tokenId,
  requestId: null,
});

/**
 * The runtime side of sessions: backend steps, holds and the once-only charge. A session's hold
 * outlives the request that placed it (the run settles it from its own step, after a restart too),
 * so it is a standing charge rather than `chargedWork`: in memory by session id, re-placed with
 * `force` after a restart for sessions that had one, settled once by reference.
 */
export class SessionRuntime {
  private readonly charges: StandingCharges;
  private readonly byCompletion: Table<string>;

  constructor(
    billing: Billing,
    private readonly backend: ChatBackend,
    store: Store,
    private readonly clock: Clock,
  ) {
    this.charges = new StandingCharges(billing, 'session');
    this.byCompletion = store.table<string>('session_by_completion');
  }

  /** Remembers which session a completion id belongs to, so the completion routes reach it. */
  indexCompletion(completionId: string, sessionId: string): Promise<boolean> {
    return this.byCompletion.put(completionId, sessionId);
  }

  /** The session whose run has completion id `completionId`, if any. */
  sessionOfCompletion(completionId: string): string | undefined {
    return this.byCompletion.get(completionId);
  }

  /**
   * Holds a session's quote for its run (throws 402 when the balance cannot cover it) and returns
   * the charge, owned by the caller until the run settles it; null when the session already has one.
   */
  hold(context: Pick<SessionContext, 'id' | 'accountId' | 'tokenId' | 'quote'>, force = false): OpenCharge | null {
    return this.charges.open(context.id, payerOf(context), context.quote.holdMicros, force);
  }

  /** Gives back a charge its opener no longer needs (spawn or approval failed); another's is left alone. */
  release(sessionId: string, charge: OpenCharge | null): void {
    if (charge) this.charges.release(sessionId, charge);
  }

  /** Frees whatever a session that is gone for good still holds (deleted). */
  forget(sessionId: string): void {
    this.charges.release(sessionId);
  }

  private async runStep(input: RunStepInput, signal: AbortSignal): Promise<StepResult> {
    const settings = input.settings as unknown as Omit<
      ChatBackendRequest,
      'messages' | 'maxTokens' | 'choiceIndex' | 'signal'
    >;
    const request: ChatBackendRequest = {
      ...settings,
      tools: input.mayAsk ? [...settings.tools, ASK_USER_TOOL] : settings.tools,
      messages: input.messages,
      maxTokens: input.maxTokens,
      choiceIndex: 0,
      signal,
    };
    return { ...(await collectAnswer(this.backend.stream(request), signal)), at: this.clock.now() };
  }

  /** The run's once-only charge: its processed tokens, capped at its quote (and at what it still holds); a failed run charges nothing. */
  private async settle(input: SettleInput): Promise<{ priceMicros: number }> {
    if (input.outcome === 'failed') {
      this.charges.release(input.sessionId);
      return { priceMicros: 0 };
    }
    const held = this.charges.held(input.sessionId);
    const charged = await this.charges.settle(
      input.sessionId,
      payerOf(input),
      {
        charge: chatPriceMicros(input.usage),
        description: `chat session ${input.sessionId} (${input.outcome})`,
        model: input.model,
        promptTokens: input.usage.promptTokens,
        completionTokens: input.usage.completionTokens,
      },
      held > 0 ? Math.min(held, input.capMicros) : input.capMicros,
    );
    return { priceMicros: charged.micros };
  }

  /** The session machine with this runtime's steps, ready to register with the host. */
  hosted(): HostedMachine {
    return {
      name: SESSION_MACHINE,
      logic: sessionMachine.provide({
        actors: {
          runStep: fromPromise<StepResult, RunStepInput>(({ input, signal }) => this.runStep(input, signal)),
          settleCharge: fromPromise<{ priceMicros: number }, SettleInput>(({ input }) => this.settle(input)),
        },
      }),
      onRehydrate: (record: ActorRecord) => {
        const snapshot = record.snapshot as { value: unknown; context: SessionContext };
        const top = topState(snapshot.value);
        if (top && HOLDING.includes(top)) this.hold(snapshot.context, true);
      },
      parks: sessionParks,
    };
  }
}
