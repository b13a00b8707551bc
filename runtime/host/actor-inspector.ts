import type { InspectionEvent } from 'xstate';
import type { Clock } from '../clock.js';
import type { ActorHost, ActorRecord, ActorStep, CommittedTransition } from './actor-host.js';
import type { LogEvent } from './actor-log.js';

/** A live actor as the inspector lists it. */
export interface ActorSummary {
  id: string;
  machine: string;
  ownerId: string;
  /** Active state paths (`running.thinking`; one per region of a parallel state); empty for actors without a machine. */
  state: string[];
  status: string;
  createdAt: number;
  updatedAt: number;
  /** Whether the host persists it (false for direct runs such as completions). */
  durable: boolean;
}

/** What the list can be narrowed to. */
export interface ActorFilter {
  machine?: string;
  /** A state path or its prefix (`running` matches `running.thinking`). */
  state?: string;
  ownerId?: string;
  /** Part of the id. */
  q?: string;
  minAgeMs?: number;
  maxAgeMs?: number;
}

/** One page of the list, and the cursor of the next (null at the end). */
export interface ActorPage {
  actors: ActorSummary[];
  next: string | null;
  /** How many live actors matched the filter in all. */
  total: number;
}

/** One actor in full: its record, state paths and whether it is live here. */
export interface ActorDetail {
  summary: ActorSummary;
  record: ActorRecord;
  live: boolean;
}

/** What a viewer of one actor receives: its log, its committed steps and XState's own inspection events. */
export interface ActorViewer {
  event(event: LogEvent): void;
  step(step: ActorStep, done: boolean): void;
  /** An event the actor (or one it invoked) received, before it is committed; only while live. */
  received(item: { type: string; actor: string }): void;
  end(): void;
}

/** `{running: {work: 'a'}}` → `['running.work.a']`; parallel regions give one path each. */
export function statePaths(value: unknown, prefix = ''): string[] {
  if (typeof value === 'string') return [prefix + value];
  if (!value || typeof value !== 'object') return prefix ? [prefix.slice(0, -1)] : [];
  const out: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const below = statePaths(child, `${prefix}${key}.`);
    out.push(...(below.length ? below : [prefix + key]));
  }
  return out;
}

const encodeCursor = (summary: ActorSummary): string =>
  Buffer.from(`${summary.createdAt}:${summary.id}`).toString('base64url');

function decodeCursor(cursor: string): { createdAt: number; id: string } | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const colon = text.indexOf(':');
  const createdAt = Number(text.slice(0, colon));
  return colon > 0 && Number.isFinite(createdAt) ? { createdAt, id: text.slice(colon + 1) } : null;
}

const byAge = (a: ActorSummary, b: ActorSummary): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A cursor that does not decode: the route answers 422 for it. */
export class InvalidCursorError extends Error {}

/**
 * The operator's view of every live actor: lists with filters and cursor paging, one actor with its
 * record and history, and live viewers fed by committed transitions, the log and XState's inspect
 * hook. It observes the host only while someone views, so unwatched actors pay nothing for it.
 */
export class ActorInspector {
  private readonly viewers = new Map<string, Set<ActorViewer>>();
  private readonly listWatchers = new Set<(summary: ActorSummary, done: boolean) => void>();
  private unobserve: (() => void) | null = null;

  constructor(
    private readonly host: ActorHost,
    private readonly clock: Clock,
  ) {}

  private summaryOf(record: ActorRecord): ActorSummary {
    const snapshot = record.snapshot as { value?: unknown; status?: string } | null;
    return {
      id: record.id,
      machine: record.machine,
      ownerId: record.ownerId,
      state: statePaths(snapshot?.value),
      status: record.done ? (snapshot?.status ?? 'done') : 'active',
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
      durable: true,
    };
  }

  /** Every live actor of this process: the host's durable ones, then the registry's direct runs. */
  private *all(): Iterable<ActorSummary> {
    for (const record of this.host.liveRecords()) yield this.summaryOf(record);
    for (const entry of this.host.registry.list()) {
      if (this.host.isLive(entry.id)) continue;
      yield {
        id: entry.id,
        machine: entry.machine,
        ownerId: entry.ownerId,
        state: [],
        status: 'active',
        createdAt: entry.startedAt,
        updatedAt: entry.startedAt,
        durable: false,
      };
    }
  }

  /** Live actors matching `filter`, oldest first, `limit` from after `cursor`. */
  list(filter: ActorFilter, cursor: string | null, limit: number): ActorPage {
    const after = cursor === null ? null : decodeCursor(cursor);
    if (cursor !== null && after === null) throw new InvalidCursorError('cursor does not decode');
    const now = this.clock.now();
    const matched: ActorSummary[] = [];
    for (const summary of this.all()) if (matches(summary, filter, now)) matched.push(summary);
    matched.sort(byAge);
    let start = 0;
    if (after) {
      const mark = { createdAt: after.createdAt, id: after.id } as ActorSummary;
      while (start < matched.length && byAge(matched[start]!, mark) <= 0) start++;
    }
    const actors = matched.slice(start, start + limit);
    const next = start + limit < matched.length ? encodeCursor(actors[actors.length - 1]!) : null;
    return { actors, next, total: matched.length };
  }

  /** One actor (live or finished), or undefined. */
  get(id: string): ActorDetail | undefined {
    const record = this.host.record(id);
    if (!record) {
      const direct = [...this.all()].find((summary) => summary.id === id && !summary.durable);
      if (!direct) return undefined;
      const stub: ActorRecord = {
        id,
        machine: direct.machine,
        ownerId: direct.ownerId,
        snapshot: null,
        nextSeq: 1,
        done: false,
        createdAt: direct.createdAt,
        updatedAt: direct.updatedAt,
      };
      return { summary: direct, record: stub, live: true };
    }
    return { summary: this.summaryOf(record), record, live: this.host.isLive(id) };
  }

  /** The committed log of `id` after `after`. */
  events(id: string, after: number, limit: number): LogEvent[] {
    return this.host.events(id, after, limit);
  }

  /** The step history of `id` after step `after`. */
  steps(id: string, after: number, limit: number): ActorStep[] {
    return this.host.steps(id, after, limit);
  }

  /** The state and context after log event `seq`. */
  stepAfterSeq(id: string, seq: number): ActorStep | undefined {
    return this.host.stepAfterSeq(id, seq);
  }

  /** Feeds `viewer` the log of `id` from `after`, then committed steps and received events live; returns the stop. */
  view(id: string, after: number, viewer: ActorViewer): () => void {
    let set = this.viewers.get(id);
    if (!set) this.viewers.set(id, (set = new Set()));
    set.add(viewer);
    this.observeWhileNeeded();
    const stopInspect = this.host.inspect(id, (event) => forwardReceived(event, viewer));
    const stopFollow = this.host.follow(id, after, { event: (entry) => viewer.event(entry), end: () => viewer.end() });
    return () => {
      stopFollow();
      stopInspect?.();
      set.delete(viewer);
      if (set.size === 0) this.viewers.delete(id);
      this.observeWhileNeeded();
    };
  }

  /** Calls `watcher` with the summary of every actor that commits a transition; returns the stop. */
  watchList(watcher: (summary: ActorSummary, done: boolean) => void): () => void {
    this.listWatchers.add(watcher);
    this.observeWhileNeeded();
    return () => {
      this.listWatchers.delete(watcher);
      this.observeWhileNeeded();
    };
  }

  /** How many viewers and list watchers are attached (the metrics and the bench read it). */
  get watching(): number {
    let count = this.listWatchers.size;
    for (const set of this.viewers.values()) count += set.size;
    return count;
  }

  /** Observes the host exactly while somebody views: no observer, no cost per transition. */
  private observeWhileNeeded(): void {
    const needed = this.viewers.size > 0 || this.listWatchers.size > 0;
    if (needed && !this.unobserve) this.unobserve = this.host.observe((transition) => this.committed(transition));
    else if (!needed && this.unobserve) {
      this.unobserve();
      this.unobserve = null;
    }
  }

  private committed(transition: CommittedTransition): void {
    const viewers = this.viewers.get(transition.id);
    if (viewers && transition.step) for (const viewer of [...viewers]) viewer.step(transition.step, transition.done);
    if (this.listWatchers.size === 0) return;
    const record = this.host.record(transition.id);
    if (!record) return;
    const summary = this.summaryOf(record);
    for (const watcher of [...this.listWatchers]) watcher(summary, transition.done);
  }
}

function matches(summary: ActorSummary, filter: ActorFilter, now: number): boolean {
  if (filter.machine !== undefined && summary.machine !== filter.machine) return false;
  if (filter.ownerId !== undefined && summary.ownerId !== filter.ownerId) return false;
  if (filter.q !== undefined && !summary.id.includes(filter.q)) return false;
  const age = now - summary.createdAt;
  if (filter.minAgeMs !== undefined && age < filter.minAgeMs) return false;
  if (filter.maxAgeMs !== undefined && age > filter.maxAgeMs) return false;
  if (filter.state !== undefined) {
    const wanted = filter.state;
    if (!summary.state.some((path) => path === wanted || path.startsWith(`${wanted}.`))) return false;
  }
  return true;
}

/** Events an actor received, by type only (payloads stay in the log, where they are committed). */
function forwardReceived(event: InspectionEvent, viewer: ActorViewer): void {
  if (event.type !== '@xstate.event') return;
  viewer.received({ type: event.event.type, actor: (event.actorRef as { id?: string }).id ?? '' });
}
