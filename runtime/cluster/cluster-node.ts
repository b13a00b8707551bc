import { randomBytes } from 'node:crypto';
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../logger.js';
import type { Table } from '../store/store.js';
import type { ReplicatedStore } from './replicated-store.js';

/** A node as the cluster sees it: where it serves, its incarnation and its state. */
export interface NodeRecord {
  id: string;
  /** The HTTP base URL other nodes forward to. */
  url: string;
  /** This incarnation of the node (a restart is a new one). */
  epoch: string;
  startedAt: number;
  /**
   * `joining` (booting: serves no account and is not fenced for silence, so a slow boot costs
   * nothing); `up`; `draining` (SIGTERM: hands its accounts over); `down` (left, or fenced).
   */
  state: 'joining' | 'up' | 'draining' | 'down';
}

/** Which node serves an account now: the node and the incarnation that claimed it. */
export interface HomeRecord {
  node: string;
  epoch: string;
  since: number;
}

/** A heartbeat, on core NATS (not the log: nothing of it needs keeping). */
interface Beat {
  id: string;
  epoch: string;
}

/** The subject heartbeats travel on. */
const BEAT_SUBJECT = 'svc.cluster.beat';

/** The tables of the cluster's own state, in the replicated store. */
export const CLUSTER_TABLES = { nodes: 'cluster_nodes', fences: 'cluster_fences', homes: 'cluster_homes' } as const;

export interface ClusterNodeOptions {
  nodeId: string;
  /** How long a node may go without a heartbeat others see before they fence it and take over. */
  leaseMs: number;
  logger: Logger;
}

/**
 * This node's membership of the cluster. Placement is by account: each account has one home
 * node, recorded in the replicated store, and every request of that account is served there (the
 * account's actors, holds and rate limits live in one place, so money and limits are exact).
 *
 * Liveness: each node publishes a heartbeat on core NATS; another node that has not heard one
 * from a node for `leaseMs` of its own monotonic time fences it (writes its fence key, which every write of
 * the fenced node reads, so none of them lands after; see `ReplicatedStore.guardWith`) and marks
 * it down. Homes of a node that is down, draining or of an older incarnation are free to claim.
 * Safety rests on the log's order only: a slow clock or a false suspicion can move an account
 * early, never give it two homes that both write.
 */
export class ClusterNode {
  readonly nodes: Table<NodeRecord>;
  readonly fences: Table<string>;
  readonly homes: Table<HomeRecord>;
  readonly epoch = randomBytes(6).toString('hex');
  private url = '';
  private draining = false;
  private timers: NodeJS.Timeout[] = [];
  /** Per other node: the incarnation last heard and when (this node's monotonic ms). */
  private readonly heard = new Map<string, { epoch: string; at: number }>();
  /** When this node first saw each incarnation in the table (a node that never beats is fenced a lease later). */
  private readonly noticed = new Map<string, number>();
  private unsubscribe: () => void = () => {};
  private readonly claims = new Map<string, Promise<string>>();
  /** Nodes known to be down or draining, so orphaned work is looked for once per change. */
  private readonly gone = new Set<string>();
  /** Called after this node claimed an account (its unfinished actors must come here). */
  onClaimed: (accountId: string) => void = () => {};
  /** Called when homes may have been freed (a node went down or is draining): claim what is orphaned. */
  onHomesFreed: () => void = () => {};

  constructor(
    readonly store: ReplicatedStore,
    private readonly bus: Bus,
    private readonly options: ClusterNodeOptions,
  ) {
    this.nodes = store.table<NodeRecord>(CLUSTER_TABLES.nodes);
    this.fences = store.table<string>(CLUSTER_TABLES.fences);
    this.homes = store.table<HomeRecord>(CLUSTER_TABLES.homes);
  }

  get id(): string {
    return this.options.nodeId;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Joins as a new incarnation, `joining`: writes this node's fence and record, then guards every
   * later write with the fence. It serves accounts once {@link start}ed.
   */
  async join(): Promise<void> {
    const now = Date.now();
    await this.store.transaction(() => {
      void this.fences.put(this.id, this.epoch);
      void this.nodes.put(this.id, { id: this.id, url: '', epoch: this.epoch, startedAt: now, state: 'joining' });
    });
    this.store.guardWith(CLUSTER_TABLES.fences, this.id);
  }

  /** Serves from `url` (once listening): `up`, heartbeats and sweeps on. */
  async start(url: string): Promise<void> {
    this.url = url;
    await this.update({ url, state: 'up' });
    this.unsubscribe = this.bus.subscribe(BEAT_SUBJECT, (message) => {
      const beat = message as Beat;
      if (beat.id !== this.id) this.heard.set(beat.id, { epoch: beat.epoch, at: performance.now() });
    });
    const beatMs = Math.max(100, Math.floor(this.options.leaseMs / 4));
    this.beat();
    this.timers.push(setInterval(() => this.beat(), beatMs).unref());
    this.timers.push(setInterval(() => void this.sweep(), beatMs).unref());
  }

  private beat(): void {
    if (!this.store.isFenced) this.bus.publish(BEAT_SUBJECT, { id: this.id, epoch: this.epoch } satisfies Beat);
  }

  /** How long ago this node last heard `id` (null: not this incarnation, or never). */
  heardMsAgo(id: string, epoch: string): number | null {
    if (id === this.id) return 0;
    const heard = this.heard.get(id);
    return heard && heard.epoch === epoch ? Math.round(performance.now() - heard.at) : null;
  }

  private async update(change: Partial<NodeRecord>): Promise<void> {
    if (this.store.isFenced) return;
    const record = this.nodes.get(this.id);
    if (!record || record.epoch !== this.epoch) return;
    await this.nodes
      .put(this.id, { ...record, ...change })
      .catch((err: unknown) => this.options.logger.warn('cluster node record not written', { err }));
  }

  /** Whether `home` still names a live incarnation that serves accounts. */
  valid(home: HomeRecord | undefined): home is HomeRecord {
    if (!home) return false;
    const node = this.nodes.get(home.node);
    return (
      node !== undefined &&
      (node.state === 'up' || node.state === 'draining') &&
      node.epoch === home.epoch &&
      this.fences.get(home.node) === home.epoch
    );
  }

  /** The node that serves `accountId`: its valid home, or this node after claiming it (null while draining or not started, and homeless). */
  async homeOf(accountId: string): Promise<string | null> {
    const home = this.homes.get(accountId);
    if (this.valid(home)) return home.node;
    if (this.draining || this.store.isFenced || this.timers.length === 0) return null;
    return this.claim(accountId);
  }

  /** Claims `accountId` unless someone holds a valid home for it; returns who serves it. Concurrent calls share one claim. */
  claim(accountId: string): Promise<string> {
    let claim = this.claims.get(accountId);
    if (!claim) {
      claim = this.claimOnce(accountId).finally(() => this.claims.delete(accountId));
      this.claims.set(accountId, claim);
    }
    return claim;
  }

  private async claimOnce(accountId: string): Promise<string> {
    let claimed = false;
    const node = await this.store.transaction(() => {
      claimed = false;
      const home = this.homes.get(accountId);
      if (this.valid(home)) return home.node;
      void this.homes.put(accountId, { node: this.id, epoch: this.epoch, since: Date.now() });
      claimed = true;
      return this.id;
    });
    if (claimed) {
      this.options.logger.info('account claimed', { account_id: accountId, node: this.id });
      this.onClaimed(accountId);
    }
    return node;
  }

  /** Fences nodes not heard from for a lease, and reports freed homes. */
  private async sweep(): Promise<void> {
    if (this.store.isFenced) return;
    const now = performance.now();
    let freed = false;
    for (const { value: node } of this.nodes.getRange()) {
      if (node.id === this.id) continue;
      const incarnation = `${node.id}:${node.epoch}`;
      if (node.state === 'joining') continue;
      if (node.state !== 'up') {
        if (!this.gone.has(`${incarnation}:${node.state}`)) {
          this.gone.add(`${incarnation}:${node.state}`);
          freed = true;
        }
        if (node.state === 'down') continue;
      }
      if (this.fences.get(node.id) !== node.epoch || this.draining) continue;
      const heard = this.heard.get(node.id);
      let since = heard?.epoch === node.epoch ? heard.at : this.noticed.get(incarnation);
      if (since === undefined) this.noticed.set(incarnation, (since = now));
      if (now - since < this.options.leaseMs) continue;
      const fenced = await this.store
        .transaction(() => {
          const current = this.nodes.get(node.id);
          if (
            !current ||
            current.state === 'down' ||
            current.epoch !== node.epoch ||
            this.fences.get(node.id) !== node.epoch
          )
            return false;
          void this.fences.put(node.id, `fenced by ${this.id}:${this.epoch}`);
          void this.nodes.put(node.id, { ...current, state: 'down' });
          return true;
        })
        .catch(() => false);
      if (fenced) {
        this.options.logger.warn('node fenced: not heard from for a lease', {
          node: node.id,
          lease_ms: this.options.leaseMs,
        });
        freed = true;
      }
    }
    if (freed && !this.draining) this.onHomesFreed();
  }

  /** Accounts whose home is this incarnation. */
  *ownAccounts(): Iterable<string> {
    for (const { key, value } of this.homes.getRange())
      if (value.node === this.id && value.epoch === this.epoch) yield key as string;
  }

  /** Starts draining: claims nothing more, and tells the others its accounts are free to take. */
  async drain(): Promise<void> {
    this.draining = true;
    await this.update({ state: 'draining' });
  }

  /** Leaves the cluster: marks this node down (its homes are free) and stops its timers. */
  async leave(): Promise<void> {
    this.stop();
    await this.update({ state: 'down' });
  }

  /** Stops heartbeats and sweeps without telling anyone. */
  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.unsubscribe();
  }
}
