/** An entry in the registry: the actor and the account that owns it. */
interface Entry<A> {
  actor: A;
  ownerId: string;
  expiry: NodeJS.Timeout | undefined;
}

/**
 * Live actors addressed by id, for the routes that reach them (live input, cancel, status). The
 * registry is the only way to an actor, so cross-node routing can go behind it. Finished actors
 * stay reachable for a grace period so late status calls still answer.
 */
export class ActorRegistry<A> {
  private readonly entries = new Map<string, Entry<A>>();

  constructor(private readonly graceMs: number) {}

  /** Registers a live actor. */
  add(id: string, ownerId: string, actor: A): void {
    this.entries.set(id, { actor, ownerId, expiry: undefined });
  }

  /** The actor `id` if `ownerId` owns it; undefined otherwise, so foreign ids look unknown. */
  get(id: string, ownerId: string): A | undefined {
    const entry = this.entries.get(id);
    return entry && entry.ownerId === ownerId ? entry.actor : undefined;
  }

  /** Forgets the actor after the grace period. */
  retire(id: string): void {
    const entry = this.entries.get(id);
    if (!entry || entry.expiry) return;
    entry.expiry = setTimeout(() => this.entries.delete(id), this.graceMs);
    entry.expiry.unref();
  }

  /** How many actors are registered. */
  get size(): number {
    return this.entries.size;
  }
}
