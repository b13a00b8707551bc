import type { Logger } from '../../runtime/logger.js';
import type { OpenCharge } from '../billing/charged-work.js';
import { audioLedgerBill, type AudioBill, type AudioPayer } from './audio-billing.js';
import { engineFailure } from './audio-errors.js';

/** Audio being produced: its type and bill (known before the first byte) and its bytes as they come. */
export interface AudioStream {
  contentType: string;
  bill: AudioBill;
  /**
   * The encoded audio, the first chunk already made. Running it to the end settles the charge;
   * stopping after the first chunk (the client left) also charges it, as the audio was asked
   * for and made. An engine failing mid-way throws an upstream ApiError and charges nothing.
   */
  chunks: AsyncIterable<Buffer>;
}

/** What a charged stream needs: its audio, its open charge and bill, and who pays. */
export interface ChargedStreamInput {
  /** Starts the engine and encoder (called once, after the hold). */
  encode: () => AsyncIterable<Buffer>;
  contentType: string;
  charge: OpenCharge;
  bill: AudioBill;
  payer: AudioPayer;
  /** The ledger's word for it (`speech`, `music`) and the model billed. */
  what: string;
  model: string;
  logger: Logger;
  signal: AbortSignal;
}

/**
 * Waits for the first encoded bytes (an engine failing before them releases the hold and throws
 * the upstream error), then hands the rest on, settling the charge once at the end. Not
 * `chargedWork`: the work is the client reading the stream, which ends in the relay's `finally`
 * (a client gone after the first bytes still pays) rather than in a promise to await before
 * answering, so the stream ends its own charge.
 */
export async function startChargedStream(input: ChargedStreamInput): Promise<AudioStream> {
  let first: IteratorResult<Buffer>;
  let iterator: AsyncIterator<Buffer>;
  try {
    iterator = input.encode()[Symbol.asyncIterator]();
    first = await iterator.next();
  } catch (err) {
    input.charge.release();
    throw engineFailure(err, input.signal);
  }
  return { contentType: input.contentType, bill: input.bill, chunks: relay(first, iterator, input) };
}

async function* relay(
  first: IteratorResult<Buffer>,
  iterator: AsyncIterator<Buffer>,
  input: ChargedStreamInput,
): AsyncGenerator<Buffer, void, undefined> {
  const { charge, payer, bill } = input;
  let failed = false;
  try {
    for (let step = first; !step.done; step = await iterator.next()) yield step.value;
  } catch (err) {
    // A client that left after its first bytes is charged below; an engine failure is not.
    if (!input.signal.aborted) {
      failed = true;
      charge.release();
      input.logger.warn(`${input.what} engine failed mid-stream`, { request_id: payer.requestId, err });
      throw engineFailure(err, input.signal);
    }
  } finally {
    if (!failed) {
      await iterator.return?.().catch(() => undefined);
      await charge.settle(audioLedgerBill(bill, input.what, input.model));
    }
  }
}
