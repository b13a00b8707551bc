import { randomBytes } from 'node:crypto';
import { DeliverPolicy, jetstream, jetstreamManager, JetStreamApiError, StorageType, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { pack, unpack } from 'msgpackr';

/** JetStream's error code for a publish whose expected last subject sequence did not hold. */
const WRONG_LAST_SEQUENCE = 10071;

/** How long an append keeps retrying while the stream elects a new leader (a server was lost). */
const APPEND_RETRY_MS = 30_000;

/** An append refused because another writer appended to the key first: the caller's lease is stale. */
export class FencedAppendError extends Error {
  override name = 'FencedAppendError';
  constructor(readonly key: string, readonly expectedSeq: number) {
    super(`append to ${key} fenced: its last entry is no longer ${expectedSeq}`);
  }
}

/** Runs `attempt` again while the cluster does not answer (a server died and a leader is being elected), until `APPEND_RETRY_MS`. */
async function whileElecting<T>(attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + APPEND_RETRY_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      // An API error is the cluster's answer; anything else (a timeout, no responders) is its silence.
      if (err instanceof JetStreamApiError || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** One entry of a key's log, with the stream sequence it was stored at. */
export interface LogEntry {
  seq: number;
  entry: unknown;
}

/**
 * Per-key append-only logs in one JetStream stream (a subject per key), replicated to `replicas`
 * servers: an append resolves only once the stream acknowledged it (stored on a quorum), so what
 * it covers survives the loss of a node, and it is fenced by the key's expected last sequence, so
 * a writer that lost its lease (someone else appended since) cannot append. Entries are msgpack,
 * the store's encoding. An append retried across a leader election carries one message id, so the
 * stream's de-duplication makes the retry idempotent. The building block of cluster mode's
 * durability (issue 18); not yet used by the actor host.
 *
 * Limit found on Debian's nats-server 2.9.10: on a replicated (R3) stream the expected-sequence
 * check does not hold under concurrent publishes (26 of 30 races let both writers append; R1
 * streams hold). A stale writer that appends after the other is fenced, but two racing writers are
 * not, so fencing for cluster mode cannot rest on this check with that server version.
 */
export class ReplicatedLog {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly stream: string,
    private readonly prefix: string,
  ) {}

  /** Opens (creating when missing) the stream `name` over subjects `<prefix>.>` with `replicas` copies. */
  static async open(nc: NatsConnection, options: { name: string; prefix: string; replicas: number }): Promise<ReplicatedLog> {
    const jsm = await whileElecting(() => jetstreamManager(nc));
    try {
      await whileElecting(() => jsm.streams.info(options.name));
    } catch (err) {
      if (!(err instanceof JetStreamApiError)) throw err;
      await whileElecting(() => jsm.streams.add({ name: options.name, subjects: [`${options.prefix}.>`], num_replicas: options.replicas, storage: StorageType.File }));
    }
    return new ReplicatedLog(jetstream(nc), jsm, options.name, options.prefix);
  }

  private subject(key: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(key)) throw new Error(`log key ${JSON.stringify(key)} is not a subject token`);
    return `${this.prefix}.${key}`;
  }

  /** Appends `entry` to `key`'s log if its last entry is still `expectedSeq` (0: the log is empty); resolves with the new entry's seq. */
  async append(key: string, entry: unknown, expectedSeq: number): Promise<number> {
    const subject = this.subject(key);
    const data = pack(entry);
    // The same message id on every attempt: a retry of an append that did land is de-duplicated.
    const msgID = `${key}.${expectedSeq}.${randomBytes(8).toString('hex')}`;
    try {
      const ack = await whileElecting(() => this.js.publish(subject, data, { msgID, expect: { lastSubjectSequence: expectedSeq } }));
      return ack.seq;
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === WRONG_LAST_SEQUENCE) throw new FencedAppendError(key, expectedSeq);
      throw err;
    }
  }

  /** The last entry of `key`, or null when its log is empty. */
  async last(key: string): Promise<LogEntry | null> {
    const subject = this.subject(key);
    const stored = await whileElecting(() => this.jsm.streams.getMessage(this.stream, { last_by_subj: subject })).catch((err: unknown) => {
      if (err instanceof JetStreamApiError && err.status === 404) return null;
      throw err;
    });
    return stored ? { seq: stored.seq, entry: unpack(stored.data) } : null;
  }

  /** Every entry of `key` after seq `after`, in order (an ordered consumer reads them). */
  async read(key: string, after = 0): Promise<LogEntry[]> {
    const last = await this.last(key);
    if (!last || last.seq <= after) return [];
    const consumer = await whileElecting(() => this.js.consumers.get(this.stream, {
      // One subject as a string: a list needs nats-server 2.10, Debian ships 2.9.10.
      filter_subjects: this.subject(key),
      ...(after > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: after + 1 } : {}),
    }));
    const out: LogEntry[] = [];
    const messages = await consumer.consume();
    try {
      for await (const message of messages) {
        out.push({ seq: message.seq, entry: unpack(message.data) });
        if (message.seq >= last.seq) break;
      }
    } finally {
      messages.stop();
      await consumer.delete().catch(() => undefined);
    }
    return out;
  }
}
