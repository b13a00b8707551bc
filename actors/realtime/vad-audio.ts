// The audio the VAD keeps: PCM16 little-endian mono at 24 kHz in 10 ms frames, the idle padding
// in a ring and a turn in blocks, each copied in once.

const SAMPLE_RATE = 24_000;
export const BYTES_PER_MS = (SAMPLE_RATE * 2) / 1000;
export const FRAME_MS = 10;
export const FRAME_SAMPLES = (SAMPLE_RATE / 1000) * FRAME_MS;
export const FRAME_BYTES = FRAME_SAMPLES * 2;
// Turn audio grows in 1 s blocks, concatenated once when the turn ends.
const BLOCK_BYTES = BYTES_PER_MS * 1000;
/** Blocks kept for the next turns (3 MB): enough for the turns that end together, bounded for a burst of long ones. */
const MAX_FREE_BLOCKS = 64;
/** Blocks done with, shared by every call's VAD: a turn's blocks are reused, not garbage (external memory, a mark-compact's trigger). */
const freeBlocks: Buffer[] = [];

/**
 * Appends audio into fixed blocks so a long turn costs one copy in and one concatenation out; the
 * blocks return to a shared free list once the turn is concatenated or dropped.
 */
export class PcmCollector {
  private blocks: Buffer[] = [];
  private used = 0;
  length = 0;

  /** Appends `source[start, end)` (all of it by default). */
  append(source: Buffer, start = 0, end = source.length): void {
    let at = start;
    while (at < end) {
      let block = this.blocks[this.blocks.length - 1];
      if (!block || this.used === block.length) {
        block = freeBlocks.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES); // only the written part is ever read
        this.blocks.push(block);
        this.used = 0;
      }
      const copied = source.copy(block, this.used, at, end);
      this.used += copied;
      at += copied;
    }
    this.length += end - start;
  }

  /** The first `limit` bytes collected, as one buffer of its own; the collector is emptied. */
  concat(limit = this.length): Buffer {
    const out = Buffer.allocUnsafe(Math.min(limit, this.length));
    let at = 0;
    for (const block of this.blocks) {
      if (at === out.length) break;
      at += block.copy(out, at, 0, Math.min(block.length, out.length - at));
    }
    this.release();
    return out;
  }

  /** Empties the collector, its blocks back to the free list. */
  release(): void {
    for (const block of this.blocks) if (freeBlocks.length < MAX_FREE_BLOCKS) freeBlocks.push(block);
    this.blocks = [];
    this.used = 0;
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
