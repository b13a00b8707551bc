import { fromPromise } from 'xstate';
import { realtimeCallMachine, type SettleCallInput } from '../../actors/realtime-call-machine.js';
import { realtimePriceMicros, type RealtimeUsage } from '../../protocols/pricing.js';
import type { AccountServices } from '../../runtime/accounts/account-services.js';
import type { Hold } from '../../runtime/accounts/ledger.js';
import type { ActorHost, ActorRecord, HostedMachine } from '../../runtime/actor-host.js';

/** The name calls are registered under in the actor host. */
export const CALL_MACHINE = 'realtime-call';

/** The least a call may start with: below it, the ticket and the upgrade answer 402. */
export const MIN_CALL_HOLD_MICROS = 10_000;

/**
 * The money side of calls: the holds behind each open call (in memory, by call id; grown in
 * steps while the call runs) and the once-only charge when it closes. A call brought back after a
 * restart has no socket any more: `closeOrphans` closes it, charging what it had used.
 */
export class CallRuntime {
  private readonly holds = new Map<string, Hold[]>();
  private readonly orphans: string[] = [];

  constructor(private readonly services: AccountServices, private readonly holdStepMicros: number) {}

  /** Holds the opening amount for a new call: the step, or what is available if less (402 below the minimum). */
  open(callId: string, accountId: string, tokenId: string | null): number {
    const state = this.services.ledger.state(accountId);
    const available = Math.max(0, state.balance - state.held);
    const amount = Math.min(this.holdStepMicros, available);
    if (amount < MIN_CALL_HOLD_MICROS) this.services.ledger.assertCanHold(accountId, MIN_CALL_HOLD_MICROS);
    this.holds.set(callId, [this.services.ledger.hold({ accountId, tokenId, amount })]);
    return amount;
  }

  /** Whether a call may start (enough available for the minimum hold); throws 402 otherwise. */
  assertCanOpen(accountId: string): void {
    this.services.ledger.assertCanHold(accountId, MIN_CALL_HOLD_MICROS);
  }

  /** Total held for a call. */
  held(callId: string): number {
    return (this.holds.get(callId) ?? []).reduce((sum, hold) => sum + hold.amount, 0);
  }

  /**
   * Makes sure `needed` micro-USD are held for the call, holding another step (or what is left)
   * when not. Returns the new total, or null when the balance cannot cover `needed`.
   */
  ensureHeld(callId: string, accountId: string, tokenId: string | null, needed: number): number | null {
    const held = this.held(callId);
    if (needed <= held) return held;
    const state = this.services.ledger.state(accountId);
    const available = Math.max(0, state.balance - state.held);
    if (held + available < needed) return null;
    const amount = Math.min(available, Math.max(needed - held, this.holdStepMicros));
    const holds = this.holds.get(callId) ?? [];
    holds.push(this.services.ledger.hold({ accountId, tokenId, amount }));
    this.holds.set(callId, holds);
    return held + amount;
  }

  private async settle(input: SettleCallInput): Promise<{ micros: number; entryId: string | null }> {
    const holds = this.holds.get(input.callId) ?? [];
    this.holds.delete(input.callId);
    const usage: RealtimeUsage = input.usage;
    const price = Math.min(realtimePriceMicros(usage), input.capMicros);
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    const entry = await this.services.ledger.settleRef(`realtime:${input.callId}`, null, {
      accountId: input.accountId,
      tokenId: input.tokenId,
      cap: input.capMicros,
      charge: price,
      description: `realtime call ${input.callId}: ${seconds(usage.audioInMs)} s in, ${seconds(usage.audioOutMs)} s out`,
      requestId: input.callId,
      model: null,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
    });
    // The charge is committed (or was, before a restart): only now may the holds stop counting.
    for (const hold of holds) this.services.ledger.release(hold);
    return { micros: entry ? -entry.amount : 0, entryId: entry?.id ?? null };
  }

  /** Closes every call that was open when the process stopped; run once the host has rehydrated. */
  async closeOrphans(host: ActorHost, at: number): Promise<number> {
    const ids = this.orphans.splice(0);
    await Promise.all(ids.map((id) => host.send(id, { type: 'DISCONNECT', at })));
    return ids.length;
  }

  /** The call machine with its settle step, for the host. */
  hosted(): HostedMachine {
    return {
      name: CALL_MACHINE,
      logic: realtimeCallMachine.provide({
        actors: { settle: fromPromise<{ micros: number; entryId: string | null }, SettleCallInput>(({ input }) => this.settle(input)) },
      }),
      onRehydrate: (record: ActorRecord) => {
        this.orphans.push(record.id);
      },
    };
  }
}
