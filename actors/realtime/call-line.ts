import type { ErrorCode } from '../../protocols/errors.js';
import type { Clock } from '../../runtime/clock.js';
import { randomBase62 } from '../../runtime/ids.js';
import type { CallItem, CallStreamEvent } from './call-events.js';
import type { CallEvent } from './call-context.js';
import type { CallSession } from './call-session.js';
import type { CallView } from './call-view.js';
import { contextItems } from './call-conversation.js';
import { TelephonyDecoder } from './telephony-audio.js';
import { EnergyVad, pcmDurationMs } from './vad.js';

/** A committed turn shorter than this is refused, as OpenAI does. */
export const MIN_COMMIT_MS = 100;
/** Manual-mode input kept before a commit: 15 minutes of PCM16 at 24 kHz. */
const MAX_MANUAL_BYTES = 48_000 * 900;

/** Milliseconds of `bytes` of PCM16 at 24 kHz, rounded. */
export const audioMs = (bytes: number): number => Math.round(pcmDurationMs(bytes));

/** What a line needs of its call's actor: the fields it reads per frame (kept by the machine's subscription) and a way to tell it things. */
export interface CallActorPort {
  readonly view: CallView;
  /** Whether the actor would take `event` now (every event sent is a durable transition: none is sent for nothing). */
  accepts(event: CallEvent): boolean;
  send(event: CallEvent): void;
  /** Resolves once everything the actor emitted so far is durable. */
  whenDurable(): Promise<void>;
}

/** A user item's id, as OpenAI's (`item_` and 20 base62 characters). */
const newItemId = (): string => `item_${randomBase62(20)}`;

/**
 * The live, never-persisted half of a call: audio in and streams out. Appended audio runs through
 * the VAD (or the manual buffer) here, so frames never become machine events; speech starting is
 * signalled to the client at once, and what the machine must decide on (a turn committed, a
 * response cut by speech) is sent to it, the turn's audio parked here under a key until the
 * `transcribe` effect takes it. Whether audio is listened to at all,
 * and with which turn detection, is read from the call's view (plain fields the machine's transitions
keep, so a frame reads no snapshot): the line keeps no phase.
 * Response text and audio from the `respond` effect pass through `stream` to the edge.
 */
export class CallLine {
  private vad: EnergyVad | null = null;
  /** The session the VAD was set up from (sessions are replaced, never mutated, by the machine). */
  private configuredFrom: CallSession | null = null;
  /** The item the turn in progress (speech started, not stopped) will become. */
  private speechItemId: string | null = null;
  private manual: Buffer[] = [];
  private manualBytes = 0;
  private readonly parked = new Map<string, Buffer>();
  /** Telephony input as PCM16 24 kHz (keeps the last sample, so frames join smoothly). */
  private readonly decoder = new TelephonyDecoder();
  private parkedCount = 0;

  constructor(
    readonly callId: string,
    private readonly actor: CallActorPort,
    private readonly clock: Clock,
    /** Where stream events go (the edge's renderer). */
    readonly stream: (event: CallStreamEvent) => void,
  ) {}

  /**
   * Appended audio in the session's input format, as PCM16 24 kHz: through the VAD (or kept for a
   * manual commit) while the call listens. `audio` is only lent for the call: what is kept is copied.
   */
  append(audio: Buffer, clientEventId: string | null): void {
    // Once the call is ending nothing said can change it: audio is accepted and ignored.
    const view = this.actor.view;
    const session = view.session;
    const format = session.inputFormat ?? 'pcm';
    if (format === 'pcm' && audio.length % 2 !== 0)
      return this.reject('invalid_audio', 'Audio must be 16-bit PCM: an even number of bytes.', 'audio', clientEventId);
    if (!view.listening || audio.length === 0) return;
    const pcm = this.decoder.decode(audio, format);
    const vad = this.configure(session);
    if (!vad) {
      if (this.manualBytes + pcm.length > MAX_MANUAL_BYTES)
        return this.reject(
          'input_audio_buffer_full',
          'The input audio buffer holds at most 15 minutes; commit or clear it.',
          null,
          clientEventId,
        );
      // The appended audio is lent (the edge decodes each frame into one reused buffer): kept, it is copied.
      this.manual.push(pcm === audio ? Buffer.from(pcm) : pcm);
      this.manualBytes += pcm.length;
      return;
    }
    for (const event of vad.push(pcm)) {
      if (event.type === 'speech_started') {
        const itemId = (this.speechItemId = newItemId());
        this.stream({ type: 'speechStarted', itemId, audioStartMs: event.audioStartMs });
        // The machine decides about barge-in; it is told only when it would act (a response to cut).
        const started: CallEvent = { type: 'SPEECH_STARTED', itemId, at: this.clock.now() };
        if (this.actor.accepts(started)) this.actor.send(started);
      } else {
        const itemId = this.speechItemId ?? newItemId();
        this.speechItemId = null;
        this.actor.send({
          type: 'SPEECH_STOPPED',
          itemId,
          audioEndMs: event.audioEndMs,
          audioKey: this.park(event.audio),
          audioMs: audioMs(event.audio.length),
          at: this.clock.now(),
        });
      }
    }
  }

  /** The client commits the buffered audio as a turn (refused below MIN_COMMIT_MS). */
  commit(clientEventId: string | null): void {
    const view = this.actor.view;
    if (!view.listening) return;
    const vad = this.configure(view.session);
    const audio = vad ? vad.flush() : Buffer.concat(this.manual);
    this.manual = [];
    this.manualBytes = 0;
    const length = audioMs(audio.length);
    if (length < MIN_COMMIT_MS) {
      return this.reject(
        'input_audio_buffer_commit_empty',
        `Buffer too small: at least ${MIN_COMMIT_MS} ms of audio is needed, ${length} ms was appended.`,
        null,
        clientEventId,
      );
    }
    const itemId = this.speechItemId ?? newItemId();
    this.speechItemId = null;
    this.actor.send({
      type: 'AUDIO_COMMITTED',
      itemId,
      audioKey: this.park(audio),
      audioMs: length,
      at: this.clock.now(),
    });
  }

  /** The client drops the buffered audio. */
  clear(): void {
    this.vad?.reset();
    this.manual = [];
    this.manualBytes = 0;
    this.stream({ type: 'audioCleared' });
  }

  /**
   * Resolves once the call's step so far is durable (rejects on `signal`). An effect waits for it
   * before its work, as a step awaited its commit: what the client may already have been told is
   * never lost, and a server short of time does less at once instead of piling up output.
   */
  durable(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    return new Promise((resolve, reject) => {
      const abort = () => reject(signal.reason as Error);
      signal.addEventListener('abort', abort, { once: true });
      void this.actor.whenDurable().then(() => {
        signal.removeEventListener('abort', abort);
        resolve();
      });
    });
  }

  /** The call's conversation as it is now (the newest items a response sees). */
  conversation(): readonly CallItem[] {
    return contextItems(this.actor.view.items);
  }

  /** An item's audio (`input_audio`, in the session's input format) as PCM16 24 kHz. */
  itemAudio(audio: Buffer): Buffer {
    return new TelephonyDecoder().decode(audio, this.actor.view.session.inputFormat ?? 'pcm');
  }

  /** Keeps `audio` until the `transcribe` effect takes it; returns its key. */
  park(audio: Buffer): string {
    const key = `a${++this.parkedCount}`;
    this.parked.set(key, audio);
    return key;
  }

  /** The audio parked under `key`, handed over once. */
  take(key: string): Buffer | undefined {
    const audio = this.parked.get(key);
    this.parked.delete(key);
    return audio;
  }

  /** The VAD for the session's turn detection (null: the client commits), set up again when the session changed. */
  private configure(session: CallSession): EnergyVad | null {
    if (session === this.configuredFrom) return this.vad;
    this.configuredFrom = session;
    const detection = session.turnDetection;
    if (!detection) return (this.vad = null);
    const settings = {
      threshold: detection.threshold,
      prefixPaddingMs: detection.prefixPaddingMs,
      silenceDurationMs: detection.silenceDurationMs,
    };
    if (this.vad) this.vad.update(settings);
    else this.vad = new EnergyVad(settings);
    return this.vad;
  }

  private reject(code: ErrorCode, message: string, param: string | null, clientEventId: string | null): void {
    this.stream({ type: 'rejected', code, message, param, clientEventId });
  }
}
