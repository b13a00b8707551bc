import { createHash } from 'node:crypto';
import type { AudioEngines } from '../../backends/audio-engines.js';
import { PCM16_SAMPLE_RATE } from '../../backends/speech.js';
import { UnreadableMediaError } from '../../backends/unreadable-media-error.js';
import {
  stripBase64DataUrl,
  VOICE_SAMPLE_MAX_SECONDS,
  VOICE_SAMPLE_MIN_SECONDS,
  VOICE_SAMPLES_MAX_BYTES,
  type VoiceCloneRequest,
  type VoiceListQuery,
} from '../../protocols/audio.js';
import { IdempotencyKeySchema } from '../../protocols/chat-session.js';
import { ApiError } from '../../protocols/errors.js';
import { MOVING_MODEL_ID } from '../../protocols/models.js';
import { VOICE_CLONE_FEE_MICROS } from '../../protocols/pricing.js';
import { fieldError } from '../../protocols/validation.js';
import type { BlobStore } from '../../runtime/blobs/blob-store.js';
import type { Clock } from '../../runtime/clock.js';
import { IdempotencyKeys, IdempotencyMismatch } from '../../runtime/idempotency.js';
import { newId } from '../../runtime/ids.js';
import type { Store } from '../../runtime/store/store.js';
import { AudioBilling, type AudioBill, type AudioPayer } from './audio-billing.js';
import { decodeUpload, engineFailure } from './audio-errors.js';
import type { VoicePage, VoiceRecord, VoiceRepo } from './voice-repo.js';

/** One clone request: who asks, the validated body, an Idempotency-Key if any, and the request's lifetime. */
export interface VoiceCloneCall extends AudioPayer {
  request: VoiceCloneRequest;
  idempotencyKey?: string | undefined;
  signal: AbortSignal;
}

/** A clone's outcome: the voice, its bill (nothing on a replay) and whether it was replayed. */
export interface VoiceCloneResult {
  voice: VoiceRecord;
  bill: AudioBill;
  replayed: boolean;
}

/** What voice cloning runs on. */
export interface VoiceServiceOptions {
  engines: AudioEngines;
  billing: AudioBilling;
  blobs: BlobStore;
  voices: VoiceRepo;
  store: Store;
  clock: Clock;
}

/**
 * Voice cloning (spec 2.12): the samples are decoded (each 1 to 60 s), the premium engine's cloner
 * measures them, and the voice is stored as the account's, usable as `voice` with the premium
 * backend. A flat fee per clone from the tariff, held before the cloner runs and charged once; an
 * Idempotency-Key makes a retried clone a replay, not a second fee. Another account's voice is 404.
 */
export class VoiceService {
  private readonly idempotency: IdempotencyKeys;

  constructor(private readonly options: VoiceServiceOptions) {
    this.idempotency = new IdempotencyKeys(options.store, 'voice_idempotency');
  }

  /** Clones a voice (or replays the clone an Idempotency-Key already made). */
  async create(call: VoiceCloneCall): Promise<VoiceCloneResult> {
    if (call.idempotencyKey === undefined)
      return { voice: await this.clone(newId('voice'), call), bill: this.bill(), replayed: false };
    const key = IdempotencyKeySchema.safeParse(call.idempotencyKey);
    if (!key.success)
      throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 characters.', {
        param: 'Idempotency-Key',
      });
    const bodyHash = createHash('sha256').update(JSON.stringify(call.request)).digest('hex');
    try {
      const result = await this.idempotency.run([call.accountId, key.data], bodyHash, {
        newId: () => newId('voice'),
        replay: (id) => this.options.voices.get(call.accountId, id),
        create: (id) => this.clone(id, call),
      });
      return {
        voice: result.value,
        bill: result.replayed ? { ...this.bill(), costMicros: 0, priceMicros: 0, units: 0 } : this.bill(),
        replayed: result.replayed,
      };
    } catch (err) {
      if (!(err instanceof IdempotencyMismatch)) throw err;
      throw new ApiError(
        'conflict',
        'This Idempotency-Key was already used with a different request body; use a new key.',
        { param: 'Idempotency-Key' },
      );
    }
  }

  /** The account's voice; 404 otherwise. */
  get(accountId: string, voiceId: string): VoiceRecord {
    const voice = this.options.voices.get(accountId, voiceId);
    if (!voice) throw notFound(voiceId);
    return voice;
  }

  /** A page of the account's voices, newest first; a cursor that is not one of its voices is a 404. */
  list(accountId: string, query: VoiceListQuery): VoicePage {
    const page = this.options.voices.list(accountId, query.limit, query.after);
    if (!page) throw new ApiError('not_found', `No voice ${query.after} to list after.`, { param: 'after' });
    return page;
  }

  /** Deletes the account's voice; 404 otherwise. */
  async delete(accountId: string, voiceId: string): Promise<void> {
    if (!(await this.options.voices.remove(accountId, voiceId))) throw notFound(voiceId);
  }

  private bill(): AudioBill {
    const clone = this.options.engines.voiceClone;
    return {
      costMicros: clone.costMicros,
      priceMicros: VOICE_CLONE_FEE_MICROS,
      backend: 'premium',
      engine: clone.backend.name,
      unit: 'clones',
      units: 1,
    };
  }

  private async clone(id: string, call: VoiceCloneCall): Promise<VoiceRecord> {
    const bill = this.bill();
    // Refuse an account that cannot pay the fee before decoding anything.
    this.options.billing.assertCanPay(call, bill.priceMicros);
    const samples = await this.decodeSamples(call);
    const { engines, billing, voices, clock } = this.options;
    return billing.charge(call, bill, 'voice clone', MOVING_MODEL_ID, async () => {
      let made;
      try {
        made = await engines.voiceClone.backend.clone({
          name: call.request.name,
          samples: samples.map((sample) => sample.pcm),
          signal: call.signal,
          metadata: call.request.metadata ?? null,
        });
      } catch (err) {
        if (err instanceof UnreadableMediaError) throw fieldError(['body', 'samples'], err.message);
        throw engineFailure(err, call.signal);
      }
      const record: VoiceRecord = {
        id,
        accountId: call.accountId,
        name: call.request.name,
        description: call.request.description,
        engine: made.engine,
        profile: { ...made.profile },
        samples: samples.length,
        sampleSeconds: Math.round(samples.reduce((sum, sample) => sum + sample.seconds, 0) * 1000) / 1000,
        metadata: call.request.metadata ?? null,
        createdAt: clock.now(),
      };
      await voices.put(record);
      return record;
    });
  }

  /** Each sample decoded to PCM16 mono 24 kHz; 422 naming the sample that does not decode or is too short or long. */
  private async decodeSamples(call: VoiceCloneCall): Promise<{ pcm: Buffer; seconds: number }[]> {
    const raw = call.request.samples.map((sample) => Buffer.from(stripBase64DataUrl(sample), 'base64'));
    const total = raw.reduce((sum, bytes) => sum + bytes.length, 0);
    if (total > VOICE_SAMPLES_MAX_BYTES)
      throw new ApiError('payload_too_large', `The samples exceed ${VOICE_SAMPLES_MAX_BYTES} bytes together.`, {
        param: 'samples',
      });
    const decoded: { pcm: Buffer; seconds: number }[] = [];
    for (const [index, bytes] of raw.entries()) {
      if (bytes.length === 0) throw fieldError(['body', 'samples', index], 'the sample is empty');
      const writer = await this.options.blobs.writer();
      try {
        await writer.write(bytes);
        const audio = await decodeUpload(
          this.options.engines.codec,
          await writer.readablePath(),
          { sampleRate: PCM16_SAMPLE_RATE, maxSeconds: VOICE_SAMPLE_MAX_SECONDS, signal: call.signal },
          ['samples', index],
        );
        if (audio.exceeded)
          throw fieldError(['body', 'samples', index], `the sample is longer than ${VOICE_SAMPLE_MAX_SECONDS} seconds`);
        if (audio.seconds < VOICE_SAMPLE_MIN_SECONDS)
          throw fieldError(
            ['body', 'samples', index],
            `the sample is shorter than ${VOICE_SAMPLE_MIN_SECONDS} second (${audio.seconds.toFixed(2)} s)`,
          );
        decoded.push({ pcm: audio.pcm, seconds: audio.seconds });
      } finally {
        await writer.abort();
      }
    }
    return decoded;
  }
}

function notFound(voiceId: string): ApiError {
  return new ApiError('not_found', `No voice ${voiceId}.`, { param: 'voice_id' });
}
