// What the active client does with each server event of a call: audio frames are timed against
// their `svc_ts`, turns are timed from the end of the caller's speech to the answer's first audio,
// and everything that went wrong is counted. Both the gateway and the bare baseline go through it.
import { Histogram } from '../load/histogram.js';
import { PCM16_BYTES_PER_SECOND } from '../../backends/transcription.js';
import type { ErrorTally } from './error-tally.js';

/** 50 ms of PCM16 at 24 kHz: the server's audio frame. */
const OUTPUT_FRAME_BYTES = (PCM16_BYTES_PER_SECOND / 1000) * 50;

/** One call's turn state. */
export interface CallState {
  /** Wall-clock ms at which the last speech frame of the current utterance was sent. */
  speechEndSentAt: number;
  /** speech_stopped seen and not yet answered: when it arrived and when the speech it ends was sent. */
  pendingTurn: { stoppedAt: number; speechEndSentAt: number } | null;
  /** The response whose audio is arriving, and the PCM bytes received for it. */
  audioResponse: string | null;
  audioBytes: number;
  /** session.updated received (the call is configured). */
  configured: boolean;
}

/** Turn counts inside the measured window. */
export interface TurnCounts {
  speechStarted: number;
  speechStopped: number;
  transcribed: number;
  responsesCreated: number;
  responsesDone: Record<string, number>;
}

/** Everything the calls of one client measured. */
export class CallEvents {
  /** Receive time − svc_ts of every audio frame in the window (ms, wall clock). */
  readonly relay = new Histogram();
  /** speech_stopped received → first audio of the answer received. */
  readonly turnAfterStop = new Histogram();
  /** Last speech frame sent → first audio of the answer received (includes the VAD's silence window). */
  readonly turnAfterSpeech = new Histogram();
  readonly turns: TurnCounts = {
    speechStarted: 0,
    speechStopped: 0,
    transcribed: 0,
    responsesCreated: 0,
    responsesDone: {},
  };
  framesOut = 0;
  bytesOut = 0;
  /** Frames the server produced that never arrived (from response.done's audio seconds). */
  droppedFrames = 0;
  /** The smallest raw receive − svc_ts: below zero, the two processes' clocks disagree. */
  relayMinMs = Infinity;

  constructor(
    private readonly errors: ErrorTally,
    private readonly sentence: string,
  ) {}

  /** Handles one server message of `call`, received at `at` (wall ms); `measuring` inside the window. */
  handle(call: CallState, data: Buffer, at: number, measuring: boolean): void {
    let event: any;
    try {
      event = JSON.parse(data.toString());
    } catch {
      this.errors.count('parse:json', data.toString().slice(0, 200));
      return;
    }
    switch (event.type) {
      case 'response.output_audio.delta':
        return this.audio(call, event, at, measuring);
      case 'session.updated':
        call.configured = true;
        return;
      case 'input_audio_buffer.speech_started':
        if (measuring) this.turns.speechStarted++;
        return;
      case 'input_audio_buffer.speech_stopped':
        call.pendingTurn = { stoppedAt: at, speechEndSentAt: call.speechEndSentAt };
        if (measuring) this.turns.speechStopped++;
        return;
      case 'conversation.item.input_audio_transcription.completed':
        if (event.transcript !== this.sentence)
          this.errors.count('transcript:mismatch', `heard ${JSON.stringify(event.transcript)}`);
        if (measuring) this.turns.transcribed++;
        return;
      case 'conversation.item.input_audio_transcription.failed':
        this.errors.count('transcription:failed', event.error?.message ?? '');
        return;
      case 'response.created':
        if (measuring) this.turns.responsesCreated++;
        return;
      case 'response.done':
        return this.done(call, event, measuring);
      case 'error':
        this.errors.count(`event:error:${event.error?.code ?? '?'}`, event.error?.message ?? '');
        return;
    }
  }

  private audio(call: CallState, event: any, at: number, measuring: boolean): void {
    if (event.response_id !== call.audioResponse) {
      call.audioResponse = event.response_id;
      call.audioBytes = 0;
      const turn = call.pendingTurn;
      call.pendingTurn = null;
      if (turn && measuring) {
        this.turnAfterStop.record(at - turn.stoppedAt);
        this.turnAfterSpeech.record(at - turn.speechEndSentAt);
      }
    }
    const delta = typeof event.delta === 'string' ? event.delta : '';
    const bytes = (delta.length * 3) / 4 - (delta.endsWith('==') ? 2 : delta.endsWith('=') ? 1 : 0);
    call.audioBytes += bytes;
    if (!measuring) return;
    this.framesOut++;
    this.bytesOut += bytes;
    if (typeof event.svc_ts !== 'number')
      return this.errors.count('frame:no-svc_ts', 'response.output_audio.delta without svc_ts');
    const latency = at - event.svc_ts;
    if (latency < this.relayMinMs) this.relayMinMs = latency;
    this.relay.record(latency);
  }

  private done(call: CallState, event: any, measuring: boolean): void {
    const status = String(event.response?.status ?? 'unknown');
    if (measuring) this.turns.responsesDone[status] = (this.turns.responsesDone[status] ?? 0) + 1;
    if (status === 'failed')
      this.errors.count('response:failed', JSON.stringify(event.response?.status_details ?? null));
    // What the server produced for this response (dropped frames included) against what arrived.
    const seconds = event.response?.usage?.svc?.audio_out_seconds;
    if (typeof seconds === 'number') {
      const received = call.audioResponse === event.response?.id ? call.audioBytes : 0;
      const missing = Math.round((seconds * PCM16_BYTES_PER_SECOND - received) / OUTPUT_FRAME_BYTES);
      if (missing > 0) this.droppedFrames += missing;
    }
  }
}
