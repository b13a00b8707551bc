import { freshFrameMemory, type FrameMemory } from './frame-slabs.js';
import { newEventId } from './server-events.js';

/** One output audio frame, as the call's order hands it over. */
export interface AudioFrame {
  responseId: string;
  itemId: string;
  outputIndex: number;
  audio: Buffer;
}

const OPEN = '{"event_id":"';

/**
 * Writes a call's output audio frames as `response.output_audio.delta` wire text, in bytes: the
 * same text `JSON.stringify({ event_id, ...audioDelta() })` makes, put together in one buffer the
 * socket sends as it is. No JSON text is made per frame (base64 needs no escaping; the frame's
 * largest string would otherwise be copied into a second, then converted to UTF-8 by the socket),
 * and the part that names the response and item is rendered once per item, not per frame.
 */
export class AudioDeltaWriter {
  private responseId = '';
  private itemId = '';
  private outputIndex = -1;
  /** `","type":…,"delta":"` for the item the last frame belonged to. */
  private head = Buffer.alloc(0);

  /** `memory`: where frames are cut from (by default, memory never written twice). */
  constructor(private readonly memory: FrameMemory = freshFrameMemory) {}

  /**
   * One frame's wire text; `svcTs` (send time, epoch ms) for load testers that asked for it.
   * `eventId` is ours (`event_` and base62): written without escaping.
   */
  render(frame: AudioFrame, svcTs: number | null, eventId: string = newEventId()): Buffer {
    const head = this.headOf(frame);
    const audio = frame.audio.toString('base64');
    const stamp = svcTs === null ? '' : `,"svc_ts":${JSON.stringify(svcTs)}`;
    const out = this.memory.take(OPEN.length + eventId.length + head.length + audio.length + stamp.length + 2);
    let at = out.write(OPEN, 0, 'latin1');
    at += out.write(eventId, at, 'latin1');
    at += head.copy(out, at);
    at += out.write(audio, at, 'latin1');
    out[at++] = 0x22; // "
    if (stamp) at += out.write(stamp, at, 'latin1');
    out[at] = 0x7d; // }
    return out;
  }

  private headOf(frame: AudioFrame): Buffer {
    if (frame.responseId === this.responseId && frame.itemId === this.itemId && frame.outputIndex === this.outputIndex)
      return this.head;
    this.responseId = frame.responseId;
    this.itemId = frame.itemId;
    this.outputIndex = frame.outputIndex;
    this.head = Buffer.from(
      `","type":"response.output_audio.delta","response_id":${JSON.stringify(frame.responseId)},` +
        `"item_id":${JSON.stringify(frame.itemId)},"output_index":${JSON.stringify(frame.outputIndex)},` +
        `"content_index":0,"delta":"`,
      'utf8',
    );
    return this.head;
  }
}
