import type { CallContext, CallEvent, ResponseUsage } from '../../actors/realtime-call-machine.js';
import type { ChatBackend } from '../../backends/chat-backend.js';
import type { SpeechBackend } from '../../backends/speech.js';
import { countPromptTokens, countTokens } from '../../backends/tokens.js';
import { PCM16_BYTES_PER_SECOND, type TranscriptionBackend } from '../../backends/transcription.js';
import { microsToUsd } from '../../protocols/money.js';
import { realtimePriceMicros, svcBlock } from '../../protocols/pricing.js';
import { mergeSession, type CallItem, type CallSession, type CallUsage, type ClientEvent, type SessionUpdate } from '../../protocols/realtime.js';
import type { ActorHost } from '../../runtime/actor-host.js';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import { detectFarewell, goodbyeLine, type FarewellVerdict } from '../../runtime/realtime/farewell.js';
import { EnergyVad } from '../../runtime/realtime/vad.js';
import type { CallRuntime } from './call-runtime.js';
import { conversationMessages, runFixedLine, runResponse, type ResponseResult, type ResponseSink } from './respond.js';
import { CallOutbox, type CallSocket } from './call-outbox.js';
import { parseClientMessage } from './client-message.js';
import { assistantItem, errorEvent, newRealtimeId, responseOpening, responseOutputDone, responseUsage, userAudioItem } from './server-events.js';

/** What every call shares. */
export interface CallDeps {
  host: ActorHost;
  calls: CallRuntime;
  chat: ChatBackend;
  speech: SpeechBackend;
  transcription: TranscriptionBackend;
  clock: Clock;
  logger: Logger;
  limits: { dropAudioBytes: number; closeBytes: number; endGraceMs: number };
}

/** Tokens a response may generate when the session says `inf`. */
const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** Worst-case speech per generated token, for the hold placed before a response. */
const AUDIO_MS_PER_TOKEN = 400;
/** A committed turn shorter than this is refused, as OpenAI does. */
const MIN_COMMIT_MS = 100;
/** Manual-mode input kept before a commit: 15 minutes. */
const MAX_MANUAL_BYTES = PCM16_BYTES_PER_SECOND * 900;
/** Items sent to the model per response: the newest, so a long call stays bounded. */
const CONTEXT_ITEMS = 60;

type Phase = 'open' | 'ending' | 'end_ready' | 'closing' | 'closed';

interface InFlight {
  id: string;
  abort: AbortController;
  reason: 'turn_detected' | 'client_cancelled' | 'disconnected' | 'insufficient_balance' | null;
}

const ms = (bytes: number) => Math.round((bytes / PCM16_BYTES_PER_SECOND) * 1000);

/**
 * One realtime call on one socket: parses client messages, runs the VAD over appended audio,
 * transcribes turns, runs responses and speaks them frame by frame, watches the money, and
 * tells the call's actor each durable step (items, responses, hang-up, close). Messages that
 * touch the conversation run one after another in `turns`; audio appends and cancels act at once.
 */
export class CallConnection {
  private session: CallSession;
  private phase: Phase = 'open';
  private vad: EnergyVad | null = null;
  private manual: Buffer[] = [];
  private manualBytes = 0;
  private turns: Promise<void> = Promise.resolve();
  private response: InFlight | null = null;
  /** Resolves when the response in flight (if any) has recorded its usage. */
  private responseEnded: Promise<void> = Promise.resolve();
  private items: CallItem[] = [];
  private lastItemId: string | null = null;
  private pendingSpeechItem: string | null = null;
  private readonly usage: CallUsage = { audioInMs: 0, audioOutMs: 0, promptTokens: 0, completionTokens: 0 };
  private held: number;
  private closing: Promise<void> | null = null;
  private readonly outbox: CallOutbox;

  constructor(
    private readonly deps: CallDeps,
    socket: CallSocket,
    private readonly call: { id: string; accountId: string; tokenId: string | null; session: CallSession; holdMicros: number; timing?: boolean },
  ) {
    this.session = call.session;
    this.held = call.holdMicros;
    this.outbox = new CallOutbox(socket, deps.limits);
    this.configureVad();
  }

  /** Announces the session and marks the call open. */
  async start(): Promise<void> {
    this.emit({ type: 'session.created', session: this.sessionView() });
    await this.tell({ type: 'OPEN', at: this.deps.clock.now() });
  }

  /** One text frame from the client. */
  message(text: string): void {
    if (this.phase === 'closing' || this.phase === 'closed') return;
    const parsed = parseClientMessage(text);
    if ('error' in parsed) this.emit(parsed.error);
    else this.handle(parsed.event, parsed.eventId);
  }

  /** A binary frame: the protocol is JSON text frames only. */
  refuseBinary(): void {
    this.emit(errorEvent('invalid_event', 'Binary frames are not understood: send JSON text frames (audio as base64 in input_audio_buffer.append).'));
  }

  /** The socket is gone (the client left, or we closed it): stop work and close the call. */
  socketClosed(): void {
    this.outbox.gone();
    this.cancelResponse('disconnected');
    if (this.phase !== 'closing' && this.phase !== 'closed') {
      // A response cut by the disconnect records what it produced before the call settles.
      void this.responseEnded.then(() => this.tell({ type: 'DISCONNECT', at: this.deps.clock.now() }));
    }
    this.phase = 'closed';
  }

  private handle(event: ClientEvent, eventId: string | null): void {
    switch (event.type) {
      case 'session.update':
        return this.updateSession(event.session, eventId);
      case 'input_audio_buffer.append':
        return this.append(event.audio, eventId);
      case 'input_audio_buffer.commit':
        return this.commit(eventId);
      case 'input_audio_buffer.clear':
        this.vad?.reset();
        this.manual = [];
        this.manualBytes = 0;
        this.emit({ type: 'input_audio_buffer.cleared' });
        return;
      case 'conversation.item.create':
        return this.queue(() => this.addClientItem(event, eventId));
      case 'response.create':
        if (this.session.type === 'transcription') return this.emit(errorEvent('transcription_session', 'A transcription session only transcribes: response.create is not available.', { eventId }));
        if (this.phase !== 'open') return this.emit(errorEvent('call_ending', 'The call is ending; no new response is started.', { eventId }));
        if (this.response) return this.emit(errorEvent('conversation_already_has_active_response', `Response ${this.response.id} is in progress; cancel it or wait for response.done.`, { eventId }));
        return this.queue(() => this.respond(event.response ?? {}));
      case 'response.cancel':
        if (!this.response || (event.response_id && event.response_id !== this.response.id)) {
          return this.emit(errorEvent('response_cancel_not_active', 'There is no response in progress to cancel.', { eventId }));
        }
        this.cancelResponse('client_cancelled');
        return;
      case 'svc.realtime.end_ack':
        if (this.phase !== 'end_ready') return this.emit(errorEvent('end_ack_unexpected', 'svc.realtime.end_ack is only valid after svc.realtime.end_ready.', { eventId }));
        this.phase = 'closing';
        void this.tell({ type: 'END_ACK', at: this.deps.clock.now() });
        return;
    }
  }

  private updateSession(update: SessionUpdate, eventId: string | null): void {
    if (update.type && update.type !== this.session.type && (this.response || this.phase !== 'open')) {
      return this.emit(errorEvent('session_type_locked', 'The session type cannot change while a response is in progress or the call is ending.', { param: 'session.type', eventId }));
    }
    this.session = mergeSession(this.session, update);
    this.configureVad();
    void this.tell({ type: 'SESSION', session: this.session, at: this.deps.clock.now() });
    this.emit({ type: 'session.updated', session: this.sessionView() });
  }

  private configureVad(): void {
    const detection = this.session.audio.input.turn_detection;
    if (!detection) {
      this.vad = null;
      return;
    }
    const settings = { threshold: detection.threshold, prefixPaddingMs: detection.prefix_padding_ms, silenceDurationMs: detection.silence_duration_ms };
    if (this.vad) this.vad.update(settings);
    else this.vad = new EnergyVad(settings);
  }

  private append(audio: string, eventId: string | null): void {
    const pcm = Buffer.from(audio, 'base64');
    if (pcm.length % 2 !== 0) return this.emit(errorEvent('invalid_audio', 'Audio must be 16-bit PCM: an even number of bytes.', { param: 'audio', eventId }));
    // Once the call is ending nothing said can change it: audio is accepted and ignored.
    if (this.phase !== 'open' || pcm.length === 0) return;
    if (!this.vad) {
      if (this.manualBytes + pcm.length > MAX_MANUAL_BYTES) return this.emit(errorEvent('input_audio_buffer_full', 'The input audio buffer holds at most 15 minutes; commit or clear it.', { eventId }));
      this.manual.push(pcm);
      this.manualBytes += pcm.length;
      return;
    }
    for (const vadEvent of this.vad.push(pcm)) {
      if (vadEvent.type === 'speech_started') {
        this.pendingSpeechItem = newRealtimeId('item');
        this.emit({ type: 'input_audio_buffer.speech_started', audio_start_ms: vadEvent.audioStartMs, item_id: this.pendingSpeechItem });
        if (this.response && this.session.audio.input.turn_detection?.interrupt_response) this.cancelResponse('turn_detected');
      } else {
        const itemId = this.pendingSpeechItem ?? newRealtimeId('item');
        this.pendingSpeechItem = null;
        this.emit({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: vadEvent.audioEndMs, item_id: itemId });
        this.commitTurn(vadEvent.audio, itemId, this.session.audio.input.turn_detection?.create_response ?? true);
      }
    }
  }

  private commit(eventId: string | null): void {
    const audio = this.vad ? this.vad.flush() : Buffer.concat(this.manual);
    this.manual = [];
    this.manualBytes = 0;
    if (ms(audio.length) < MIN_COMMIT_MS) {
      return this.emit(errorEvent('input_audio_buffer_commit_empty', `Buffer too small: at least ${MIN_COMMIT_MS} ms of audio is needed, ${ms(audio.length)} ms was appended.`, { eventId }));
    }
    const itemId = this.pendingSpeechItem ?? newRealtimeId('item');
    this.pendingSpeechItem = null;
    this.commitTurn(audio, itemId, this.session.audio.input.turn_detection?.create_response ?? false);
  }

  /** A committed user turn: announced now, transcribed and answered in order with the other turns. */
  private commitTurn(audio: Buffer, itemId: string, answer: boolean): void {
    const previous = this.lastItemId;
    this.lastItemId = itemId;
    this.emit({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: itemId });
    this.emit({ type: 'conversation.item.added', previous_item_id: previous, item: userAudioItem(itemId, null) });
    this.queue(async () => {
      const text = await this.transcribe(audio, itemId);
      if (text === null) return;
      await this.addItem({ id: itemId, role: 'user', text, audioMs: ms(audio.length) });
      this.emit({ type: 'conversation.item.done', previous_item_id: previous, item: userAudioItem(itemId, text) });
      await this.afterUserTurn(text, answer);
    });
  }

  private async transcribe(audio: Buffer, itemId: string): Promise<string | null> {
    try {
      const language = this.session.audio.input.transcription?.language ?? null;
      const transcript = await this.deps.transcription.transcribe({ audio, format: 'pcm16', language, signal: AbortSignal.timeout(60_000) });
      this.emit({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript: transcript.text, usage: { type: 'duration', seconds: transcript.durationSeconds } });
      return transcript.text;
    } catch (err) {
      const message = err instanceof Error ? err.message : 'transcription failed';
      this.emit({ type: 'conversation.item.input_audio_transcription.failed', item_id: itemId, content_index: 0, error: { type: 'transcription_error', code: 'transcription_failed', message } });
      return null;
    }
  }

  private async addClientItem(event: ClientEvent & { type: 'conversation.item.create' }, eventId: string | null): Promise<void> {
    const item = event.item;
    const id = item.id ?? newRealtimeId('item');
    let audioMs = 0;
    const texts: string[] = [];
    for (const part of item.content) {
      if (part.type === 'input_audio') {
        const pcm = Buffer.from(part.audio, 'base64');
        audioMs += ms(pcm.length);
        const text = part.transcript ?? (await this.transcribe(pcm, id));
        if (text === null) return;
        texts.push(text);
      } else texts.push(part.text);
    }
    const text = texts.join('\n');
    const previous = this.lastItemId;
    this.lastItemId = id;
    const shown = { id, object: 'realtime.item', type: 'message', role: item.role, status: 'completed', content: item.content.map((part) => (part.type === 'input_audio' ? { type: 'input_audio', transcript: part.transcript ?? text } : part)) };
    await this.addItem({ id, role: item.role, text, audioMs: item.role === 'user' ? audioMs : 0 });
    this.emit({ type: 'conversation.item.added', previous_item_id: previous, item: shown, ...(eventId && { client_event_id: eventId }) });
    this.emit({ type: 'conversation.item.done', previous_item_id: previous, item: shown });
    // A typed farewell ends the call like a spoken one; the client's response.create is then refused.
    if (item.role === 'user') await this.afterUserTurn(text, false);
  }

  private async addItem(item: CallItem): Promise<void> {
    this.items.push(item);
    if (this.items.length > CONTEXT_ITEMS) this.items.shift();
    if (item.role === 'user') this.usage.audioInMs += item.audioMs;
    await this.tell({ type: 'ITEM', item, at: this.deps.clock.now() });
    this.checkFunds(0);
  }

  private async afterUserTurn(text: string, answer: boolean): Promise<void> {
    if (this.session.type !== 'realtime' || this.phase !== 'open') return;
    const verdict = detectFarewell(text);
    if (verdict.ending) return this.hangUp(verdict);
    if (answer) await this.respond({});
  }

  /** The caller said goodbye: one brief goodbye back, then end_ready and the wait for end_ack. */
  private async hangUp(verdict: FarewellVerdict): Promise<void> {
    this.phase = 'ending';
    await this.tell({ type: 'HANG_UP', reason: verdict.reason ?? 'farewell', language: verdict.language, at: this.deps.clock.now() });
    this.emit({ type: 'svc.realtime.ending', reason: verdict.reason, language: verdict.language });
    await this.respond({}, goodbyeLine(verdict.language), verdict.language);
    if (this.phase !== 'ending') return;
    this.phase = 'end_ready';
    this.emit({ type: 'svc.realtime.end_ready', grace_ms: this.deps.limits.endGraceMs });
    void this.finish();
  }

  /** Runs one response (the model's, or a fixed line) from response.created to response.done. */
  private async respond(options: { output_modalities?: ('text' | 'audio')[] | undefined; instructions?: string | undefined; max_output_tokens?: number | 'inf' | undefined; metadata?: Record<string, unknown> | undefined }, fixedLine?: string, language: string | null = null): Promise<void> {
    if (this.phase === 'closing' || this.phase === 'closed') return;
    const modalities = options.output_modalities ?? this.session.output_modalities;
    const withAudio = modalities.includes('audio');
    const limit = options.max_output_tokens ?? this.session.max_output_tokens;
    const maxTokens = limit === 'inf' ? DEFAULT_MAX_OUTPUT_TOKENS : limit;
    const messages = conversationMessages(options.instructions ?? this.session.instructions, this.items);
    const promptTokens = fixedLine === undefined ? countPromptTokens(messages) : 0;
    const completionTokens = fixedLine === undefined ? maxTokens : 0;
    const worst = realtimePriceMicros({ ...this.usage, promptTokens: this.usage.promptTokens + promptTokens, completionTokens: this.usage.completionTokens + completionTokens, audioOutMs: this.usage.audioOutMs + (withAudio ? (completionTokens || 64) * AUDIO_MS_PER_TOKEN : 0) });
    if (!this.checkFunds(worst - realtimePriceMicros(this.usage))) return;

    const id = newRealtimeId('resp');
    const itemId = newRealtimeId('item');
    const abort = new AbortController();
    const inFlight: InFlight = { id, abort, reason: null };
    this.response = inFlight;
    let ended!: () => void;
    this.responseEnded = new Promise((resolve) => (ended = resolve));
    await this.tell({ type: 'RESPONSE_START', responseId: id, at: this.deps.clock.now() });
    const base = { response_id: id, item_id: itemId, output_index: 0, content_index: 0 };
    for (const event of responseOpening(id, itemId, modalities)) this.emit(event);

    let text = '';
    let audioBytes = 0;
    const sink: ResponseSink = {
      text: (delta) => {
        text += delta;
        this.emit({ type: withAudio ? 'response.output_audio_transcript.delta' : 'response.output_text.delta', ...base, delta });
      },
      audio: (frame) => {
        audioBytes += frame.length;
        const delta = { type: 'response.output_audio.delta', ...base, delta: frame.toString('base64') };
        return this.outbox.sendAudio(this.call.timing ? { ...delta, svc_ts: performance.timeOrigin + performance.now() } : delta);
      },
    };
    const plan = { responseId: id, itemId, modalities, voice: this.session.audio.output.voice, language, signal: abort.signal };
    let status: 'completed' | 'cancelled' | 'failed' = 'completed';
    let failure: string | null = null;
    let result: ResponseResult | null = null;
    try {
      result =
        fixedLine === undefined
          ? await runResponse(this.deps.chat, this.deps.speech, { model: this.session.model, messages, maxTokens, temperature: null, stop: [], responseFormat: { type: 'text', schema: null }, tools: [], toolChoice: 'none', metadata: options.metadata ?? null }, plan, sink)
          : await runFixedLine(fixedLine, this.deps.speech, plan, sink);
    } catch (err) {
      if (abort.signal.aborted) status = 'cancelled';
      else {
        status = 'failed';
        failure = err instanceof Error ? err.message : 'the response failed';
        this.deps.logger.warn('realtime response failed', { call_id: this.call.id, err });
      }
    }
    // A cut response is billed for what it produced: the prompt, the words so far, the audio sent.
    const usage: ResponseUsage = result?.usage ?? { promptTokens, completionTokens: countTokens(text), audioOutMs: ms(audioBytes) };
    const finalText = result?.text ?? text;
    const item = assistantItem(itemId, status === 'completed' ? 'completed' : 'incomplete', withAudio, finalText);
    for (const event of responseOutputDone(id, item, withAudio, finalText)) this.emit(event);
    this.usage.promptTokens += usage.promptTokens;
    this.usage.completionTokens += usage.completionTokens;
    this.usage.audioOutMs += usage.audioOutMs;
    const spoken: CallItem = { id: itemId, role: 'assistant', text: finalText, audioMs: usage.audioOutMs };
    if (finalText) {
      this.items.push(spoken);
      if (this.items.length > CONTEXT_ITEMS) this.items.shift();
    }
    this.response = null;
    // The usage is durable before response.done reports it: what the client saw is what is billed.
    await this.tell({ type: 'RESPONSE_END', responseId: id, item: finalText ? spoken : null, usage, at: this.deps.clock.now() });
    ended();
    const details = status === 'cancelled' ? { type: 'cancelled', reason: inFlight.reason ?? 'client_cancelled' } : status === 'failed' ? { type: 'failed', error: { type: 'server_error', code: 'upstream_unavailable', message: failure } } : null;
    this.emit({ type: 'response.done', response: { id, object: 'realtime.response', status, status_details: details, output: [item], output_modalities: modalities, usage: responseUsage(usage) } });
    if (status === 'failed') this.emit(errorEvent('upstream_unavailable', `The model backend failed: ${failure}`, { type: 'server_error' }));
    this.checkFunds(0);
  }

  private cancelResponse(reason: NonNullable<InFlight['reason']>): void {
    if (!this.response) return;
    this.response.reason ??= reason;
    this.response.abort.abort();
  }

  /**
   * Keeps the hold ahead of the bill: what is used plus `ahead` must be held, growing the hold
   * when needed. When the balance cannot cover it the call ends with `insufficient_balance`.
   */
  private checkFunds(ahead: number): boolean {
    if (this.phase === 'closing' || this.phase === 'closed') return false;
    const needed = realtimePriceMicros(this.usage) + Math.max(0, ahead);
    const held = this.deps.calls.ensureHeld(this.call.id, this.call.accountId, this.call.tokenId, needed);
    if (held !== null) {
      if (held !== this.held) {
        this.held = held;
        void this.tell({ type: 'HOLD', holdMicros: held });
      }
      return true;
    }
    this.emit(errorEvent('insufficient_balance', 'The balance cannot cover the call any longer; it ends now. Top up the account to continue.', { type: 'billing_error' }));
    this.cancelResponse('insufficient_balance');
    this.phase = 'closing';
    void this.tell({ type: 'EXHAUSTED', at: this.deps.clock.now() }).then(() => this.finish());
    return false;
  }

  /** Waits for the call to close (end_ack, grace timer, or exhausted), reports the charge and closes the socket. */
  private finish(): Promise<void> {
    this.closing ??= (async () => {
      await this.deps.host.waitFor(this.call.id, () => false);
      const record = this.deps.host.find(this.call.id, this.call.accountId);
      const context = (record?.snapshot as { context?: CallContext } | undefined)?.context;
      if (this.phase === 'closed' || !context) return;
      const price = context.charge?.micros ?? 0;
      this.emit({
        type: 'svc.realtime.closed',
        reason: context.closeReason,
        usage: { audio_in_seconds: context.usage.audioInMs / 1000, audio_out_seconds: context.usage.audioOutMs / 1000, prompt_tokens: context.usage.promptTokens, completion_tokens: context.usage.completionTokens },
        dropped_audio_frames: this.outbox.droppedFrames,
        svc: { ...svcBlock(price), price_usd: microsToUsd(price), billing_basis: 'processed_tokens_plus_audio' },
      });
      this.phase = 'closed';
      this.outbox.close(1000, 'call ended');
    })();
    return this.closing;
  }

  private queue(work: () => Promise<void>): void {
    this.turns = this.turns.then(work).catch((err: unknown) => {
      this.deps.logger.error('realtime turn failed', { call_id: this.call.id, err });
      this.emit(errorEvent('internal_error', 'The server failed to handle this turn.', { type: 'server_error' }));
    });
  }

  private tell(event: CallEvent): Promise<boolean> {
    return this.deps.host.send(this.call.id, event);
  }

  private sessionView(): Record<string, unknown> {
    return { object: 'realtime.session', id: this.call.id, ...this.session };
  }

  private emit(event: Record<string, unknown>): void {
    this.outbox.send(event);
  }
}
