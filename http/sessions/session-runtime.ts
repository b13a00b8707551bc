import { fromPromise } from 'xstate';
import { sessionMachine, type RunStepInput, type SessionContext, type SettleInput, type StepResult } from '../../actors/session-machine.js';
import type { ChatBackend, ChatBackendRequest, ToolDefinition } from '../../backends/chat-backend.js';
import { chatPriceMicros } from '../../protocols/pricing.js';
import type { AccountServices } from '../../runtime/accounts/account-services.js';
import type { Hold } from '../../runtime/accounts/ledger.js';
import type { ActorRecord, HostedMachine } from '../../runtime/actor-host.js';
import { collectAnswer } from '../chat/collect-answer.js';
import type { Clock } from '../../runtime/clock.js';
import type { Store, Table } from '../../runtime/store.js';

/** The name sessions are registered under in the actor host. */
export const SESSION_MACHINE = 'chat-session';

const ASK_USER_TOOL: ToolDefinition = {
  name: 'ask_user',
  description: 'Ask the user one clarifying question when the request cannot be answered well without it.',
  parameters: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
};

/** States in which a session holds money for its run. */
const HOLDING = ['running', 'awaiting_user', 'settling'];

/**
 * The runtime side of sessions: backend steps, holds and the once-only charge. Holds live in
 * memory by session id; after a restart they are re-placed for sessions that had one.
 */
export class SessionRuntime {
  private readonly holds = new Map<string, Hold>();
  private readonly byCompletion: Table<string>;

  constructor(private readonly services: AccountServices, private readonly backend: ChatBackend, store: Store, private readonly clock: Clock) {
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

  /** Holds a session's quote (throws 402 when the balance cannot cover it). */
  hold(context: Pick<SessionContext, 'id' | 'accountId' | 'tokenId' | 'quote'>, force = false): void {
    if (this.holds.has(context.id)) return;
    this.holds.set(context.id, this.services.ledger.hold({ accountId: context.accountId, tokenId: context.tokenId, amount: context.quote.holdMicros, force }));
  }

  /** Gives a session's hold back without charging (spawn failed, deleted). */
  release(sessionId: string): void {
    const hold = this.holds.get(sessionId);
    if (!hold) return;
    this.holds.delete(sessionId);
    this.services.ledger.release(hold);
  }

  private async runStep(input: RunStepInput, signal: AbortSignal): Promise<StepResult> {
    const settings = input.settings as unknown as Omit<ChatBackendRequest, 'messages' | 'maxTokens' | 'choiceIndex' | 'signal'>;
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
    const entry = await this.services.ledger.settleRef(`session:${input.sessionId}`, hold, {
      accountId: input.accountId,
      tokenId: input.tokenId,
      cap: input.capMicros,
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
        const top = typeof snapshot.value === 'string' ? snapshot.value : Object.keys(snapshot.value as object)[0];
        if (top && HOLDING.includes(top)) this.hold(snapshot.context, true);
      },
    };
  }
}
