import type { ChatBackend, ChatBackendRequest } from '../../backends/chat-backend.js';
import type { SpeechBackend } from '../../backends/speech.js';
import { PCM16_BYTES_PER_SECOND } from '../../backends/transcription.js';
import type { ResponseUsage } from './call-events.js';

/** Output audio frame: 50 ms of PCM16 at 24 kHz, small enough for barge-in and smooth playback. */
export const AUDIO_FRAME_BYTES = (PCM16_BYTES_PER_SECOND / 1000) * 50;

/** A sentence (or a long enough run of words) is spoken as soon as it is complete. */
const SEGMENT_END = /[.!?。！？؟…\n]\s*$/u;
const SEGMENT_MAX_CHARS = 160;

/** What a response needs besides its conversation. */
export interface ResponsePlan {
  responseId: string;
  itemId: string;
  modalities: readonly ('text' | 'audio')[];
  voice: string;
  language: string | null;
  signal: AbortSignal;
}

/** Where a response's output goes: text pieces and audio frames, in order, as produced. */
export interface ResponseSink {
  /** A text delta (`output_text.delta`) or, with audio, a transcript delta of what is about to be spoken. */
  text(delta: string): void;
  /** One audio frame (the edge may drop it when the client is too slow: it was produced all the same). */
  audio(frame: Buffer): void;
  /** A fragment of function call `index`'s arguments; the first fragment of a call carries its id and name. */
  toolCall(fragment: { index: number; id?: string; name?: string; arguments: string }): void;
}

/** How a response ended and what it used. */
export interface ResponseResult {
  text: string;
  usage: ResponseUsage;
}

/**
 * Speaks `segments` as they arrive, in order, framing the PCM into AUDIO_FRAME_BYTES frames.
 * Returns the ms of audio produced (frames dropped by backpressure count: they were produced).
 */
async function speak(
  segments: AsyncIterable<string> | Iterable<string>,
  speech: SpeechBackend,
  plan: ResponsePlan,
  sink: ResponseSink,
): Promise<number> {
  let bytes = 0;
  let pending: Buffer = Buffer.alloc(0);
  for await (const segment of segments) {
    sink.text(segment);
    for await (const chunk of speech.synthesize({
      text: segment,
      voice: plan.voice,
      language: plan.language,
      signal: plan.signal,
    })) {
      plan.signal.throwIfAborted();
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= AUDIO_FRAME_BYTES) {
        sink.audio(pending.subarray(0, AUDIO_FRAME_BYTES));
        bytes += AUDIO_FRAME_BYTES;
        pending = pending.subarray(AUDIO_FRAME_BYTES);
      }
    }
  }
  if (pending.length) {
    sink.audio(pending);
    bytes += pending.length;
  }
  return Math.round((bytes / PCM16_BYTES_PER_SECOND) * 1000);
}

/** A queue of text segments: the model's deltas cut at sentence ends, consumed by `speak`. */
class SegmentQueue implements AsyncIterable<string> {
  private buffer = '';
  private readonly ready: string[] = [];
  private wake: (() => void) | null = null;
  private closed = false;

  push(delta: string): void {
    this.buffer += delta;
    if (SEGMENT_END.test(this.buffer) || this.buffer.length >= SEGMENT_MAX_CHARS) this.cut();
  }

  close(): void {
    this.cut();
    this.closed = true;
    this.wake?.();
  }

  private cut(): void {
    if (this.buffer.trim()) this.ready.push(this.buffer);
    this.buffer = '';
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const next = this.ready.shift();
      if (next !== undefined) yield next;
      else if (this.closed) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

/**
 * One model response: the chat backend's text streamed as text deltas, or (with audio) cut into
 * sentences that are synthesised while the model goes on, so the first audio frame leaves after
 * the first sentence rather than after the whole answer. Throws on abort or backend failure.
 */
export async function runResponse(
  chat: ChatBackend,
  speech: SpeechBackend,
  request: Omit<ChatBackendRequest, 'signal' | 'choiceIndex'>,
  plan: ResponsePlan,
  sink: ResponseSink,
): Promise<ResponseResult> {
  const withAudio = plan.modalities.includes('audio');
  const queue = new SegmentQueue();
  const spoken = withAudio ? speak(queue, speech, plan, sink) : Promise.resolve(0);
  // A failed synthesis must not stay unobserved while the model is still streaming.
  spoken.catch(() => undefined);
  let text = '';
  let tokens = { promptTokens: 0, completionTokens: 0 };
  try {
    for await (const event of chat.stream({ ...request, choiceIndex: 0, signal: plan.signal })) {
      if (event.type === 'delta') {
        text += event.text;
        if (withAudio) queue.push(event.text);
        else sink.text(event.text);
      } else if (event.type === 'tool_call') sink.toolCall(event);
      else tokens = event.usage;
    }
  } finally {
    queue.close();
  }
  const audioOutMs = await spoken;
  return { text, usage: { ...tokens, audioOutMs } };
}

/** A fixed line spoken (or written) by the service itself, such as the goodbye: audio only, no tokens. */
export async function runFixedLine(
  line: string,
  speech: SpeechBackend,
  plan: ResponsePlan,
  sink: ResponseSink,
): Promise<ResponseResult> {
  if (!plan.modalities.includes('audio')) {
    sink.text(line);
    return { text: line, usage: { promptTokens: 0, completionTokens: 0, audioOutMs: 0 } };
  }
  const audioOutMs = await speak([line], speech, plan, sink);
  return { text: line, usage: { promptTokens: 0, completionTokens: 0, audioOutMs } };
}
