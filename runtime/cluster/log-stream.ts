import { jetstreamManager, JetStreamApiError, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { whileElecting } from './log-entry.js';

/**
 * The JetStream stream holding the cluster's log: created by the first node, read for its bounds,
 * trimmed behind snapshots.
 */
export class LogStream {
  /** The stream-info request in flight, and the one queued behind it (see {@link lastSeq}). */
  private asking: Promise<number> | null = null;
  private nextAsk: Promise<number> | null = null;

  private constructor(
    readonly jsm: JetStreamManager,
    readonly name: string,
  ) {}

  /** Opens stream `name` over `subject`, creating it with `replicas` copies when no node has yet. */
  static async open(
    nc: NatsConnection,
    options: { stream: string; subject: string; replicas: number },
  ): Promise<LogStream> {
    const jsm = await whileElecting(() => jetstreamManager(nc));
    try {
      await whileElecting(() => jsm.streams.info(options.stream));
    } catch (err) {
      if (!(err instanceof JetStreamApiError)) throw err;
      await whileElecting(() =>
        jsm.streams.add({
          name: options.stream,
          subjects: [options.subject],
          num_replicas: options.replicas,
          storage: StorageType.File,
          duplicate_window: 120 * 1e9,
        }),
      ).catch(async (addErr: unknown) => {
        // Another node created it first.
        if (!(addErr instanceof JetStreamApiError)) throw addErr;
        await jsm.streams.info(options.stream);
      });
    }
    return new LogStream(jsm, options.stream);
  }

  /** The first sequence stream `name` still holds, or null when there is no such stream yet. */
  static async firstSeq(nc: NatsConnection, name: string): Promise<number | null> {
    const jsm = await whileElecting(() => jetstreamManager(nc));
    try {
      return (await whileElecting(() => jsm.streams.info(name))).state.first_seq;
    } catch (err) {
      if (err instanceof JetStreamApiError) return null;
      throw err;
    }
  }

  /** The log's first and last sequence now (the first moves up when the log is trimmed behind a snapshot). */
  async bounds(): Promise<{ first: number; last: number }> {
    const info = await whileElecting(() => this.jsm.streams.info(this.name));
    return { first: info.state.first_seq, last: info.state.last_seq };
  }

  /**
   * The log's last sequence, from a request sent after this call. Calls made while the stream is
   * being asked wait for, and share, the next request, so a flood of callers (unknown tokens)
   * costs the NATS servers at most two requests in flight, not one each.
   */
  lastSeq(): Promise<number> {
    if (!this.asking) {
      this.asking = this.bounds()
        .then(({ last }) => last)
        .finally(() => (this.asking = null));
      return this.asking;
    }
    this.nextAsk ??= this.asking
      .catch(() => undefined)
      .then(() => {
        this.nextAsk = null;
        return this.lastSeq();
      });
    return this.nextAsk;
  }

  /** Drops the log's entries below `seq` (every node has applied them and a snapshot holds them). */
  async trimBelow(seq: number): Promise<void> {
    await whileElecting(() => this.jsm.streams.purge(this.name, { seq }));
  }
}
