import { DeliverPolicy, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.js';
import { packr, whileElecting, type Entry } from './log-entry.js';
import type { LogStream } from './log-stream.js';

/** How long the applier may make no progress, with writes waiting on it, before the reader is started again. */
const STALL_MS = 2000;

/** What the reader tells its store, and asks of it. */
export interface LogReaderHooks {
  /** The next entry, in order, with no gap. */
  deliver(seq: number, entry: Entry): void;
  /** How far the log is applied, and whether writes wait on it (a stall matters only then). */
  applied(): number;
  waiting(): boolean;
  /** The log was trimmed past this node: it must restart from a snapshot. */
  behind(first: number): void;
}

/**
 * Reads one stream in order, from where its store left off, through an ordered consumer. The
 * consumer is opened again after a reconnect to another NATS server, on a gap, and when it stalls
 * while the log has more (an ordered consumer can go quiet when its server dies).
 */
export class LogReader {
  /** The last sequence delivered. */
  private received: number;
  private generation = 0;
  private stopConsumer: (() => void) | null = null;
  private watchdog: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly stream: LogStream,
    private readonly logger: Logger,
    private readonly hooks: LogReaderHooks,
    from: number,
  ) {
    this.received = from;
  }

  async start(): Promise<void> {
    await this.open();
    void (async () => {
      for await (const status of this.nc.status()) if (status.type === 'reconnect') this.restart('reconnected to NATS');
    })().catch(() => undefined);
    let seenApplied = this.hooks.applied();
    let stalledSince = 0;
    this.watchdog = setInterval(() => {
      const applied = this.hooks.applied();
      if (applied !== seenApplied || !this.hooks.waiting()) {
        seenApplied = applied;
        stalledSince = 0;
        return;
      }
      if (stalledSince === 0) stalledSince = performance.now();
      else if (performance.now() - stalledSince > STALL_MS) {
        stalledSince = 0;
        void this.stream.bounds().then(
          ({ last }) => last > this.received && this.restart('log reader stalled'),
          () => undefined,
        );
      }
    }, STALL_MS / 2);
    this.watchdog.unref();
  }

  stop(): void {
    this.closed = true;
    clearInterval(this.watchdog);
    this.stopConsumer?.();
  }

  private async open(): Promise<void> {
    const generation = ++this.generation;
    const from = this.received + 1;
    const consumer = await whileElecting(() =>
      this.js.consumers.get(
        this.stream.name,
        from > 1 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: from } : {},
      ),
    );
    const messages = await consumer.consume();
    if (generation !== this.generation) {
      void messages.stop();
      return;
    }
    this.stopConsumer = () => void messages.stop();
    void (async () => {
      for await (const message of messages) {
        if (generation !== this.generation) break;
        if (message.seq <= this.received) continue;
        if (message.seq !== this.received + 1) {
          this.onGap();
          break;
        }
        this.received = message.seq;
        this.hooks.deliver(message.seq, packr.unpack(message.data) as Entry);
      }
    })().catch((err: unknown) => this.restart(`log reader failed: ${String(err)}`));
  }

  /** A gap: either the consumer skipped (read again), or the log was trimmed past this node. */
  private onGap(): void {
    void this.stream.bounds().then(
      ({ first }) => {
        if (first <= this.received + 1) return this.restart(`gap in the log after ${this.received}`);
        this.logger.error('replicated store: the log was trimmed past this node; it must restart from a snapshot', {
          received: this.received,
          first,
        });
        this.stop();
        this.hooks.behind(first);
      },
      () => this.restart(`gap in the log after ${this.received}`),
    );
  }

  private restart(why: string): void {
    if (this.closed) return;
    this.logger.warn('replicated store: restarting the log reader', { why, received: this.received });
    this.stopConsumer?.();
    this.stopConsumer = null;
    this.generation++;
    void this.open().catch((err: unknown) => {
      this.logger.error('replicated store: log reader could not restart; retrying', { err });
      setTimeout(() => this.restart('retry'), 1000).unref();
    });
  }
}
