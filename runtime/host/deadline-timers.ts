import type { Clock, TimerHandle } from '../clock.js';

/** Deadlines a machine keeps in `context.deadlines` (name → epoch ms, or null when disarmed). */
export type Deadlines = Record<string, number | null | undefined>;

/** One armed deadline: where it sits in the heap (−1 once it left it). */
interface Entry {
  id: string;
  name: string;
  at: number;
  /** Arming order: equal deadlines fire in the order they were armed, as separate timers would. */
  seq: number;
  index: number;
}

/**
 * Arms actors' deadlines on the clock. Deadlines are data in the actor's context (persisted
 * snapshots carry no scheduled events), so after every commit, and after a rehydration, the host
 * hands them here: a changed deadline is re-armed, a removed one cleared. All deadlines share one
 * clock timer, set for the earliest (a binary heap orders them), so 100,000 parked actors cost a
 * heap entry each, not a timer each; when it fires, every deadline then due fires in order.
 */
export class DeadlineTimers {
  private readonly armed = new Map<string, Entry[]>();
  private readonly heap: Entry[] = [];
  private seq = 0;
  private timer: TimerHandle | null = null;
  /** The `at` the clock timer is set for. */
  private timerAt = Number.POSITIVE_INFINITY;

  /** `fire(id, name)` runs when a deadline falls due (it is disarmed first). */
  constructor(
    private readonly clock: Clock,
    private readonly fire: (id: string, name: string) => void,
  ) {}

  /** Makes `id`'s armed deadlines match `deadlines`. */
  arm(id: string, deadlines: Deadlines): void {
    let entries = this.armed.get(id);
    if (entries) {
      for (let i = entries.length - 1; i >= 0; i--) {
        const entry = entries[i]!;
        if (deadlines[entry.name] === entry.at) continue;
        this.removeAt(entry.index);
        entries.splice(i, 1);
      }
    }
    for (const name in deadlines) {
      const at = deadlines[name];
      if (typeof at !== 'number' || entries?.some((entry) => entry.name === name)) continue;
      if (!entries) this.armed.set(id, (entries = []));
      const entry: Entry = { id, name, at, seq: this.seq++, index: this.heap.length };
      entries.push(entry);
      this.heap.push(entry);
      this.up(entry.index);
    }
    if (entries?.length === 0) this.armed.delete(id);
    this.schedule();
  }

  /** Clears every deadline of `id`. */
  disarm(id: string): void {
    const entries = this.armed.get(id);
    if (!entries) return;
    this.armed.delete(id);
    for (const entry of entries) this.removeAt(entry.index);
    this.schedule();
  }

  /** Clears the deadline `name` of `id`, if armed. */
  disarmOne(id: string, name: string): void {
    const entries = this.armed.get(id);
    const index = entries?.findIndex((entry) => entry.name === name) ?? -1;
    if (!entries || index < 0) return;
    this.removeAt(entries[index]!.index);
    entries.splice(index, 1);
    if (entries.length === 0) this.armed.delete(id);
    this.schedule();
  }

  /** Clears every deadline. */
  clear(): void {
    this.armed.clear();
    for (const entry of this.heap) entry.index = -1;
    this.heap.length = 0;
    this.schedule();
  }

  /** Deadlines armed now. */
  get size(): number {
    return this.heap.length;
  }

  /** Sets the one clock timer for the earliest deadline (or none). */
  private schedule(): void {
    const next = this.heap[0]?.at ?? Number.POSITIVE_INFINITY;
    if (next === this.timerAt) return;
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = null;
    this.timerAt = next;
    if (next !== Number.POSITIVE_INFINITY)
      this.timer = this.clock.setTimer(() => this.due(next), next - this.clock.now());
  }

  /** The timer set for `at` fired: fire what is due by then, one at a time (a firing may arm or disarm others). */
  private due(at: number): void {
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    const until = Math.max(at, this.clock.now());
    for (let top = this.heap[0]; top && top.at <= until; top = this.heap[0]) {
      this.removeAt(0);
      const entries = this.armed.get(top.id);
      if (entries) {
        entries.splice(entries.indexOf(top), 1);
        if (entries.length === 0) this.armed.delete(top.id);
      }
      this.fire(top.id, top.name);
    }
    this.schedule();
  }

  private before(a: Entry, b: Entry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private removeAt(index: number): void {
    const heap = this.heap;
    const removed = heap[index];
    if (!removed) return;
    removed.index = -1;
    const last = heap.pop()!;
    if (last === removed) return;
    heap[index] = last;
    last.index = index;
    this.up(index);
    this.down(last.index);
  }

  private up(index: number): void {
    const heap = this.heap;
    const entry = heap[index]!;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(entry, heap[parent]!)) break;
      heap[index] = heap[parent]!;
      heap[index]!.index = index;
      index = parent;
    }
    heap[index] = entry;
    entry.index = index;
  }

  private down(index: number): void {
    const heap = this.heap;
    const entry = heap[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && this.before(heap[right]!, heap[left]!) ? right : left;
      if (!this.before(heap[child]!, entry)) break;
      heap[index] = heap[child]!;
      heap[index]!.index = index;
      index = child;
    }
    heap[index] = entry;
    entry.index = index;
  }
}
