import type { Clock } from '../clock.js';

/** A live actor as the registry lists it. */
export interface LiveActor<H = unknown> {
  id: string;
  /** The machine (or kind) it runs: `chat-session`, `chat-completion`, `realtime-call`, … */
  machine: string;
  ownerId: string;
  /** What callers reach it through (an actor ref, a completion handle). */
  handle: H;
  startedAt: number;
  /** When it finished; it stays reachable for a grace period after. */
  retiredAt: number | null;
}

/** A finished actor in its grace: one small object (its handle is usually a shared one per final state). */
interface Retired {
  id: string;
  machine: string;
  ownerId: string;
  handle: unknown;
  expiresAt: number;
}

/** How many finished actors stay reachable at most, whatever their grace: memory stays bounded under any load. */
const MAX_RETIRED = 10_000;

/**
 * Every live actor of this process, durable (hosted) or not (completions), addressed by id: the
 * one directory routes, tools and the inspector reach actors through, so cross-node routing can go
 * behind it. A finished actor stays reachable for a grace period so late status calls answer,
 * within a bounded number (the oldest go first) and without a timer per actor: retired entries
 * sit in a queue in retirement order and are dropped from its front as they expire, whenever the
 * registry is touched (a queue, not the Map's own order: a Map emptied from its front is walked
 * over its deleted slots until it rehashes, which cost 1.3 % of a proxied request's CPU).
 */
export class ActorRegistry {
  private readonly live = new Map<string, LiveActor>();
  private readonly retired = new Map<string, Retired>();
  /** Retired entries in retirement order; slots before `head` are done, and a slot whose entry was replaced or removed is skipped. */
  private order: Retired[] = [];
  private head = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxRetired = MAX_RETIRED,
  ) {}

  /** Registers a live actor (replacing what was registered under its id). */
  add<H>(actor: { id: string; machine: string; ownerId: string; handle: H }): void {
    const previous = this.live.get(actor.id);
    this.retired.delete(actor.id);
    this.live.set(actor.id, {
      id: actor.id,
      machine: actor.machine,
      ownerId: actor.ownerId,
      handle: actor.handle,
      startedAt: previous?.startedAt ?? this.clock.now(),
      retiredAt: null,
    });
  }

  /** The handle of `id` if it runs `machine` and `ownerId` owns it; undefined otherwise, so foreign ids look unknown. */
  get<H>(id: string, ownerId: string, machine: string): H | undefined {
    let entry: LiveActor | Retired | undefined = this.live.get(id);
    if (!entry) {
      this.prune();
      entry = this.retired.get(id);
    }
    return entry && entry.ownerId === ownerId && entry.machine === machine ? (entry.handle as H) : undefined;
  }

  /**
   * Keeps `id` reachable (no longer listed as live) for `graceMs`, through `finalHandle` when given
   * (a small record, so a finished actor holds no memory of its run); forgets it at once when 0.
   * Retired records are kept small on purpose: thousands of them interleaved with request garbage
   * otherwise fragment the old generation (measured: 2 KB closures per record grew the heap 4×).
   */
  retire<H>(id: string, graceMs = 0, finalHandle?: H): void {
    const entry = this.live.get(id);
    if (!entry) return;
    this.live.delete(id);
    if (graceMs <= 0) return;
    const retired: Retired = {
      id,
      machine: entry.machine,
      ownerId: entry.ownerId,
      handle: finalHandle ?? entry.handle,
      expiresAt: this.clock.now() + graceMs,
    };
    this.retired.set(id, retired);
    this.order.push(retired);
    this.prune();
  }

  /** Drops retired entries past their grace, and the oldest beyond the bound. */
  private prune(): void {
    const now = this.clock.now();
    const order = this.order;
    while (this.head < order.length) {
      const entry = order[this.head]!;
      if (this.retired.get(entry.id) === entry) {
        if (entry.expiresAt > now && this.retired.size <= this.maxRetired) break;
        this.retired.delete(entry.id);
      }
      order[this.head++] = undefined as unknown as Retired;
    }
    if (this.head > 1024 && this.head * 2 > order.length) {
      this.order = order.slice(this.head);
      this.head = 0;
    }
  }

  /** Forgets `id` now. */
  remove(id: string): void {
    this.live.delete(id);
    this.retired.delete(id);
  }

  /** Live actors, optionally of one machine, oldest first (finished ones in their grace are not listed). */
  list(machine?: string): LiveActor[] {
    const out: LiveActor[] = [];
    for (const entry of this.live.values()) if (!machine || entry.machine === machine) out.push(entry);
    return out;
  }

  /** How many actors are reachable (live, and finished ones in their grace). */
  get size(): number {
    this.prune();
    return this.live.size + this.retired.size;
  }
}
