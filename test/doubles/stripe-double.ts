// A payment provider double: a small node:http server on loopback that answers the Stripe API
// paths the official `stripe` SDK calls (customers, prices by lookup key, checkout sessions,
// subscriptions, the billing portal), honours idempotency keys, records every request, and makes
// webhook deliveries signed with the SDK's own `webhooks.generateTestHeaderString`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Stripe from 'stripe';

export const STRIPE_TEST_KEY = 'sk_test_double_0123456789abcdef';
export const STRIPE_WEBHOOK_SECRET = 'whsec_double_0123456789abcdef';

type Form = Record<string, any>;

/** Decodes Stripe's form encoding (`a[b][0][c]=v`) into nested objects and arrays. */
export function decodeForm(body: string): Form {
  const root: Form = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: Form = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) node[part] = value;
      else node = node[part] ??= {};
    });
  }
  const arrays = (value: any): any => {
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    const mapped = Object.fromEntries(keys.map((k) => [k, arrays(value[k])]));
    return keys.length > 0 && keys.every((k) => /^\d+$/.test(k))
      ? keys.sort((a, b) => +a - +b).map((k) => mapped[k])
      : mapped;
  };
  return arrays(root);
}

/** A request the double received. */
export interface RecordedRequest {
  method: string;
  path: string;
  form: Form;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
}

/** A signed webhook delivery: the exact body and its Stripe-Signature header. */
export interface SignedEvent {
  id: string;
  payload: string;
  signature: string;
}

export const PLAN_PRICES: Record<string, { id: string; unit_amount: number }> = {
  'plus-2026-07': { id: 'price_plus', unit_amount: 2000 },
  'team-2026-07': { id: 'price_team', unit_amount: 10000 },
};

const MONTH_S = 30 * 86_400;

/** The double. `now()` (ms) dates objects and signatures, so a simulated clock can drive it. */
export class StripeDouble {
  readonly requests: RecordedRequest[] = [];
  readonly sessions = new Map<string, Form>();
  readonly subscriptions = new Map<string, Form>();
  private readonly idempotent = new Map<string, string>();
  private readonly stripe = new Stripe(STRIPE_TEST_KEY);
  private server!: Server;
  private counter = 0;
  private failures: number[] = [];
  url = '';

  constructor(private readonly now: () => number = Date.now) {}

  static async start(now?: () => number): Promise<StripeDouble> {
    const double = new StripeDouble(now);
    double.server = createServer((req, res) => double.handle(req, res));
    await new Promise<void>((resolve) => double.server.listen(0, '127.0.0.1', () => resolve()));
    double.url = `http://127.0.0.1:${(double.server.address() as { port: number }).port}`;
    return double;
  }

  /** The env that points the service at this double. */
  env(): Record<string, string> {
    return {
      SVC_STRIPE_SECRET_KEY: STRIPE_TEST_KEY,
      SVC_STRIPE_WEBHOOK_SECRET: STRIPE_WEBHOOK_SECRET,
      SVC_STRIPE_API_URL: this.url,
    };
  }

  /** The next `count` API calls answer `status` (500: the provider is down). */
  failNext(status: number, count = 1): void {
    for (let i = 0; i < count; i++) this.failures.push(status);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private id(prefix: string): string {
    return `${prefix}_test_${(++this.counter).toString().padStart(6, '0')}`;
  }

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://double');
      const form = req.method === 'GET' ? decodeForm(url.searchParams.toString()) : decodeForm(body);
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      this.requests.push({
        method: req.method ?? '',
        path: url.pathname,
        form,
        authorization: req.headers.authorization,
        idempotencyKey,
      });
      const send = (status: number, value: unknown) => {
        const text = JSON.stringify(value);
        if (idempotencyKey && status < 300)
          this.idempotent.set(`${req.method} ${url.pathname} ${idempotencyKey}`, text);
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${this.counter}` });
        res.end(text);
      };
      const failure = this.failures.shift();
      if (failure) return send(failure, { error: { type: 'api_error', message: 'double: injected failure' } });
      if (req.headers.authorization !== `Bearer ${STRIPE_TEST_KEY}`)
        return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      const replay = idempotencyKey && this.idempotent.get(`${req.method} ${url.pathname} ${idempotencyKey}`);
      if (replay) {
        res.writeHead(200, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
        return res.end(replay);
      }
      this.route(req.method ?? '', url.pathname, form, send);
    });
  }

  private route(method: string, path: string, form: Form, send: (status: number, value: unknown) => void): void {
    let match: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/customers')
      return send(200, { id: this.id('cus'), object: 'customer', email: form.email, metadata: form.metadata ?? {} });
    if (method === 'GET' && path === '/v1/prices') {
      const keys: string[] = form.lookup_keys ?? [];
      const data = keys
        .filter((key) => PLAN_PRICES[key])
        .map((key) => ({
          id: PLAN_PRICES[key]!.id,
          object: 'price',
          lookup_key: key,
          active: true,
          currency: 'usd',
          unit_amount: PLAN_PRICES[key]!.unit_amount,
          recurring: { interval: 'month' },
        }));
      return send(200, { object: 'list', data, has_more: false, url: '/v1/prices' });
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const id = this.id('cs');
      const session = {
        id,
        object: 'checkout.session',
        url: `https://checkout.double.test/pay/${id}`,
        expires_at: this.seconds() + 86_400,
        status: 'open',
        ...form,
      };
      this.sessions.set(id, session);
      return send(200, session);
    }
    if ((match = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const sub = this.subscriptions.get(match[1]!);
      if (!sub)
        return send(404, {
          error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such subscription' },
        });
      if (method === 'POST') this.updateSubscription(sub, form);
      return send(200, sub);
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions')
      return send(200, {
        id: this.id('bps'),
        object: 'billing_portal.session',
        customer: form.customer,
        url: `https://billing.double.test/session/${this.counter}`,
        return_url: form.return_url,
      });
    send(404, { error: { type: 'invalid_request_error', message: `double: no route ${method} ${path}` } });
  }

  private updateSubscription(sub: Form, form: Form): void {
    if (form.cancel_at_period_end !== undefined) sub.cancel_at_period_end = form.cancel_at_period_end === 'true';
    const item = form.items?.[0];
    if (item?.price) {
      const lookup = Object.keys(PLAN_PRICES).find((key) => PLAN_PRICES[key]!.id === item.price)!;
      sub.items.data[0].price = { id: item.price, object: 'price', lookup_key: lookup };
    }
    if (form.metadata) sub.metadata = { ...sub.metadata, ...form.metadata };
  }

  // ---- Webhook deliveries ----

  /** A signed event of `type` carrying `object`, dated now (or `createdMs`). */
  event(
    type: string,
    object: unknown,
    options: { createdMs?: number; secret?: string; id?: string } = {},
  ): SignedEvent {
    const id = options.id ?? this.id('evt');
    const created = Math.floor((options.createdMs ?? this.now()) / 1000);
    const payload = JSON.stringify({
      id,
      object: 'event',
      api_version: '2026-10-28.endive',
      created,
      type,
      livemode: false,
      pending_webhooks: 1,
      data: { object },
    });
    const signature = this.stripe.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? STRIPE_WEBHOOK_SECRET,
      timestamp: Math.floor(this.now() / 1000),
    });
    return { id, payload, signature };
  }

  /** The payer paid the top-up checkout `sessionId`: its `checkout.session.completed` event. */
  paid(sessionId: string, overrides: Form = {}): SignedEvent {
    const session = this.sessions.get(sessionId)!;
    const amount = Number(session.line_items[0].price_data.unit_amount);
    session.payment_intent ??= this.id('pi');
    return this.event('checkout.session.completed', {
      ...session,
      status: 'complete',
      payment_status: 'paid',
      amount_total: amount,
      currency: 'usd',
      ...overrides,
    });
  }

  /** The top-up paid through `sessionId` was refunded up to `refundedCents` in all: its `charge.refunded` event. */
  refunded(sessionId: string, refundedCents: number): SignedEvent {
    const session = this.sessions.get(sessionId)!;
    const amount = Number(session.line_items[0].price_data.unit_amount);
    return this.event('charge.refunded', {
      id: `ch_${String(session.payment_intent).slice(3)}`,
      object: 'charge',
      payment_intent: session.payment_intent,
      amount,
      amount_refunded: refundedCents,
      refunded: refundedCents >= amount,
      currency: 'usd',
    });
  }

  /** A dispute of the top-up paid through `sessionId`: opened (`charge.dispute.created`) or closed as `won` or `lost`. */
  disputed(sessionId: string, disputeId: string, amountCents: number, stage: 'created' | 'won' | 'lost'): SignedEvent {
    const session = this.sessions.get(sessionId)!;
    const status = stage === 'created' ? 'needs_response' : stage;
    return this.event(stage === 'created' ? 'charge.dispute.created' : 'charge.dispute.closed', {
      id: disputeId,
      object: 'dispute',
      payment_intent: session.payment_intent,
      charge: `ch_${String(session.payment_intent).slice(3)}`,
      amount: amountCents,
      currency: 'usd',
      status,
    });
  }

  /** The payer completed the subscription checkout `sessionId`: the subscription now exists; its two events. */
  subscribed(sessionId: string): { checkout: SignedEvent; created: SignedEvent; subscriptionId: string } {
    const session = this.sessions.get(sessionId)!;
    const price = session.line_items[0].price as string;
    const lookup = Object.keys(PLAN_PRICES).find((key) => PLAN_PRICES[key]!.id === price)!;
    const id = this.id('sub');
    const sub = {
      id,
      object: 'subscription',
      status: 'active',
      customer: session.customer,
      cancel_at_period_end: false,
      metadata: session.subscription_data?.metadata ?? {},
      items: {
        object: 'list',
        data: [
          {
            id: this.id('si'),
            object: 'subscription_item',
            price: { id: price, object: 'price', lookup_key: lookup },
            current_period_end: this.seconds() + MONTH_S,
          },
        ],
      },
    };
    this.subscriptions.set(id, sub);
    const checkout = this.event('checkout.session.completed', {
      ...session,
      status: 'complete',
      payment_status: 'paid',
      subscription: id,
    });
    return { checkout, created: this.event('customer.subscription.created', sub), subscriptionId: id };
  }

  /** The subscription as it stands now, as a `customer.subscription.<kind>` event. */
  subscriptionEvent(
    subscriptionId: string,
    kind: 'updated' | 'deleted',
    changes: Form = {},
    options: { createdMs?: number } = {},
  ): SignedEvent {
    const sub = this.subscriptions.get(subscriptionId)!;
    Object.assign(sub, changes);
    return this.event(`customer.subscription.${kind}`, sub, options);
  }

  /** Delivers `event` to the service's webhook route; resolves with status and body. */
  async deliver(
    serviceUrl: string,
    event: SignedEvent,
    options: { signature?: string | null; payload?: string } = {},
  ): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    const signature = options.signature === undefined ? event.signature : options.signature;
    if (signature !== null) headers['stripe-signature'] = signature;
    const res = await fetch(`${serviceUrl}/v1/webhooks/stripe`, {
      method: 'POST',
      headers,
      body: options.payload ?? event.payload,
    });
    return { status: res.status, body: await res.json() };
  }
}
