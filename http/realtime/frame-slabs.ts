// The memory output audio frames are rendered into: cut from 256 KB slabs, so ~75 frames share one
// ArrayBuffer instead of one per frame (Node's pool is 8 KB), and where the socket allows it the
// slabs are used again, so an answer's audio costs no new external memory (a mark-compact's trigger).

/** One slab: ~75 frames of 50 ms as wire text (3.4 KB each). */
const SLAB_BYTES = 256 * 1024;
/** Slabs kept for reuse: a task that renders more than this many slabs' frames gets fresh ones for the rest. */
const MAX_FREE_SLABS = 8;

/** Where a frame's bytes are cut from. */
export interface FrameMemory {
  /** `length` bytes for one frame (their content undefined until written). */
  take(length: number): Buffer;
}

/** Slabs cut in order; a full slab is replaced by `next()`. */
abstract class Slabs implements FrameMemory {
  private bytes: Buffer = Buffer.allocUnsafeSlow(0);
  private used = 0;

  take(length: number): Buffer {
    if (length > SLAB_BYTES / 4) return Buffer.allocUnsafe(length);
    if (this.used + length > this.bytes.length) {
      this.bytes = this.next(this.bytes);
      this.used = 0;
    }
    const out = this.bytes.subarray(this.used, this.used + length);
    this.used += (length + 7) & ~7; // the next frame on an 8-byte boundary, as Node's pool does
    return out;
  }

  /** A slab to cut from, `full` being done with (empty the first time). */
  protected abstract next(full: Buffer): Buffer;
}

/** Slabs never written twice: each frame's bytes stay its own, for sockets that may keep them. */
class FreshSlabs extends Slabs {
  protected next(): Buffer {
    return Buffer.allocUnsafeSlow(SLAB_BYTES);
  }
}

/**
 * Slabs written again once their frames are sent, for sockets done with a frame's bytes when the
 * task that sent it has run its microtasks (see CallSocket.borrowsBytes). A full slab is retired,
 * and free from the next turn of the loop's check phase (setImmediate), which every microtask of
 * the task that filled it precedes.
 */
class RecycledSlabs extends Slabs {
  private readonly free: Buffer[] = [];
  private retired: Buffer[] = [];
  private readonly release = () => {
    for (const slab of this.retired) if (this.free.length < MAX_FREE_SLABS) this.free.push(slab);
    this.retired = [];
  };

  protected next(full: Buffer): Buffer {
    if (full.length > 0) {
      if (this.retired.length === 0) setImmediate(this.release);
      this.retired.push(full);
    }
    return this.free.pop() ?? Buffer.allocUnsafeSlow(SLAB_BYTES);
  }
}

/** Frame memory for sockets that may keep the bytes sent (every frame its own). */
export const freshFrameMemory: FrameMemory = new FreshSlabs();
/** Frame memory for sockets that borrow the bytes sent until the sending task's microtasks ran. */
export const recycledFrameMemory: FrameMemory = new RecycledSlabs();
