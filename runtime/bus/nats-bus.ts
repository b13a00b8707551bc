import {
  connect,
  NoRespondersError,
  RequestError,
  TimeoutError,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import { pack, unpack } from 'msgpackr';
import { type Bus, type BusHandler, BusRequestError, type BusResponder } from './bus.js';

/** What a responder sends back: its answer, or why it refused (an Error does not cross the wire). */
type Reply = { ok: true; value: unknown } | { ok: false; error: string };

/** Responders of every node share one queue group, so each request reaches one of them. */
const RESPONDER_QUEUE = 'svc-responders';

/**
 * The bus across a cluster on core NATS: messages are msgpack-encoded (the store's encoding),
 * subscribers get their own decoded copy, and request/reply uses NATS's own inboxes and
 * no-responders status. Delivery order per subject and publisher is NATS's; nothing is kept, as
 * with the local bus (durable history lives in the actor log, not on the bus).
 */
export class NatsBus implements Bus {
  private readonly subscriptions = new Set<Subscription>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly onHandlerError: (err: unknown, subject: string) => void,
  ) {}

  /** A bus on a connection the caller owns (cluster mode shares one with JetStream). */
  static over(nc: NatsConnection, onHandlerError: (err: unknown, subject: string) => void = () => {}): NatsBus {
    return new NatsBus(nc, onHandlerError);
  }

  /** Connects to `servers` (a list of NATS URLs); `name` shows in the server's connection list. */
  static async connect(
    servers: string[],
    options: { name?: string; onHandlerError?: (err: unknown, subject: string) => void } = {},
  ): Promise<NatsBus> {
    const nc = await connect({ servers, name: options.name ?? 'svc', maxReconnectAttempts: -1 });
    return new NatsBus(nc, options.onHandlerError ?? (() => {}));
  }

  publish(subject: string, message: unknown): void {
    this.nc.publish(subject, pack(message));
  }

  subscribe(subject: string, handler: BusHandler): () => void {
    const subscription = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return this.onHandlerError(err, subject);
        try {
          handler(unpack(msg.data), msg.subject);
        } catch (error) {
          this.onHandlerError(error, msg.subject);
        }
      },
    });
    this.subscriptions.add(subscription);
    return () => {
      this.subscriptions.delete(subscription);
      subscription.unsubscribe();
    };
  }

  async request(subject: string, message: unknown, options: { timeoutMs?: number } = {}): Promise<unknown> {
    let raw: Uint8Array;
    try {
      raw = (await this.nc.request(subject, pack(message), { timeout: options.timeoutMs ?? 30_000 })).data;
    } catch (err) {
      if (err instanceof NoRespondersError || (err instanceof RequestError && err.isNoResponders()))
        throw new BusRequestError('no_responders', subject);
      if (err instanceof TimeoutError || (err instanceof RequestError && err.cause instanceof TimeoutError))
        throw new BusRequestError('timeout', subject);
      throw err;
    }
    const reply = unpack(raw) as Reply;
    if (!reply.ok) throw new Error(reply.error);
    return reply.value;
  }

  respond(subject: string, responder: BusResponder): () => void {
    const subscription = this.nc.subscribe(subject, {
      queue: RESPONDER_QUEUE,
      callback: (err, msg) => {
        if (err) return this.onHandlerError(err, subject);
        const answer = (reply: Reply) => {
          try {
            msg.respond(pack(reply));
          } catch (error) {
            this.onHandlerError(error, msg.subject);
          }
        };
        Promise.resolve()
          .then(() => responder(unpack(msg.data)))
          .then(
            (value) => answer({ ok: true, value }),
            (error: unknown) => answer({ ok: false, error: error instanceof Error ? error.message : String(error) }),
          );
      },
    });
    this.subscriptions.add(subscription);
    return () => {
      this.subscriptions.delete(subscription);
      subscription.unsubscribe();
    };
  }

  /** Resolves once the server has seen everything published so far (a round trip). */
  flush(): Promise<void> {
    return this.nc.flush();
  }

  async close(): Promise<void> {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.subscriptions.clear();
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}
