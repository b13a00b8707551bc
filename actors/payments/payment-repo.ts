import type { Clock } from '../../runtime/clock.js';
import type { Store, Table } from '../../runtime/store/store.js';
import type { AccountRepo } from '../accounts/account-repo.js';
import type { Ledger } from '../billing/ledger.js';
import type { LedgerEntry } from '../billing/ledger-types.js';
import { applyReversalFact, readReversalState, type ReversalFact, type TopUpDispute } from './top-up-reversal.js';

/** A provider event the service has handled, by the provider's event id. */
export interface ProcessedEvent {
  kind: string;
  receivedAt: number;
  /** What came of it: `credited`, `duplicate_checkout`, `applied`, `ignored`, `rejected:<why>`. */
  outcome: string;
}

/** A paid top-up, by the provider's checkout id: what makes a second event for one payment credit nothing. */
export interface TopUpRecord {
  accountId: string;
  eventId: string;
  amountMicros: number;
  entryId: string;
  at: number;
  /** The provider's payment behind it (refunds and disputes name it). */
  paymentIntentId?: string | null;
  /** The highest cumulative refund the provider reported, never past what was credited. */
  refundedMicros?: number;
  /** Each dispute by id (a bare number is the earlier shape, normalised when read: see `readReversalState`). */
  disputes?: Record<string, TopUpDispute | number>;
  /** Paid money taken back so far by refunds and disputes together (absent before it was kept: derived). */
  reversedMicros?: number;
}

/** A refund or a dispute of a paid top-up, as the webhook hands it over. */
export type Reversal = ReversalFact & { eventId: string; paymentIntentId: string };

/** What a refund or dispute event did: `micros` moved out of the balance (negative: given back). */
export type ReversalOutcome =
  | { kind: 'reversed'; micros: number; accountId: string; entry: LedgerEntry | null }
  | { kind: 'duplicate_event' }
  | { kind: 'unknown_payment' };

/** What a top-up event did. */
export type TopUpOutcome =
  | { kind: 'credited'; entry: LedgerEntry }
  | { kind: 'duplicate_event' }
  | { kind: 'duplicate_checkout' }
  | { kind: 'rejected'; why: string };

/**
 * The payments feature's tables: provider customers by account (and back), handled events,
 * paid top-ups, and each account's current subscription (by our subscription id, and the
 * provider's id to ours).
 */
export class PaymentRepo {
  private readonly customers: Table<string>;
  private readonly customerAccounts: Table<string>;
  readonly events: Table<ProcessedEvent>;
  private readonly topups: Table<TopUpRecord>;
  private readonly topupsByIntent: Table<string>;
  private readonly subscriptionsByProvider: Table<string>;
  private readonly accountSubscriptions: Table<string>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly money: { accounts: AccountRepo; ledger: Ledger },
  ) {
    this.customers = store.table<string>('payment_customers');
    this.customerAccounts = store.table<string>('payment_customer_accounts');
    this.events = store.table<ProcessedEvent>('payment_events');
    this.topups = store.table<TopUpRecord>('payment_topups');
    this.topupsByIntent = store.table<string>('payment_topups_by_intent');
    this.subscriptionsByProvider = store.table<string>('payment_subscriptions_by_provider');
    this.accountSubscriptions = store.table<string>('payment_account_subscriptions');
  }

  /** Resolves once every write committed so far is on disk (not only visible). */
  async durable(): Promise<void> {
    await this.store.flushed;
  }

  /** The provider customer of `accountId`, if one was created. */
  customerOf(accountId: string): string | undefined {
    return this.customers.get(accountId);
  }

  /** The account a provider customer belongs to. */
  accountOfCustomer(customerId: string): string | undefined {
    return this.customerAccounts.get(customerId);
  }

  /** Links a provider customer to an account (the first link wins); resolves with the account's customer. */
  linkCustomer(accountId: string, customerId: string): Promise<string> {
    return this.store.transaction(() => {
      const existing = this.customers.get(accountId);
      if (existing) return existing;
      void this.customers.put(accountId, customerId);
      void this.customerAccounts.put(customerId, accountId);
      return customerId;
    });
  }

  /**
   * Credits a paid top-up exactly once: in one transaction the event id is reserved, the checkout
   * is checked against earlier credits, and the ledger credit, the account's paid total and the
   * top-up record are written. A redelivered event or a second event for the same checkout
   * credits nothing.
   */
  creditTopUp(input: {
    eventId: string;
    checkoutId: string;
    accountId: string;
    amountMicros: number;
    description: string;
    paymentIntentId?: string | null;
  }): Promise<TopUpOutcome> {
    const { accounts, ledger } = this.money;
    return this.store.transaction((): TopUpOutcome => {
      if (this.events.doesExist(input.eventId)) return { kind: 'duplicate_event' };
      const receivedAt = this.clock.now();
      if (this.topups.doesExist(input.checkoutId)) {
        void this.events.put(input.eventId, { kind: 'topup_paid', receivedAt, outcome: 'duplicate_checkout' });
        return { kind: 'duplicate_checkout' };
      }
      const entry = ledger.creditInTransaction(input.accountId, input.amountMicros, input.description);
      if (!entry) {
        void this.events.put(input.eventId, { kind: 'topup_paid', receivedAt, outcome: 'rejected:unknown_account' });
        return { kind: 'rejected', why: 'unknown_account' };
      }
      const account = accounts.get(input.accountId)!;
      accounts.putInTransaction({ ...account, paidMicros: (account.paidMicros ?? 0) + input.amountMicros });
      void this.topups.put(input.checkoutId, {
        accountId: input.accountId,
        eventId: input.eventId,
        amountMicros: input.amountMicros,
        entryId: entry.id,
        at: receivedAt,
        paymentIntentId: input.paymentIntentId ?? null,
      });
      if (input.paymentIntentId) void this.topupsByIntent.put(input.paymentIntentId, input.checkoutId);
      void this.events.put(input.eventId, { kind: 'topup_paid', receivedAt, outcome: 'credited' });
      return { kind: 'credited', entry };
    });
  }

  /**
   * Applies a refund or dispute event exactly once (its id is reserved in the same transaction):
   * the event's fact joins the top-up's record, and the ledger moves by what the record now says
   * should be taken back less what already was (see `applyReversalFact`), so any delivery order of
   * the same events ends at the same balance. The balance may go below zero; the account's paid
   * total (its tier) moves with it.
   */
  reverseTopUp(reversal: Reversal): Promise<ReversalOutcome> {
    const { accounts, ledger } = this.money;
    return this.store.transaction((): ReversalOutcome => {
      if (this.events.doesExist(reversal.eventId)) return { kind: 'duplicate_event' };
      const receivedAt = this.clock.now();
      const checkoutId = this.topupsByIntent.get(reversal.paymentIntentId);
      const record = checkoutId === undefined ? undefined : this.topups.get(checkoutId);
      if (checkoutId === undefined || !record) {
        void this.events.put(reversal.eventId, { kind: reversal.kind, receivedAt, outcome: 'ignored:unknown_payment' });
        return { kind: 'unknown_payment' };
      }
      const { state, micros } = applyReversalFact(readReversalState(record), reversal);
      const what = reversal.kind === 'refund' ? 'refund' : `dispute ${reversal.disputeId} ${reversal.status}`;
      const entry =
        micros === 0 ? null : ledger.reverseInTransaction(record.accountId, micros, `${what} of top-up ${checkoutId}`);
      const account = accounts.get(record.accountId);
      if (entry && account)
        accounts.putInTransaction({ ...account, paidMicros: Math.max(0, (account.paidMicros ?? 0) - micros) });
      void this.topups.put(checkoutId, {
        ...record,
        refundedMicros: state.refundedMicros,
        disputes: state.disputes,
        reversedMicros: state.reversedMicros,
      });
      void this.events.put(reversal.eventId, {
        kind: reversal.kind,
        receivedAt,
        outcome: micros === 0 ? 'nothing_to_reverse' : 'reversed',
      });
      return { kind: 'reversed', micros, accountId: record.accountId, entry };
    });
  }

  /** Records a handled event that moved no money (first record wins); false when it was already recorded. */
  recordEvent(eventId: string, kind: string, outcome: string): Promise<boolean> {
    return this.store.transaction(() => {
      if (this.events.doesExist(eventId)) return false;
      void this.events.put(eventId, { kind, receivedAt: this.clock.now(), outcome });
      return true;
    });
  }

  /** Our subscription id for a provider subscription. */
  subscriptionOfProvider(providerSubscriptionId: string): string | undefined {
    return this.subscriptionsByProvider.get(providerSubscriptionId);
  }

  /** The account's current subscription (our id), ended ones included until a new one starts. */
  currentSubscription(accountId: string): string | undefined {
    return this.accountSubscriptions.get(accountId);
  }

  /** Records a new subscription as the account's current one. */
  linkSubscription(accountId: string, providerSubscriptionId: string, subscriptionId: string): Promise<void> {
    return this.store.transaction(() => {
      void this.subscriptionsByProvider.put(providerSubscriptionId, subscriptionId);
      void this.accountSubscriptions.put(accountId, subscriptionId);
    });
  }
}
