import { createActor, type AnyActorRef, type AnyStateMachine, type Snapshot } from 'xstate';
import { ActorLog, type LogEvent } from './actor-log.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { Store, Table } from './store.js';

/** An actor as stored: its machine by name, owner, persisted snapshot and log position. */
export interface ActorRecord {
  id: string;
  machine: string;
  ownerId: string;
  snapshot: unknown;
  /** The seq the next logged event gets; the log holds 1 … nextSeq − 1. */
  nextSeq: number;
  done: boolean;
  createdAt: number;
  updatedAt: number;
}

/** A machine the host can run, registered by name so the host knows no domain. */
export interface HostedMachine {
  name: string;
  logic: AnyStateMachine;
  /** Called when an unfinished actor is brought back after a restart, before it starts. */
  onRehydrate?(record: ActorRecord): void;
}

/** Receives an actor's events: history first, then live ones, then the end. */
export interface Follower {
  event(event: LogEvent): void;
  end(): void;
}

interface Live {
  /** The last committed record: what readers see, so nothing they read can be lost in a crash. */
  record: ActorRecord;
  /** The seq the next emitted event gets. */
  nextSeq: number;
  actor: AnyActorRef;
  buffer: LogEvent[];
  committedSeq: number;
  followers: Set<{ sink: Follower; cursor: number }>;
  timers: Map<string, { at: number; timer: NodeJS.Timeout }>;
  lastCommit: Promise<void>;
  /** Detaches the host's listeners, so stopping the actor is not mistaken for it finishing. */
  detach: () => void;
  /** Set while a rehydrated actor starts. */
  restoring: boolean;
}

/** Deadlines a machine keeps in `context.deadlines` (name → epoch ms); the host fires `{type:'TIMER', name}`. */
type Deadlines = Record<string, number | null | undefined>;

/**
 * Hosts durable actors. Every transition persists the actor's snapshot and appends the events it
 * emitted to its log with gap-free sequence numbers, in one LMDB transaction; followers read the
 * log from a cursor and then receive live events only after they are committed. On boot every
 * unfinished actor is rehydrated from its snapshot (invoked promise actors restart their step) and
 * its deadlines are re-armed. The host is the only way to reach an actor.
 */
export class ActorHost {
  private readonly machines = new Map<string, HostedMachine>();
  private readonly live = new Map<string, Live>();
  private readonly records: Table<ActorRecord>;
  private readonly byOwner: Table<true>;
  readonly log: ActorLog;

  constructor(private readonly store: Store, private readonly clock: Clock, private readonly logger: Logger) {
    this.records = store.table<ActorRecord>('actors');
    this.byOwner = store.table<true>('actors_by_owner');
    this.log = new ActorLog(store);
  }

  /** Registers a machine under its name. */
  register(machine: HostedMachine): void {
    this.machines.set(machine.name, machine);
  }

  /** Every registered machine's definition, as JSON for visualisers. */
  definitions(): Record<string, unknown> {
    return Object.fromEntries([...this.machines].map(([name, m]) => [name, m.logic.toJSON()]));
  }

  /** Starts a new actor and resolves once its first state and events are durable. */
  async spawn(machineName: string, input: { id: string; ownerId: string; input: unknown }): Promise<AnyActorRef> {
    const machine = this.machine(machineName);
    const now = this.clock.now();
    const record: ActorRecord = { id: input.id, machine: machineName, ownerId: input.ownerId, snapshot: null, nextSeq: 1, done: false, createdAt: now, updatedAt: now };
    void this.byOwner.put([machineName, input.ownerId, now, input.id], true);
    const live = this.attach(record, createActor(machine.logic, { input: input.input, id: input.id }));
    live.actor.start();
    await live.lastCommit;
    return live.actor;
  }

  private machine(name: string): HostedMachine {
    const machine = this.machines.get(name);
    if (!machine) throw new Error(`no machine registered as ${name}`);
    return machine;
  }

  private attach(record: ActorRecord, actor: AnyActorRef): Live {
    const live: Live = {
      record,
      nextSeq: record.nextSeq,
      actor,
      buffer: [],
      committedSeq: record.nextSeq - 1,
      followers: new Set(),
      timers: new Map(),
      lastCommit: Promise.resolve(),
      detach: () => {},
      restoring: false,
    };
    this.live.set(record.id, live);
    const emitted = actor.on('*', (event: { type: string }) => {
      const { type, ...data } = event;
      live.buffer.push({ seq: live.nextSeq++, type, ts: this.clock.now(), data });
    });
    const subscription = actor.subscribe({
      next: (snapshot: Snapshot<unknown>) => this.persist(live, snapshot),
      error: (err: unknown) => {
        this.logger.error('actor failed', { actor_id: record.id, machine: record.machine, err });
        this.persist(live, actor.getSnapshot() as Snapshot<unknown>);
      },
    });
    live.detach = () => {
      emitted.unsubscribe();
      subscription.unsubscribe();
    };
    return live;
  }

  private persist(live: Live, snapshot: Snapshot<unknown>): void {
    // Starting a restored actor notifies its restored snapshot: nothing changed, nothing to write.
    if (live.restoring) {
      live.restoring = false;
      if (live.buffer.length === 0 && snapshot.status === 'active') {
        this.arm(live, (snapshot as { context?: { deadlines?: Deadlines } }).context?.deadlines ?? {});
        return;
      }
    }
    const events = live.buffer;
    live.buffer = [];
    const done = snapshot.status !== 'active';
    const record: ActorRecord = { ...live.record, snapshot: live.actor.getPersistedSnapshot(), nextSeq: live.nextSeq, done, updatedAt: this.clock.now() };
    live.lastCommit = this.store
      .transaction(() => {
        void this.records.put(record.id, record);
        this.log.appendInTransaction(record.id, events);
      })
      .then(() => {
        live.record = record;
        if (events.length) live.committedSeq = events[events.length - 1]!.seq;
        this.deliver(live, events);
        if (done) this.retire(live);
        else this.arm(live, (snapshot as { context?: { deadlines?: Deadlines } }).context?.deadlines ?? {});
      })
      .catch((err: unknown) => this.logger.error('actor persist failed', { actor_id: record.id, err }));
  }

  /**
   * Hands newly committed events to followers. Followers that were caught up get the very objects
   * just committed (one decode, one encoding shared by all of them); only laggards read the log.
   * One failing follower does not cost the others the event.
   */
  private deliver(live: Live, fresh: readonly LogEvent[]): void {
    const freshFrom = fresh.length ? fresh[0]!.seq - 1 : live.committedSeq;
    for (const follower of live.followers) {
      if (follower.cursor >= live.committedSeq) continue;
      const events = follower.cursor === freshFrom ? fresh : this.log.read(live.record.id, follower.cursor, live.committedSeq);
      follower.cursor = live.committedSeq;
      try {
        for (const event of events) follower.sink.event(event);
      } catch (err) {
        this.logger.warn('actor follower failed', { actor_id: live.record.id, err });
      }
    }
  }

  private arm(live: Live, deadlines: Deadlines): void {
    for (const [name, entry] of live.timers) {
      if (deadlines[name] !== entry.at) {
        clearTimeout(entry.timer);
        live.timers.delete(name);
      }
    }
    for (const [name, at] of Object.entries(deadlines)) {
      if (typeof at !== 'number' || live.timers.has(name)) continue;
      const timer = setTimeout(() => {
        live.timers.delete(name);
        live.actor.send({ type: 'TIMER', name });
      }, Math.max(0, at - this.clock.now()));
      timer.unref();
      live.timers.set(name, { at, timer });
    }
  }

  private retire(live: Live): void {
    live.detach();
    for (const entry of live.timers.values()) clearTimeout(entry.timer);
    for (const follower of live.followers) follower.sink.end();
    live.followers.clear();
    this.live.delete(live.record.id);
  }

  /** The stored record of `id` if `ownerId` owns it (live or finished); undefined otherwise. */
  find(id: string, ownerId: string): ActorRecord | undefined {
    const record = this.live.get(id)?.record ?? this.records.get(id);
    // A spawn whose first state is not committed yet is not there for readers.
    return record && record.ownerId === ownerId && record.snapshot !== null ? record : undefined;
  }

  /** Whether `id` is running (or waiting) in this process. */
  isLive(id: string): boolean {
    return this.live.has(id);
  }

  /** Sends an event to a live actor; resolves once the resulting state is durable. False when not live. */
  async send(id: string, event: { type: string } & Record<string, unknown>): Promise<boolean> {
    const live = this.live.get(id);
    if (!live) return false;
    live.actor.send(event);
    await live.lastCommit;
    return true;
  }

  /** Resolves once a live actor's snapshot satisfies `test` and is durable (or it is no longer live). */
  async waitFor(id: string, test: (snapshot: Snapshot<unknown> & { value?: unknown }) => boolean): Promise<void> {
    const live = this.live.get(id);
    if (!live) return;
    const reached = (snapshot: Snapshot<unknown>) => snapshot.status !== 'active' || test(snapshot);
    if (!reached(live.actor.getSnapshot() as Snapshot<unknown>)) {
      await new Promise<void>((resolve) => {
        const subscription = live.actor.subscribe({
          next: (snapshot: Snapshot<unknown>) => {
            if (!reached(snapshot)) return;
            subscription.unsubscribe();
            resolve();
          },
          error: () => resolve(),
          complete: () => resolve(),
        });
      });
    }
    await live.lastCommit;
  }

  /** Whether the live actor `id` would take `event` in its current state (guards included). */
  accepts(id: string, event: { type: string }): boolean {
    const snapshot = this.live.get(id)?.actor.getSnapshot() as { can?(event: { type: string }): boolean } | undefined;
    return snapshot?.can?.(event) ?? false;
  }

  /** The committed log of `id` after `after`, at most `limit` events. */
  events(id: string, after: number, limit: number): LogEvent[] {
    const live = this.live.get(id);
    const upTo = live ? live.committedSeq : Number.MAX_SAFE_INTEGER;
    return this.log.read(id, after, upTo, limit);
  }

  /** Follows `id` from `after`: committed history, then live events, then `end` when it finishes. */
  follow(id: string, after: number, sink: Follower): () => void {
    const live = this.live.get(id);
    if (!live) {
      for (const event of this.log.read(id, after, Number.MAX_SAFE_INTEGER)) sink.event(event);
      sink.end();
      return () => {};
    }
    for (const event of this.log.read(id, after, live.committedSeq)) sink.event(event);
    const follower = { sink, cursor: Math.max(after, live.committedSeq) };
    live.followers.add(follower);
    return () => live.followers.delete(follower);
  }

  /** Records of one machine owned by `ownerId`, newest first. */
  list(machineName: string, ownerId: string, limit: number): ActorRecord[] {
    const out: ActorRecord[] = [];
    const range = this.byOwner.getRange({ start: [machineName, ownerId, Number.MAX_SAFE_INTEGER], end: [machineName, ownerId, 0], reverse: true });
    for (const { key } of range) {
      const record = this.find((key as [string, string, number, string])[3], ownerId);
      if (record) out.push(record);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Stops (if live) and deletes an actor, its log and its index entry. */
  async remove(id: string): Promise<void> {
    const live = this.live.get(id);
    if (live) {
      this.retire(live);
      live.actor.stop();
    }
    const record = this.records.get(id);
    await this.store.transaction(() => {
      if (record) void this.byOwner.remove([record.machine, record.ownerId, record.createdAt, id]);
      void this.records.remove(id);
      this.log.removeInTransaction(id);
    });
  }

  /** Brings back every unfinished actor; returns how many. */
  rehydrate(): number {
    let count = 0;
    for (const { value: record } of this.records.getRange()) {
      if (record.done || this.live.has(record.id)) continue;
      const machine = this.machines.get(record.machine);
      if (!machine) {
        this.logger.warn('actor of an unregistered machine left parked', { actor_id: record.id, machine: record.machine });
        continue;
      }
      machine.onRehydrate?.(record);
      const live = this.attach(record, createActor(machine.logic, { snapshot: record.snapshot as Snapshot<unknown>, id: record.id }));
      live.restoring = true;
      live.actor.start();
      count++;
    }
    return count;
  }

  /** Stops timers and waits for pending writes; actors stay persisted for the next boot. */
  async close(): Promise<void> {
    const all = [...this.live.values()];
    for (const live of all) live.detach();
    await Promise.all(all.map((live) => live.lastCommit));
    for (const live of all) {
      this.retire(live);
      live.actor.stop();
    }
  }
}
