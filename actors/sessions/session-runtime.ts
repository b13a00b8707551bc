import { fromPromise } from 'xstate';
import {
  sessionMachine,
  sessionParks,
  type RunStepInput,
  type SessionContext,
  type SettleInput,
  type StepResult,
} from './session-machine.js';
import type { ChatBackend, ChatBackendRequest, ToolDefinition } from '../../backends/chat-backend.js';
import { chatPriceMicros } from '../../protocols/pricing.js';
import type { Billing } from '../billing/billing.js';
import type { Hold } from '../billing/ledger.js';
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

/**
 * The runtime side of sessions: backend steps, holds and the once-only charge. Holds live in
 * memory by session id; after a restart they are re-placed for sessions that had one.
 */
export class SessionRuntime {
  private readonly holds = new Map<string, Hold>();
  private readonly byCompletion: Table<string>;

  constructor(
    private readonly billing: Billing,
    private readonly backend: ChatBackend,
    store: Store,
    private readonly clock: Clock,
  ) {
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
   * the hold, owned by the caller until the run settles it; null when the session already has one.
   */
  hold(context: Pick<SessionContext, 'id' | 'accountId' | 'tokenId' | 'quote'>, force = false): Hold | null {
    if (this.holds.has(context.id)) return null;
    const hold = this.billing.hold({
      accountId: context.accountId,
      tokenId: context.tokenId,
      amount: context.quote.holdMicros,
      force,
    });
    this.holds.set(context.id, hold);
    return hold;
  }

  /** Gives back a hold its placer no longer needs (spawn or approval failed); another's hold is left alone. */
  release(sessionId: string, hold: Hold | null): void {
    if (!hold) return;
    if (this.holds.get(sessionId) === hold) this.holds.delete(sessionId);
    this.billing.release(hold);
  }

  /** Frees whatever a session that is gone for good still holds (deleted). */
  forget(sessionId: string): void {
    const hold = this.holds.get(sessionId);
    if (hold) this.release(sessionId, hold);
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

  private async settle(input: SettleInput): Promise<{ priceMicros: number }> {
    const hold = this.holds.get(input.sessionId) ?? null;
    this.holds.delete(input.sessionId);
    const failed = input.outcome === 'failed';
    const entry = await this.billing.settle(hold ? [hold] : [], {
      ref: `session:${input.sessionId}`,
      accountId: input.accountId,
      tokenId: input.tokenId,
      cap: hold && !hold.done ? Math.min(hold.amount, input.capMicros) : input.capMicros,
      charge: failed ? 0 : chatPriceMicros(input.usage),
      description: `chat session ${input.sessionId} (${input.outcome})`,
      requestId: null,
      model: input.model,
      promptTokens: failed ? 0 : input.usage.promptTokens,
      completionTokens: failed ? 0 : input.usage.completionTokens,
    });
    return { priceMicros: entry ? -entry.amount : 0 };
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
