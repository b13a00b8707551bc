import type { EarlyAccessProduct } from '../../protocols/payments.js';
import type { Store, Table } from '../../runtime/store/store.js';

/** How a contact is reached. */
export type WaitlistChannel = 'email' | 'sms';

/** A code sent and not yet confirmed: only its keyed hash is kept. */
export interface PendingCode {
  channel: WaitlistChannel;
  codeHash: string;
  sentAt: number;
  expiresAt: number;
  /** Wrong codes tried against it. */
  attempts: number;
}

/** A confirmed sign-up. */
export interface WaitlistSignup {
  product: EarlyAccessProduct;
  channel: WaitlistChannel;
  /** The normalised contact: a lower-case e-mail or an E.164 number. */
  contact: string;
  confirmedAt: number;
}

/** Waitlist codes and sign-ups, by product and normalised contact. */
export class WaitlistRepo {
  readonly codes: Table<PendingCode>;
  readonly signups: Table<WaitlistSignup>;

  constructor(readonly store: Store) {
    this.codes = store.table<PendingCode>('waitlist_codes');
    this.signups = store.table<WaitlistSignup>('waitlist_signups');
  }

  /** Confirmed sign-ups, newest first, of one product or all. */
  list(product: EarlyAccessProduct | undefined, limit: number): WaitlistSignup[] {
    const range = product === undefined ? {} : { start: [product], end: [product, '\uffff'] };
    const all: WaitlistSignup[] = [];
    for (const { value } of this.signups.getRange(range)) all.push(value);
    return all.sort((a, b) => b.confirmedAt - a.confirmedAt).slice(0, limit);
  }
}
