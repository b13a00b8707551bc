import type { Logger } from '../../runtime/logger.js';
import type { Hold } from '../billing/ledger.js';
import type { AudioBilling, AudioBill, AudioPayer } from './audio-billing.js';
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

/** What a charged stream needs: its audio, its hold and bill, and who pays. */
export interface ChargedStreamInput {
  encoded: AsyncIterable<Buffer>;
  contentType: string;
  hold: Hold;
  bill: AudioBill;
  payer: AudioPayer;
  /** The ledger's word for it (`speech`, `music`) and the model billed. */
  what: string;
  model: string;
  billing: AudioBilling;
  logger: Logger;
  signal: AbortSignal;
}

/**
 * Waits for the first encoded bytes (an engine failing before them releases the hold and throws
 * the upstream error), then hands the rest on, settling the charge once at the end.
 */
export async function startChargedStream(input: ChargedStreamInput): Promise<AudioStream> {
  const iterator = input.encoded[Symbol.asyncIterator]();
  let first: IteratorResult<Buffer>;
  try {
    first = await iterator.next();
  } catch (err) {
    input.billing.release(input.hold);
    throw engineFailure(err, input.signal);
  }
  return { contentType: input.contentType, bill: input.bill, chunks: relay(first, iterator, input) };
}

async function* relay(
  first: IteratorResult<Buffer>,
  iterator: AsyncIterator<Buffer>,
  input: ChargedStreamInput,
): AsyncGenerator<Buffer, void, undefined> {
  const { billing, hold, payer, bill } = input;
  let failed = false;
  try {
    for (let step = first; !step.done; step = await iterator.next()) yield step.value;
  } catch (err) {
    // A client that left after its first bytes is charged below; an engine failure is not.
    if (!input.signal.aborted) {
      failed = true;
      billing.release(hold);
      input.logger.warn(`${input.what} engine failed mid-stream`, { request_id: payer.requestId, err });
      throw engineFailure(err, input.signal);
    }
  } finally {
    if (!failed) {
      await iterator.return?.().catch(() => undefined);
      await billing.settle(hold, payer, bill, input.what, input.model);
    }
  }
}
