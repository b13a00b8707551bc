import { newEventId } from './server-events.js';

/** One output audio frame, as the call's order hands it over. */
export interface AudioFrame {
  responseId: string;
  itemId: string;
  outputIndex: number;
  audio: Buffer;
}

const OPEN = '{"event_id":"';
/** Frames are cut from slabs this large: one ArrayBuffer per ~75 frames instead of per 2 (Node's pool is 8 KB). */
const SLAB_BYTES = 256 * 1024;

/** Where rendered frames are cut from. A slab is never written twice: each frame's bytes stay its own. */
const slab = { bytes: Buffer.allocUnsafeSlow(0), used: 0 };

function take(length: number): Buffer {
  if (length > SLAB_BYTES / 4) return Buffer.allocUnsafe(length);
  if (slab.used + length > slab.bytes.length) {
    slab.bytes = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slab.used = 0;
  }
  const out = slab.bytes.subarray(slab.used, slab.used + length);
  slab.used += (length + 7) & ~7; // the next frame on an 8-byte boundary, as Node's pool does
  return out;
}

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

  /**
   * One frame's wire text; `svcTs` (send time, epoch ms) for load testers that asked for it.
   * `eventId` is ours (`event_` and base62): written without escaping.
   */
  render(frame: AudioFrame, svcTs: number | null, eventId: string = newEventId()): Buffer {
    const head = this.headOf(frame);
    const audio = frame.audio.toString('base64');
    const stamp = svcTs === null ? '' : `,"svc_ts":${JSON.stringify(svcTs)}`;
    const out = take(OPEN.length + eventId.length + head.length + audio.length + stamp.length + 2);
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
