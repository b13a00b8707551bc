import type { AudioEngines } from '../../backends/audio-engines.js';
import { PCM16_SAMPLE_RATE } from '../../backends/speech.js';
import {
  stripBase64DataUrl,
  TRANSCRIPTION_MAX_FILE_BYTES,
  TRANSCRIPTION_MAX_SECONDS,
  TRANSCRIPTION_MIN_SECONDS,
  TranscriptionJsonSchema,
  TranscriptionOptionsSchema,
  type TranscriptionOptions,
} from '../../protocols/audio.js';
import { ApiError } from '../../protocols/errors.js';
import { requireModel } from '../../protocols/models.js';
import { fieldError, parseOrThrow } from '../../protocols/validation.js';
import type { BlobStore, BlobWriter } from '../../runtime/blobs/blob-store.js';
import type { BodyStream } from '../files/receive-multipart.js';
import { AudioBilling, unitBill, type AudioBill, type AudioPayer } from './audio-billing.js';
import { decodeUpload, engineFailure } from './audio-errors.js';
import { receiveAudioForm } from './receive-audio-form.js';
import { completeTimings, type TimedTranscript } from './transcript-timing.js';

/** One transcription request: who asks and the request's lifetime. */
export interface TranscriptionCall extends AudioPayer {
  signal: AbortSignal;
}

/** A finished, charged transcription and the options it was asked with (they pick the response format). */
export interface TranscriptionResult {
  transcript: TimedTranscript;
  options: TranscriptionOptions;
  bill: AudioBill;
}

/** What transcription runs on. */
export interface TranscriptionServiceOptions {
  engines: AudioEngines;
  billing: AudioBilling;
  blobs: BlobStore;
}

/**
 * Speech to text (spec 2.9): the file (multipart as the SDK sends it, or base64 in JSON) lands in
 * a temporary blob, ffmpeg decodes it whatever its format, the engine transcribes, and the
 * transcript gets segments and word times. Billed by audio seconds at the engine's rate,
 * cost-plus: held once the length is known and before the engine runs, charged once.
 */
export class TranscriptionService {
  private readonly minimumPrice: number;

  constructor(private readonly options: TranscriptionServiceOptions) {
    const engine = options.engines.transcription;
    this.minimumPrice = unitBill('transcription', TRANSCRIPTION_MIN_SECONDS, {
      backend: 'standard',
      engine: engine.backend.name,
      costMicrosPerBlock: engine.costMicrosPerBlock,
    }).priceMicros;
  }

  /** Transcribes a multipart/form-data upload (`file` and the options as fields). */
  async fromForm(call: TranscriptionCall, body: BodyStream): Promise<TranscriptionResult> {
    // An account that cannot pay for the shortest audio is refused before its upload is read.
    this.options.billing.assertCanPay(call, this.minimumPrice);
    const form = await receiveAudioForm(body, this.options.blobs, TRANSCRIPTION_MAX_FILE_BYTES);
    try {
      return await this.run(call, parseOrThrow(TranscriptionOptionsSchema, form.fields), form.writer);
    } finally {
      await form.writer.abort();
    }
  }

  /** Transcribes the JSON alternative: the file as base64 in `file_data`. */
  async fromJson(call: TranscriptionCall, body: unknown): Promise<TranscriptionResult> {
    const json = parseOrThrow(TranscriptionJsonSchema, body);
    const options = parseOrThrow(TranscriptionOptionsSchema, body);
    this.options.billing.assertCanPay(call, this.minimumPrice);
    const bytes = Buffer.from(stripBase64DataUrl(json.file_data), 'base64');
    if (bytes.length > TRANSCRIPTION_MAX_FILE_BYTES)
      throw new ApiError('payload_too_large', `The audio file exceeds ${TRANSCRIPTION_MAX_FILE_BYTES} bytes.`, {
        param: 'file_data',
      });
    const writer = await this.options.blobs.writer();
    try {
      await writer.write(bytes);
      return await this.run(call, options, writer, 'file_data');
    } finally {
      await writer.abort();
    }
  }

  private async run(
    call: TranscriptionCall,
    options: TranscriptionOptions,
    audio: BlobWriter,
    field = 'file',
  ): Promise<TranscriptionResult> {
    const model = requireModel(options.model);
    if (audio.bytes === 0) throw fieldError(['body', field], 'the audio file is empty');
    const { engines, billing } = this.options;
    const decoded = await decodeUpload(
      engines.codec,
      await audio.readablePath(),
      { sampleRate: PCM16_SAMPLE_RATE, maxSeconds: TRANSCRIPTION_MAX_SECONDS, signal: call.signal },
      [field],
    );
    if (decoded.exceeded)
      throw fieldError(['body', field], `the audio is longer than ${TRANSCRIPTION_MAX_SECONDS} seconds`);
    if (decoded.seconds < TRANSCRIPTION_MIN_SECONDS)
      throw fieldError(['body', field], `the audio is shorter than ${TRANSCRIPTION_MIN_SECONDS} seconds`);
    const engine = engines.transcription;
    const bill = unitBill('transcription', decoded.seconds, {
      backend: 'standard',
      engine: engine.backend.name,
      costMicrosPerBlock: engine.costMicrosPerBlock,
    });
    const words = options.timestamp_granularities.includes('word');
    const transcript = await billing.charge(call, bill, 'transcription', model.id, async () => {
      try {
        return await engine.backend.transcribe({
          audio: decoded.pcm,
          format: 'pcm16',
          language: options.language,
          prompt: options.prompt,
          signal: call.signal,
          detail: { words, speakers: options.diarization || options.response_format === 'diarized_json' },
          metadata: options.metadata ?? null,
        });
      } catch (err) {
        throw engineFailure(err, call.signal);
      }
    });
    const timed = completeTimings(
      { ...transcript, durationSeconds: decoded.seconds },
      { language: options.language, speakers: options.diarization || options.response_format === 'diarized_json' },
    );
    return { transcript: timed, options, bill };
  }
}
