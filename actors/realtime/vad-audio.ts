// The audio the VAD keeps: PCM16 little-endian mono at 24 kHz in 10 ms frames, the idle padding
// in a ring and a turn in blocks, each copied in once.

const SAMPLE_RATE = 24_000;
export const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;
export const FRAME_MS = 10;
export const FRAME_SAMPLES = (SAMPLE_RATE / 1000) * FRAME_MS;
export const FRAME_BYTES = FRAME_SAMPLES * 2;
// Turn audio grows in 1 s blocks, concatenated once when the turn ends.
const BLOCK_BYTES = BYTES_PER_MS * 1000;

/** Appends audio into fixed blocks so a long turn costs one copy in and one concatenation out. */
export class PcmCollector {
  private readonly blocks: Buffer[] = [];
  private block: Buffer | null = null;
  private used = 0;
  length = 0;

  /** Appends `source[start, end)` (all of it by default). */
  append(source: Buffer, start = 0, end = source.length): void {
    let at = start;
    while (at < end) {
      if (!this.block || this.used === this.block.length) {
        if (this.block) this.blocks.push(this.block);
        this.block = Buffer.allocUnsafe(BLOCK_BYTES); // only the written part is ever read
        this.used = 0;
      }
      const copied = source.copy(this.block, this.used, at, end);
      this.used += copied;
      at += copied;
    }
    this.length += end - start;
  }

  /** The first `limit` bytes collected, as one buffer. */
  concat(limit = this.length): Buffer {
    const parts = this.block ? [...this.blocks, this.block.subarray(0, this.used)] : this.blocks;
    return Buffer.concat(parts, Math.min(limit, this.length));
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
