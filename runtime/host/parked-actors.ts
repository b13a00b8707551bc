import type { ActorStore, UnfinishedEntry } from './actor-store.js';

/** Who decides which owners' actors run on this node (cluster mode); one node serves them all by default. */
export type Serves = (owner: { ownerId: string }) => boolean;

/**
 * The actors waiting out of memory: unfinished, in a state their machine parks in, not loaded in
 * this process, and owned by someone this node serves. Nothing about them is kept in memory (their
 * deadlines aside, armed on the clock): the store's unfinished index is the list, its entry says
 * whether the state parks and who owns the actor, so no snapshot is decoded to tell.
 */
export class ParkedActors {
  constructor(
    private readonly stored: ActorStore,
    private readonly options: {
      /** Whether the actor is loaded in memory (then it is not parked). */
      loaded: (id: string) => boolean;
      /** Whether the machine is registered here (an unknown one cannot be woken). */
      known: (machine: string) => boolean;
      /** Whether this node serves the owner (read each time: placement changes while running). */
      serves: Serves;
    },
  ) {}

  /** The index entry of `id` when it is parked here; undefined otherwise. */
  entry(id: string): UnfinishedEntry | undefined {
    if (this.options.loaded(id)) return undefined;
    const entry = this.stored.unfinishedEntry(id);
    return entry && this.isParkedHere(entry) ? entry : undefined;
  }

  /** Every actor parked here, by id, in index order. */
  *entries(): Iterable<[string, UnfinishedEntry]> {
    for (const [id, entry] of this.stored.unfinishedEntries())
      if (!this.options.loaded(id) && this.isParkedHere(entry)) yield [id, entry];
  }

  /** How many actors are parked here, by machine. */
  countByMachine(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [, entry] of this.entries()) counts.set(entry.machine, (counts.get(entry.machine) ?? 0) + 1);
    return counts;
  }

  private isParkedHere(entry: UnfinishedEntry): boolean {
    return entry.parked && this.options.known(entry.machine) && this.options.serves(entry);
  }
}
