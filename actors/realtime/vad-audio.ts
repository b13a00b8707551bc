// The audio the VAD keeps: PCM16 little-endian mono at 24 kHz in 10 ms frames, the idle padding
// in a ring and a turn in one lent buffer, each copied in once.

const SAMPLE_RATE = 24_000;
export const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;
export const FRAME_MS = 10;
export const FRAME_SAMPLES = (SAMPLE_RATE / 1000) * FRAME_MS;
export const FRAME_BYTES = FRAME_SAMPLES * 2;
// A turn's audio is collected in one buffer, 2 s at first (most turns fit) and doubled when a turn
// outgrows it; the buffer is lent with the turn and given back once the turn is read, so turns
// reuse memory instead of leaving external memory (a mark-compact's trigger) behind.
const FIRST_TURN_BYTES = BYTES_PER_MS * 2000;
/** Free turn buffers kept at most (4 MB): the turns that end together; a burst of long ones gets fresh memory. */
const MAX_FREE_BYTES = 4 * 1024 * 1024;
/** Free turn buffers by capacity. */
const freeTurnBuffers = new Map<number, Buffer[]>();
let freeBytes = 0;
/** Turn buffers handed out with a turn, not yet given back. */
const lent = new WeakSet<ArrayBufferLike>();

function takeTurnBuffer(capacity: number): Buffer {
  const buffer = freeTurnBuffers.get(capacity)?.pop();
  if (!buffer) return Buffer.allocUnsafeSlow(capacity); // its own ArrayBuffer: given back whole
  freeBytes -= capacity;
  return buffer;
}

function keepTurnBuffer(buffer: Buffer): void {
  if (freeBytes + buffer.length > MAX_FREE_BYTES) return;
  const free = freeTurnBuffers.get(buffer.length) ?? [];
  free.push(buffer);
  freeTurnBuffers.set(buffer.length, free);
  freeBytes += buffer.length;
}

/**
 * Gives back a turn's audio from {@link PcmCollector.lend} once nothing reads it any more (after
 * its transcription); anything else, or a second give-back, is ignored.
 */
export function releaseTurnAudio(audio: Buffer): void {
  if (!lent.delete(audio.buffer)) return;
  keepTurnBuffer(Buffer.from(audio.buffer, 0, audio.buffer.byteLength));
}

/** Appends a turn's audio into one buffer: one copy in (another only when a long turn outgrows it), none out. */
export class PcmCollector {
  private bytes: Buffer | null = null;
  length = 0;

  /** Appends `source[start, end)` (all of it by default). */
  append(source: Buffer, start = 0, end = source.length): void {
    const needed = this.length + end - start;
    let bytes = this.bytes;
    if (!bytes || needed > bytes.length) {
      let capacity = bytes ? bytes.length : FIRST_TURN_BYTES;
      while (capacity < needed) capacity *= 2;
      const grown = takeTurnBuffer(capacity); // only the written part is ever read
      if (bytes) {
        bytes.copy(grown, 0, 0, this.length);
        keepTurnBuffer(bytes);
      }
      this.bytes = bytes = grown;
    }
    source.copy(bytes, this.length, start, end);
    this.length = needed;
  }

  /**
   * The first `limit` bytes collected, lent: {@link releaseTurnAudio} gives them back once read
   * (never given back, they are garbage like any buffer). The collector is emptied.
   */
  lend(limit = this.length): Buffer {
    const bytes = this.bytes;
    const length = Math.min(limit, this.length);
    this.bytes = null;
    this.length = 0;
    if (!bytes) return Buffer.alloc(0);
    lent.add(bytes.buffer);
    return bytes.subarray(0, length);
  }

  /** Empties the collector, its buffer back to the free list. */
  release(): void {
    if (this.bytes) keepTurnBuffer(this.bytes);
    this.bytes = null;
    this.length = 0;
  }
}

/** The newest whole frames heard while idle, in one preallocated buffer. */
export class FrameRing {
  private frames: Buffer;
  private next = 0;
  count = 0;

  constructor(private capacity: number) {
    this.frames = Buffer.alloc(capacity * FRAME_BYTES);
  }

  /** Keeps the whole frames of `source[start, end)`: one copy, or two where the ring wraps. */
  push(source: Buffer, start: number, end: number): void {
    if (this.capacity === 0) return;
    let frames = (end - start) / FRAME_BYTES;
    if (frames > this.capacity) {
      start = end - this.capacity * FRAME_BYTES;
      frames = this.capacity;
    }
    const first = Math.min(frames, this.capacity - this.next);
    source.copy(this.frames, this.next * FRAME_BYTES, start, start + first * FRAME_BYTES);
    if (first < frames) source.copy(this.frames, 0, start + first * FRAME_BYTES, end);
    this.next = (this.next + frames) % this.capacity;
    this.count = Math.min(this.count + frames, this.capacity);
  }

  /** Appends the newest `count` frames (at most all of them), oldest first, to `collector`: one copy, or two where the ring wraps. */
  appendNewest(count: number, collector: PcmCollector): void {
    const take = Math.min(count, this.count);
    const first = (this.next - take + this.capacity) % this.capacity;
    const run = Math.min(take, this.capacity - first);
    collector.append(this.frames, first * FRAME_BYTES, (first + run) * FRAME_BYTES);
    if (run < take) collector.append(this.frames, 0, (take - run) * FRAME_BYTES);
  }

  /** The newest `count` frames (at most all of them), oldest first. */
  newest(count: number): Buffer {
    const take = Math.min(count, this.count);
    const out = Buffer.allocUnsafe(take * FRAME_BYTES);
    for (let i = 0; i < take; i++) {
      const slot = (this.next - take + i + this.capacity) % this.capacity;
      this.frames.copy(out, i * FRAME_BYTES, slot * FRAME_BYTES, (slot + 1) * FRAME_BYTES);
    }
    return out;
  }

  clear(): void {
    this.next = 0;
    this.count = 0;
  }

  /** Changes the capacity, keeping the newest frames that still fit. */
  resize(capacity: number): void {
    if (capacity === this.capacity) return;
    const kept = this.newest(capacity);
    this.capacity = capacity;
    this.frames = Buffer.alloc(capacity * FRAME_BYTES);
    kept.copy(this.frames);
    this.count = kept.length / FRAME_BYTES;
    this.next = capacity === 0 ? 0 : this.count % capacity;
  }
}
