import { createActor, type AnyActorRef, type InspectionEvent, type Snapshot } from 'xstate';
import type { Bus } from '../bus/bus.js';
import { LocalBus } from '../bus/local-bus.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { StepSpans } from './step-spans.js';
import type { Tracer } from '@opentelemetry/api';
import type { Store } from '../store/store.js';
import type { LogEvent } from './actor-log.js';
import { ActorCommits } from './actor-commits.js';
import { ActorRegistry } from './actor-registry.js';
import type { ActorStep } from './actor-steps.js';
import { ActorStore, type ActorRecord, type CommitContent, type UnfinishedEntry } from './actor-store.js';
import { DeadlineTimers, type Deadlines } from './deadline-timers.js';
import { EventFanout, type Follower } from './event-fanout.js';
import { entryKey, unfinishedEntry, type CommittedTransition, type HostedMachine } from './hosted-machine.js';
import { machineDefinition } from './machine-diagram.js';
import { createLive, IdleParking, type Live } from './live-actor.js';
import { ParkedActors, type Serves } from './parked-actors.js';

export type { ActorRecord } from './actor-store.js';
export type { CommittedTransition, HostedMachine } from './hosted-machine.js';
export type { Follower } from './event-fanout.js';
export type { ActorStep } from './actor-steps.js';

const deadlinesOf = (snapshot: Snapshot<unknown>): Deadlines =>
  (snapshot as { context?: { deadlines?: Deadlines } }).context?.deadlines ?? {};

/**
 * Hosts durable actors. Every transition persists the actor's snapshot and appends the events it
 * emitted to its log with gap-free sequence numbers, in one transaction (`ActorCommits` over
 * `ActorStore`); followers get committed events only, through the bus (`EventFanout`); deadlines
 * kept as data in context are armed on the injected clock (`DeadlineTimers`); every actor in memory
 * is listed in the shared `ActorRegistry`. An actor whose machine `parks` in its state (it only
 * waits for a client or a deadline) leaves memory once nobody holds it, on a running server as
 * after a restart: its committed record is all there is to it, and the first event, call or
 * deadline that reaches it rehydrates it. On boot every unfinished actor comes back from a small
 * index: those at work are rehydrated from their snapshots at once (invoked promise actors restart
 * their step), parked ones only get their deadlines armed. The host is the only way to an actor.
 */
export class ActorHost {
  private readonly machines = new Map<string, HostedMachine>();
  private readonly live = new Map<string, Live>();
  /** Unfinished actors waiting in the store, out of memory. */
  private readonly parked: ParkedActors;
  private readonly parking: IdleParking;
  private readonly stored: ActorStore;
  private readonly commits: ActorCommits;
  private readonly timers: DeadlineTimers;
  private readonly fanout: EventFanout;
  private readonly observers = new Set<(transition: CommittedTransition) => void>();
  private readonly now: () => number;
  /** Tracing on only: a span per committed step, linked to the request that spawned the actor. */
  private readonly stepSpans: StepSpans | null;
  /** Committed transitions per machine since start (the metrics read it; a counter costs nothing to keep). */
  readonly transitions = new Map<string, number>();
  /** The directory of live actors this host shares with non-durable ones (completions). */
  readonly registry: ActorRegistry;

  constructor(
    store: Store,
    clock: Clock,
    private readonly logger: Logger,
    options: { bus?: Bus; registry?: ActorRegistry; history?: boolean; serves?: Serves; tracer?: Tracer | null } = {},
  ) {
    this.stepSpans = options.tracer ? new StepSpans(options.tracer) : null;
    this.stored = new ActorStore(store);
    this.parking = new IdleParking(
      (live) => this.live.get(live.record.id) === live,
      (live) => this.park(live),
    );
    this.parked = new ParkedActors(this.stored, {
      loaded: (id) => this.live.has(id),
      known: (machine) => this.machines.has(machine),
      serves: options.serves ?? (() => true),
    });
    this.timers = new DeadlineTimers(clock, (id, name) => {
      const live = this.wake(id);
      if (!live) return;
      // Rehydrated just now, it re-armed this very deadline from its snapshot: it fires once, here.
      this.timers.disarmOne(id, name);
      live.cause = `TIMER ${name}`;
      live.actor.send({ type: 'TIMER', name });
    });
    this.registry = options.registry ?? new ActorRegistry(clock);
    this.fanout = new EventFanout(
      options.bus ?? new LocalBus(),
      (id, after, upTo) => this.stored.read(id, after, upTo),
      logger,
    );
    this.now = () => clock.now();
    this.commits = new ActorCommits(
      this.stored,
      this.now,
      (name) => this.machines.get(name),
      options.history ?? false,
      this.stepSpans,
      {
        landed: (live, content, snapshot, step, transitions) => this.landed(live, content, snapshot, step, transitions),
        halt: (live, err) => this.halt(live, err),
      },
    );
  }

  /** Registers a machine under its name. */
  register(machine: HostedMachine): void {
    this.machines.set(machine.name, machine);
  }

  /** Every registered machine's definition, as JSON for visualisers. */
  definitions(): Record<string, unknown> {
    return Object.fromEntries([...this.machines].map(([name, m]) => [name, m.logic.toJSON()]));
  }

  /** One registered machine's definition with its eventless transitions (for charts and exports); undefined when unknown. */
  definition(name: string): unknown {
    const machine = this.machines.get(name);
    return machine ? machineDefinition(machine.logic) : undefined;
  }

  /** Calls `observer` after every committed transition; returns the unsubscribe. Free when nobody observes. */
  observe(observer: (transition: CommittedTransition) => void): () => void {
    this.observers.add(observer);
    return () => void this.observers.delete(observer);
  }

  /** Starts a new actor and resolves once its first state and events are durable. */
  async spawn(machineName: string, input: { id: string; ownerId: string; input: unknown }): Promise<AnyActorRef> {
    const machine = this.machine(machineName);
    const now = this.now();
    const record: ActorRecord = {
      id: input.id,
      machine: machineName,
      ownerId: input.ownerId,
      snapshot: null,
      nextSeq: 1,
      done: false,
      createdAt: now,
      updatedAt: now,
    };
    // Tracing on: the request span spawning it, kept with the actor so its steps link to it after a restart too.
    const startedBy = this.stepSpans?.startedBy();
    if (startedBy) record.startedBy = startedBy;
    this.stored.index(record);
    const live = this.attach(record, createActor(machine.logic, { input: input.input, id: input.id }));
    live.cause = 'xstate.init';
    live.actor.start();
    await live.lastCommit;
    if (live.failed) {
      this.stored.unindex(record);
      throw live.failed;
    }
    return live.actor;
  }

  private machine(name: string): HostedMachine {
    const machine = this.machines.get(name);
    if (!machine) throw new Error(`no machine registered as ${name}`);
    return machine;
  }

  private attach(record: ActorRecord, actor: AnyActorRef): Live {
    const live = createLive(record, actor);
    this.live.set(record.id, live);
    this.registry.add({ id: record.id, machine: record.machine, ownerId: record.ownerId, handle: actor });
    const emitted = actor.on('*', (event: { type: string }) => {
      const { type, ...data } = event;
      live.buffer.push({ seq: live.nextSeq++, type, ts: this.now(), data });
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
      live.stepBase = null; // the next step's base: memory held for nothing once the actor leaves
    };
    return live;
  }

  private persist(live: Live, snapshot: Snapshot<unknown>): void {
    // Starting a restored actor notifies its restored snapshot: nothing changed, nothing to write.
    if (live.restoring) {
      live.restoring = false;
      if (live.buffer.length === 0 && snapshot.status === 'active') {
        this.armDeadlines(live, snapshot);
        return;
      }
    }
    const events = live.buffer;
    live.buffer = [];
    this.commits.write(live, snapshot, events);
  }

  /** A commit is durable: readers, followers and observers see it, then deadlines and parking follow the state. */
  private landed(
    live: Live,
    { record, events }: Pick<CommitContent, 'record' | 'events'>,
    snapshot: Snapshot<unknown>,
    step: ActorStep | null,
    transitions: number,
  ): void {
    if (live.failed) return;
    live.record = record;
    if (events.length) live.committedSeq = events[events.length - 1]!.seq;
    this.transitions.set(record.machine, (this.transitions.get(record.machine) ?? 0) + transitions);
    this.fanout.published(record.id, live.committedSeq, events);
    if (this.observers.size > 0) this.notify(record, events, step);
    if (record.done) this.retire(live);
    else {
      this.armDeadlines(live, snapshot);
      this.parking.whenIdle(live);
    }
  }

  private notify(record: ActorRecord, events: readonly LogEvent[], step: ActorStep | null): void {
    const transition: CommittedTransition = {
      id: record.id,
      machine: record.machine,
      ownerId: record.ownerId,
      snapshot: record.snapshot,
      events,
      done: record.done,
      step,
    };
    for (const observer of this.observers) {
      try {
        observer(transition);
      } catch (err) {
        this.logger.warn('actor observer failed', { actor_id: record.id, err });
      }
    }
  }

  private armDeadlines(live: Live, snapshot: Snapshot<unknown>): void {
    this.timers.arm(live.record.id, deadlinesOf(snapshot));
  }

  /**
   * Stops an actor whose transition could not be persisted: what is not durable must not go on
   * to charge or answer. Its last committed record stays as it was.
   */
  private halt(live: Live, err: unknown): void {
    if (live.failed) return;
    live.failed = err instanceof Error ? err : new Error(String(err));
    this.logger.error('actor persist failed; actor halted', {
      actor_id: live.record.id,
      machine: live.record.machine,
      err,
    });
    this.retire(live);
    // Stopped outside the notification that may have brought us here.
    queueMicrotask(() => live.actor.stop());
  }

  private retire(live: Live): void {
    live.detach();
    this.timers.disarm(live.record.id);
    this.fanout.ended(live.record.id, live.committedSeq);
    this.live.delete(live.record.id);
    this.registry.remove(live.record.id);
  }

  /** Takes an idle actor out of memory: its committed record is all there is to it; its deadlines stay armed. */
  private park(live: Live): void {
    live.detach();
    this.live.delete(live.record.id);
    this.registry.remove(live.record.id);
    live.actor.stop();
  }

  /** The stored record of `id` if `ownerId` owns it (live or finished); undefined otherwise. */
  find(id: string, ownerId: string): ActorRecord | undefined {
    const record = this.live.get(id)?.record ?? this.stored.get(id);
    // A spawn whose first state is not committed yet is not there for readers.
    return record && record.ownerId === ownerId && record.snapshot !== null ? record : undefined;
  }

  /** The stored record of `id` whoever owns it, for the operator's inspector (live or finished). */
  record(id: string): ActorRecord | undefined {
    const record = this.live.get(id)?.record ?? this.stored.get(id);
    return record && record.snapshot !== null ? record : undefined;
  }

  /** The last committed record of every unfinished actor: those in memory in start order, then those parked in the store. */
  *liveRecords(): Iterable<ActorRecord> {
    yield* this.loadedRecords();
    for (const [id] of [...this.parked.entries()]) {
      const record = this.parked.entry(id) ? this.stored.get(id) : undefined;
      if (record && !record.done) yield record;
    }
  }

  /** The last committed record of every actor in memory, in start order. */
  *loadedRecords(): Iterable<ActorRecord> {
    for (const live of this.live.values()) if (live.record.snapshot !== null) yield live.record;
  }

  /** The step history of `id` after step `after`, at most `limit` steps. */
  steps(id: string, after: number, limit: number): ActorStep[] {
    return this.stored.steps.read(id, after, limit);
  }

  /** The state and context after log event `seq` of `id`, from the step history. */
  stepAfterSeq(id: string, seq: number): ActorStep | undefined {
    return this.stored.steps.afterSeq(id, seq);
  }

  /**
   * Feeds XState's inspection events of a live actor (and the actors it invoked) to `observer`
   * until the returned function is called; null when `id` is not live. Attached per viewer, so an
   * actor nobody inspects pays nothing for it.
   */
  inspect(id: string, observer: (event: InspectionEvent) => void): (() => void) | null {
    const live = this.wake(id);
    if (!live) return null;
    const release = this.parking.hold(live);
    const subscription = live.actor.system.inspect(observer);
    return () => {
      subscription.unsubscribe();
      release();
    };
  }

  /** Whether `id` is running (or waiting, in memory or parked) in this process. */
  isLive(id: string): boolean {
    return this.live.has(id) || this.parked.entry(id) !== undefined;
  }

  /** How many unfinished actors wait parked in the store. */
  get parkedCount(): number {
    let count = 0;
    for (const machineCount of this.parked.countByMachine().values()) count += machineCount;
    return count;
  }

  /** Actors parked in the store by machine (read from the small index; no snapshot is decoded). */
  parkedByMachine(): Map<string, number> {
    return this.parked.countByMachine();
  }

  /** The live actor `id`, rehydrating it first when it was parked (it parks again once idle). */
  private wake(id: string): Live | undefined {
    const live = this.live.get(id);
    if (live) return live;
    const entry = this.parked.entry(id);
    if (!entry) return undefined;
    const record = this.stored.get(id);
    if (!record || record.done) {
      this.timers.disarm(id);
      return undefined;
    }
    const woken = this.restore(record, entry);
    if (woken) this.parking.whenIdle(woken);
    return woken;
  }

  /** Brings one unfinished actor back from its record and starts it. */
  private restore(record: ActorRecord, entry: UnfinishedEntry): Live | undefined {
    const machine = this.machines.get(record.machine);
    if (!machine) {
      this.logger.warn('actor of an unregistered machine left parked', {
        actor_id: record.id,
        machine: record.machine,
      });
      return undefined;
    }
    machine.onRehydrate?.(record);
    const live = this.attach(
      record,
      createActor(machine.logic, { snapshot: record.snapshot as Snapshot<unknown>, id: record.id }),
    );
    live.indexed = entryKey(entry);
    live.parks = entry.parked;
    live.restoring = true;
    live.actor.start();
    return live;
  }

  /** Sends an event to a live actor; resolves once the resulting state is durable. False when not live. */
  async send(id: string, event: { type: string } & Record<string, unknown>): Promise<boolean> {
    const live = this.wake(id);
    if (!live) return false;
    live.cause = event.type;
    live.actor.send(event);
    await live.lastCommit;
    if (live.failed) throw live.failed;
    return true;
  }

  /** Resolves once a live actor's snapshot satisfies `test` and is durable (or it is no longer live). */
  async waitFor(id: string, test: (snapshot: Snapshot<unknown> & { value?: unknown }) => boolean): Promise<void> {
    const live = this.wake(id);
    if (!live) return;
    const release = this.parking.hold(live);
    try {
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
    } finally {
      release();
    }
  }

  /** Whether the live actor `id` would take `event` in its current state (guards included). */
  accepts(id: string, event: { type: string }): boolean {
    const snapshot = this.wake(id)?.actor.getSnapshot() as { can?(event: { type: string }): boolean } | undefined;
    return snapshot?.can?.(event) ?? false;
  }

  /** The committed log of `id` after `after`, at most `limit` events. */
  events(id: string, after: number, limit: number): LogEvent[] {
    const live = this.live.get(id);
    return this.stored.read(id, after, live ? live.committedSeq : Number.MAX_SAFE_INTEGER, limit);
  }

  /** Follows `id` from `after`: committed history, then live events, then `end` when it finishes. A parked actor stays parked. */
  follow(id: string, after: number, sink: Follower): () => void {
    const live = this.live.get(id);
    const parked = live ? undefined : this.parked.entry(id) && this.stored.get(id);
    const committedSeq = live ? live.committedSeq : parked && !parked.done ? parked.nextSeq - 1 : null;
    return this.fanout.follow(id, after, sink, committedSeq);
  }

  /** Records of one machine owned by `ownerId`, newest first. */
  list(machineName: string, ownerId: string, limit: number): ActorRecord[] {
    const out: ActorRecord[] = [];
    for (const id of this.stored.idsOwned(machineName, ownerId)) {
      const record = this.find(id, ownerId);
      if (record) out.push(record);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Stops (if live) and deletes an actor, its log and its index entry. */
  async remove(id: string): Promise<void> {
    this.timers.disarm(id);
    const live = this.live.get(id);
    if (live) {
      this.retire(live);
      live.actor.stop();
    }
    await this.stored.remove(id);
  }

  /**
   * Brings back every unfinished actor after a restart: those at work are rehydrated now, parked
   * ones get their deadlines armed and wait in the store. With `accept`, only the actors it
   * accepts (cluster mode: those of accounts this node serves). Returns how many came back in all.
   */
  rehydrate(accept?: Serves): number {
    let count = 0;
    for (const [id, entry] of this.stored.unfinished((record) =>
      unfinishedEntry(this.machines.get(record.machine), record),
    )) {
      // Cluster mode: only the actors of accounts this node serves.
      if (this.live.has(id) || (accept && !accept(entry))) continue;
      if (entry.parked && this.machines.has(entry.machine)) {
        this.timers.arm(id, entry.deadlines);
        count++;
        continue;
      }
      const record = this.stored.get(id);
      if (record && !record.done && this.restore(record, entry)) count++;
    }
    return count;
  }

  /**
   * Deletes the event logs and step histories of at most `limit` actors that ended before
   * `before` (and their records, for machines that `forgetAfterRetention`), in one transaction;
   * resolves with how many. The retention sweep calls it in batches.
   */
  expireEnded(before: number, limit: number): Promise<number> {
    return this.stored.expireEnded(
      before,
      limit,
      (record) => this.machines.get(record.machine)?.forgetAfterRetention === true,
    );
  }

  /** The last committed record of every unfinished actor in the store, live or not (cluster mode: placement and its view). */
  *unfinishedRecords(): Iterable<ActorRecord> {
    for (const [id] of this.stored.unfinished((record) => unfinishedEntry(this.machines.get(record.machine), record))) {
      const record = this.live.get(id)?.record ?? this.stored.get(id);
      if (record && !record.done && record.snapshot !== null) yield record;
    }
  }

  /** Stops timers and waits for pending writes; actors stay persisted for the next boot. */
  async close(): Promise<void> {
    this.timers.clear();
    this.parking.clear();
    const all = [...this.live.values()];
    for (const live of all) live.detach();
    await Promise.all(all.map((live) => live.lastCommit));
    for (const live of all) {
      this.retire(live);
      live.actor.stop();
    }
  }
}
