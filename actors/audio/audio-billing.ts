import {
  mediaPriceMicros,
  AUDIO_RATE_BLOCKS,
  audioCostMicros,
  type AudioRatedModality,
} from '../../protocols/pricing.js';
import type { Billing } from '../billing/billing.js';
import { chargedWork, holdFor, type Bill, type OpenCharge } from '../billing/charged-work.js';

/** Who pays for an audio request, and what the ledger entry says. */
export interface AudioPayer {
  accountId: string;
  tokenId: string | null;
  /** Recorded on the ledger entry; null when the caller is not an HTTP request. */
  requestId: string | null;
}

/** What one audio request costs and is billed: the backend's cost, our price and what they were counted on. */
export interface AudioBill {
  costMicros: number;
  priceMicros: number;
  /** The `backend` value and the engine behind it. */
  backend: string;
  engine: string;
  /** What was counted (`input_characters`, `audio_seconds`, `output_seconds`, `clones`) and how many. */
  unit: string;
  units: number;
}

/**
 * The bill of `units` of a per-unit audio modality at the engine's rate: characters for speech,
 * seconds of audio for the others (counted to the millisecond), cost-plus.
 */
export function unitBill(
  modality: AudioRatedModality,
  units: number,
  engine: { backend: string; engine: string; costMicrosPerBlock: number },
): AudioBill {
  const block = AUDIO_RATE_BLOCKS[modality];
  const costMicros =
    block.unit === 'input_characters'
      ? audioCostMicros(units, engine.costMicrosPerBlock, block.per)
      : audioCostMicros(Math.round(units * 1000), engine.costMicrosPerBlock, block.per * 1000);
  return {
    costMicros,
    priceMicros: mediaPriceMicros(costMicros),
    backend: engine.backend,
    engine: engine.engine,
    unit: block.unit,
    units: Math.round(units * 1000) / 1000,
  };
}

/** The ledger entry of an audio bill: what was made, by which engine, counted in what. */
export function audioLedgerBill(bill: AudioBill, what: string, model: string): Bill {
  return {
    charge: bill.priceMicros,
    description: `${what} (${bill.backend}, ${bill.engine}): ${bill.units} ${bill.unit.replace('_', ' ')}`,
    model,
    promptTokens: 0,
    completionTokens: 0,
  };
}

/**
 * The one money path of the audio feature, on the billing helper: hold the bill's price before an
 * engine runs (402 when it does not fit), then settle exactly that once, or release it when the
 * engine failed.
 */
export class AudioBilling {
  constructor(private readonly billing: Billing) {}

  /** Throws 402 unless a hold of at least `amount` would fit now (before work that precedes the real hold). */
  assertCanPay(payer: AudioPayer, amount: number): void {
    this.billing.assertCanHold(payer.accountId, amount);
  }

  /** Holds the price of audio that streams out (402 `insufficient_balance` when it does not fit); the stream ends the charge. */
  open(payer: AudioPayer, bill: AudioBill): OpenCharge {
    return holdFor(this.billing, payer, bill.priceMicros);
  }

  /** Holds, runs `work`, settles the bill when it succeeds and releases the hold when it throws. */
  async charge<T>(payer: AudioPayer, bill: AudioBill, what: string, model: string, work: () => Promise<T>): Promise<T> {
    const charged = await chargedWork(
      this.billing,
      { payer, hold: bill.priceMicros, bill: () => audioLedgerBill(bill, what, model) },
      work,
    );
    return charged.result;
  }
}
