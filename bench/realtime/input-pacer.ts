// Streams the speech loop into many calls at real time from ONE timer: each call gets a frame
// every 20 ms, catching up when a tick was late, and the timer is re-armed on its grid (setInterval
// would drift by its own lateness). The calls' sentences are spread over the cycle so the server
// does not hear every turn at once, and their frames over the 20 ms so the client does not send
// them all in one burst.
import type WebSocket from 'ws';
import { Histogram } from '../load/histogram.js';
import { INPUT_FRAME_MS, type SpeechLoop } from './speech-loop.js';

/** A call as the pacer sees it. */
export interface PacedCall {
  ws: WebSocket;
  /** Frames sent so far. */
  sent: number;
  /** Silent frames before its first sentence. */
  lead: number;
  /** Where in each 20 ms its frame leaves. */
  slotMs: number;
  /** Wall-clock ms at which the last speech frame of its latest sentence was sent. */
  speechEndSentAt: number;
}

/**
 * A quarter of the calls send in each 5 ms slot: a burst of sends holds back the frames arriving
 * meanwhile and adds its length to their latency.
 */
const SLOTS = 4;
const SLOT_MS = INPUT_FRAME_MS / SLOTS;

/** Paces the loop into the calls; counts what it sent inside the measured window. */
export class InputPacer {
  /** Appends sent inside the window. */
  framesIn = 0;
  /** Sentences whose last frame was sent inside the window. */
  utterances = 0;
  /** How late each append left against its schedule (ms): the client's own pacing. */
  readonly sendLag = new Histogram();
  private readonly speech: Buffer[];
  private readonly silence: Buffer;
  private readonly cycle: number;
  private t0 = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly calls: readonly PacedCall[],
    loop: SpeechLoop,
    private readonly window: { start: number; end: number },
    private readonly wallNow: () => number,
  ) {
    this.speech = loop.speech.map((text) => Buffer.from(text));
    this.silence = Buffer.from(loop.silence);
    this.cycle = loop.speech.length + loop.silenceFrames;
  }

  /** Where call `index` of `total` sits: its lead-in (sentences spread over the cycle) and its slot. */
  placement(index: number, total: number): Pick<PacedCall, 'lead' | 'slotMs'> {
    return { lead: Math.floor((index / total) * this.cycle), slotMs: (index % SLOTS) * SLOT_MS };
  }

  /** Starts streaming now (frame 0 of every call is due at once, or in its slot). */
  start(): void {
    this.t0 = performance.now();
    const pace = () => {
      this.tick();
      const next = this.t0 + (Math.floor((performance.now() - this.t0) / SLOT_MS) + 1) * SLOT_MS;
      this.timer = setTimeout(pace, Math.max(0, next - performance.now()));
    };
    pace();
  }

  /** Stops streaming. */
  stop(): void {
    clearTimeout(this.timer);
  }

  private tick(): void {
    const now = performance.now();
    const measuring = now >= this.window.start && now < this.window.end;
    const lastSpeech = this.speech.length - 1;
    for (const call of this.calls) {
      if (call.ws.readyState !== 1) continue;
      const due = Math.floor((now - this.t0 - call.slotMs) / INPUT_FRAME_MS) + 1;
      for (; call.sent < due; call.sent++) {
        const position = call.sent - call.lead;
        const at = position < 0 ? -1 : position % this.cycle; // silent until its lead-in is over
        call.ws.send(at >= 0 && at <= lastSpeech ? this.speech[at]! : this.silence, { binary: false });
        if (at === lastSpeech) {
          call.speechEndSentAt = this.wallNow();
          if (measuring) this.utterances++;
        }
        if (measuring) {
          this.framesIn++;
          this.sendLag.record(performance.now() - (this.t0 + call.slotMs + call.sent * INPUT_FRAME_MS));
        }
      }
    }
  }
}
