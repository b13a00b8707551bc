import { trace } from '@opentelemetry/api';
import { ensureError } from '../../protocols/errors.js';
import type { Billing } from './billing.js';
import type { Hold, LedgerEntry } from './ledger-types.js';

/** Who pays for a piece of work, and the request its ledger entry names. */
export interface Payer {
  accountId: string;
  tokenId: string | null;
  /** Recorded on the ledger entry; null when the work is not an HTTP request's. */
  requestId: string | null;
}

/** What a piece of work is charged (integer micro-USD, capped at what is held) and how its ledger entry reads. */
export interface Bill {
  charge: number;
  description: string;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
}

/** What a settle charged: micro-USD (0 when nothing was) and the ledger entry, if one was written. */
export interface Charged {
  micros: number;
  entryId: string | null;
}

/** How a settle is bounded when the default (at most what is held, charged any number of times) does not fit. */
export interface SettleTerms {
  /** Charges once per ref (a session, a call, a job, an order), across restarts: a re-run charges nothing more. */
  ref?: string;
  /** The most that may be charged; by default what the charge holds. */
  cap?: number;
  /** Writes committed in the charge's own transaction, told what it charged (see `SettleInput.alsoWrite`). */
  alsoWrite?: (charged: Charged) => void;
}

const NOTHING: Charged = Object.freeze({ micros: 0, entryId: null });
const NOTHING_YET: Promise<Charged> = Promise.resolve(NOTHING);

const chargedOf = (entry: LedgerEntry | null): Charged =>
  entry ? { micros: -entry.amount, entryId: entry.id } : NOTHING;

/**
 * Money held for one piece of work and ended exactly once: `settle` charges its bill (never above
 * the hold) and lets the rest go, `release` charges nothing. Whichever comes first wins; a second
 * settle returns the first one's result and a release after either is a no-op, so nothing is
 * charged twice and no hold outlives its work. It may hold more than once (a call topping up), and
 * nothing at all (a durable actor settling by reference after a restart that lost its holds).
 */
export class OpenCharge {
  private readonly holds: Hold[] = [];
  private ended: Promise<Charged> | null = null;

  constructor(
    private readonly billing: Billing,
    /** Who pays, and the request the entry names. */
    readonly payer: Payer,
  ) {}

  /** Holds `amount` more (402 when it does not fit; `force` re-places a hold granted before a restart). */
  hold(amount: number, force = false): this {
    if (this.ended) throw new Error('a charge that ended holds nothing more');
    const { accountId, tokenId } = this.payer;
    this.holds.push(this.billing.hold({ accountId, tokenId, amount, force }));
    return this;
  }

  /** What it holds now, in micro-USD (0 once it ended). */
  get held(): number {
    let sum = 0;
    for (const hold of this.holds) if (!hold.done) sum += hold.amount;
    return sum;
  }

  /** Whether it has neither settled nor released yet. */
  get open(): boolean {
    return this.ended === null;
  }

  /** Charges `bill` (capped at `terms.cap`, by default what is held) and lets the holds go, once. */
  settle(bill: Bill, terms?: SettleTerms): Promise<Charged> {
    if (this.ended) return this.ended;
    const { accountId, tokenId, requestId } = this.payer;
    // The request's span (tracing on), named now: the settle resolves outside its context.
    const span = trace.getActiveSpan();
    this.ended = this.billing
      .settle(this.holds, {
        charge: bill.charge,
        description: bill.description,
        requestId,
        model: bill.model,
        promptTokens: bill.promptTokens,
        completionTokens: bill.completionTokens,
        accountId,
        tokenId,
        ref: terms?.ref,
        cap: terms?.cap,
        ...(terms?.alsoWrite && { alsoWrite: (entry: LedgerEntry | null) => terms.alsoWrite!(chargedOf(entry)) }),
      })
      .then((entry) => {
        const charged = chargedOf(entry);
        span?.setAttribute('svc.charge_micro_usd', charged.micros);
        return charged;
      });
    return this.ended;
  }

  /** Gives the holds back, charging nothing; a no-op once it ended. */
  release(): void {
    if (this.ended) return;
    this.ended = NOTHING_YET;
    for (const hold of this.holds) this.billing.release(hold);
  }
}

/** Opens a charge holding `amount` for `payer`'s work (402 `insufficient_balance` when it does not fit). */
export function holdFor(billing: Billing, payer: Payer, amount: number): OpenCharge {
  return new OpenCharge(billing, payer).hold(amount);
}

/** Work at a price known before it ran (a cached answer): hold exactly the bill (402 when it does not fit), then charge it. */
export function chargeNow(billing: Billing, payer: Payer, bill: Bill): Promise<Charged> {
  return holdFor(billing, payer, bill.charge).settle(bill);
}

/** How a piece of work is billed: who pays, the worst case held before it starts, and its charge once it ended. */
export interface ChargedWorkTerms<T> {
  payer: Payer;
  /** The worst case in micro-USD, held before the work starts (402 when it does not fit). */
  hold: number;
  /** The charge of work that ended with `result` (completed, or cancelled: what it produced); null releases the hold. */
  bill(result: T): Bill | null;
  /**
   * The charge of work that threw `err`, when what it had produced is still billed (the client left
   * mid-work); by default nothing: a failure releases the hold.
   */
  billFailure?(err: unknown): Bill | null;
  /** Settles once per ref across restarts (durable work that re-runs after a crash); none by default. */
  ref?: string;
  /**
   * Writes committed in the same transaction as the charge of work that ended with `result` (not
   * when the hold is released): what the answer names is durable exactly when its charge is.
   */
  alsoWrite?(result: T, charged: Charged): void;
}

/** What charged work produced, and what it was charged. */
export interface ChargedResult<T> {
  result: T;
  micros: number;
}

/**
 * The lifecycle every billable request repeats: hold the worst case (throws 402 before any work
 * starts when it does not fit), run `work`, then settle what `bill` says it costs (capped at the
 * hold) or release the hold when it says nothing is owed; when the work throws, release (or settle
 * what `billFailure` says was produced) and rethrow. The charge is committed before the promise
 * resolves, so a price stated on an answer is already in the ledger.
 */
export function chargedWork<T>(
  billing: Billing,
  terms: ChargedWorkTerms<T>,
  work: () => Promise<T>,
): Promise<ChargedResult<T>> {
  const charge = holdFor(billing, terms.payer, terms.hold);
  let running: Promise<T>;
  try {
    running = work();
  } catch (err) {
    running = Promise.reject(ensureError(err));
  }
  return running.then(
    async (result) => {
      const alsoWrite = terms.alsoWrite && ((charged: Charged) => terms.alsoWrite!(result, charged));
      return { result, micros: await end(charge, () => terms.bill(result), { ref: terms.ref, alsoWrite }) };
    },
    async (err: unknown) => {
      await end(charge, () => terms.billFailure?.(err) ?? null, { ref: terms.ref });
      throw err;
    },
  );
}

/** Ends `charge` with what `bill` says is owed: settles it, or releases the hold when nothing is (or `bill` throws). */
async function end(charge: OpenCharge, bill: () => Bill | null, terms: SettleTerms): Promise<number> {
  let owed: Bill | null;
  try {
    owed = bill();
  } catch (err) {
    charge.release();
    throw err;
  }
  if (!owed) {
    charge.release();
    return 0;
  }
  return (await charge.settle(owed, terms)).micros;
}

/**
 * Charges that outlive the request that opened them, one per durable actor (a chat session, a
 * realtime call, a video job, an order): opened by the request that starts the actor, re-opened
 * with `force` when the actor is rebuilt after a restart (the money was granted before it), and
 * settled once by reference (`<kind>:<id>`) from the actor's own step, whatever process runs it:
 * a step re-run after a crash charges nothing more. They live in memory: a hold moves no money,
 * so a crash loses nothing.
 */
export class StandingCharges {
  private readonly charges = new Map<string, OpenCharge>();

  constructor(
    private readonly billing: Billing,
    /** What the settle reference names (`session`, `realtime`, `video`, `order`). */
    private readonly kind: string,
  ) {}

  /** The reference `ownerId`'s charge settles under. */
  refOf(ownerId: string): string {
    return `${this.kind}:${ownerId}`;
  }

  /**
   * Opens `ownerId`'s charge holding `amount` (402 when it does not fit; `force` re-places a hold
   * granted before a restart), owned by the caller until the actor settles it; null when it already has one.
   */
  open(ownerId: string, payer: Payer, amount: number, force = false): OpenCharge | null {
    if (this.charges.has(ownerId)) return null;
    const charge = new OpenCharge(this.billing, payer).hold(amount, force);
    this.charges.set(ownerId, charge);
    return charge;
  }

  /** `ownerId`'s open charge, opened empty (holding nothing yet) when it has none. */
  ensure(ownerId: string, payer: Payer): OpenCharge {
    let charge = this.charges.get(ownerId);
    if (!charge) this.charges.set(ownerId, (charge = new OpenCharge(this.billing, payer)));
    return charge;
  }

  /** What `ownerId`'s charge holds now (0 when it has none). */
  held(ownerId: string): number {
    return this.charges.get(ownerId)?.held ?? 0;
  }

  /**
   * Gives back `charge` (its opener no longer needs it: the actor was never made, an approval was
   * not taken), or by default whatever `ownerId` holds; another opener's charge is left alone.
   */
  release(ownerId: string, charge?: OpenCharge | null): void {
    const own = this.charges.get(ownerId);
    const target = charge === undefined ? own : charge;
    if (!target) return;
    if (own === target) this.charges.delete(ownerId);
    target.release();
  }

  /**
   * Settles `ownerId`'s charge once by reference, capped at `cap`: with what it holds, or with no
   * hold at all when none survived a restart (the ledger still charges `payer`, once).
   */
  settle(ownerId: string, payer: Payer, bill: Bill, cap: number): Promise<Charged> {
    const own = this.charges.get(ownerId);
    this.charges.delete(ownerId);
    const charge = own?.open ? own : new OpenCharge(this.billing, payer);
    return charge.settle(bill, { ref: this.refOf(ownerId), cap });
  }
}
