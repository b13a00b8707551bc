import { suite } from 'uvu';
import WebSocket from 'ws';
import * as assert from 'uvu/assert';
import { startGatewayCluster, type GatewayCluster, type GatewayNode } from './doubles/gateway-cluster.js';
import { ADMIN_KEY } from './harness.js';

const test = suite('cluster mode: 3 NATS servers (JetStream, R3) and 3 gateway nodes');
let cluster: GatewayCluster;
let g1: GatewayNode;
let g2: GatewayNode;
let g3: GatewayNode;
let accounts = 0;

test.before(async () => {
  // Snapshots every 100 log entries, so the log is trimmed while the tests run.
  cluster = await startGatewayCluster(3, { SVC_CLUSTER_SNAPSHOT_EVERY: '100' });
  [g1, g2, g3] = cluster.nodes as [GatewayNode, GatewayNode, GatewayNode];
});
test.after(() => cluster?.close());

const micros = (usd: number) => Math.round(usd * 1e6);

async function call(
  node: GatewayNode,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(node.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** An account with `creditUsd` created through the admin API on `on`, and its API token. */
async function account(
  on: GatewayNode,
  creditUsd: number,
): Promise<{ id: string; token: string; tokenId: string; email: string; password: string }> {
  const email = `cluster${++accounts}@example.com`;
  const password = 'cluster-pass-1';
  const created = await call(on, 'POST', '/admin/v1/accounts', ADMIN_KEY, { email, password, credit_usd: creditUsd });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return {
    id: created.body.account.id,
    token: created.body.api_token.token,
    tokenId: created.body.api_token.id,
    email,
    password,
  };
}

/** One SSE event of a session's stream. */
interface Seen {
  seq: number;
  type: string;
}

/**
 * Follows a session's events on `node` from `after`, collecting them until the stream ends (or
 * breaks), or until `until` matches an event type; `onEvent` sees each one as it arrives.
 */
async function follow(
  node: GatewayNode,
  id: string,
  token: string,
  after: number,
  options: { until?: (event: Seen) => boolean; onEvent?: (event: Seen) => void } = {},
): Promise<{ events: Seen[]; ended: boolean }> {
  const events: Seen[] = [];
  const res = await fetch(`${node.url}/v1/chat/sessions/${id}/events`, {
    headers: { authorization: `Bearer ${token}`, 'last-event-id': String(after) },
  });
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { events, ended: true };
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const seq = /^id: (\d+)$/m.exec(block)?.[1];
        const type = /^event: (.+)$/m.exec(block)?.[1];
        if (seq === undefined || type === undefined) continue;
        const event = { seq: Number(seq), type };
        events.push(event);
        options.onEvent?.(event);
        if (options.until?.(event)) {
          await reader.cancel();
          return { events, ended: false };
        }
      }
    }
  } catch {
    return { events, ended: false };
  }
}

const gapFree = (seqs: number[]) => seqs.every((seq, i) => seq === i + 1);

/** A session that runs for a few seconds on the sim. */
const slowSession = (extra: Record<string, unknown> = {}) => ({
  model: 'pro-1',
  messages: [{ role: 'user', content: 'Explain the cluster to me' }],
  max_tokens: 80,
  metadata: { sim: { tokens_per_s: 25 } },
  ...extra,
});

test('a session created on node 1 is followed on node 2 and steered on node 3 (approve, live input, cancel)', async () => {
  const owner = await account(g1, 5);
  const created = await call(g1, 'POST', '/v1/chat/sessions', owner.token, slowSession({ require_approval: true }));
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.is(created.body.state, 'awaiting_approval');
  const id = created.body.id as string;

  const steering: { done: Promise<void> | null } = { done: null };
  const followed = follow(g2, id, owner.token, 0, {
    onEvent: (event) => {
      // Once the run is drafting: live input, then cancel, both through node 3.
      if (event.type === 'phase' && !steering.done) {
        steering.done = (async () => {
          const input = await call(g3, 'POST', `/v1/chat/sessions/${id}/live-input`, owner.token, {
            content: 'Also mention fencing.',
          });
          assert.is(input.status, 200, JSON.stringify(input.body));
          const cancel = await call(g3, 'POST', `/v1/chat/sessions/${id}/cancel`, owner.token);
          assert.is(cancel.status, 200, JSON.stringify(cancel.body));
        })();
      }
    },
  });
  const approved = await call(g3, 'POST', `/v1/chat/sessions/${id}/approve`, owner.token);
  assert.is(approved.status, 200, JSON.stringify(approved.body));
  const { events, ended } = await followed;
  await steering.done;
  assert.ok(ended, 'the stream ends with the run');
  const types = events.map((event) => event.type);
  for (const type of ['approved', 'live_input', 'cancelled'])
    assert.ok(types.includes(type), `${type} in ${types.join(',')}`);
  assert.ok(gapFree(events.map((event) => event.seq)), `gap-free: ${events.map((e) => e.seq).join(',')}`);

  // Every node reads the same log and the same state.
  for (const node of [g1, g2, g3]) {
    const page = await call(node, 'GET', `/v1/chat/sessions/${id}/events-page?limit=1000`, owner.token);
    assert.equal(
      page.body.events.map((e: Seen) => e.seq),
      events.map((e) => e.seq),
    );
    assert.is((await call(node, 'GET', `/v1/chat/sessions/${id}`, owner.token)).body.state, 'cancelled');
  }
});

test('a follower reconnecting to another node with Last-Event-ID gets the rest, with no gap or duplicate', async () => {
  const owner = await account(g2, 5);
  const created = await call(g2, 'POST', '/v1/chat/sessions', owner.token, slowSession());
  const id = created.body.id as string;
  const first = await follow(g1, id, owner.token, 0, { until: (event) => event.seq >= 3 });
  const rest = await follow(g3, id, owner.token, first.events.at(-1)!.seq);
  const seqs = [...first.events, ...rest.events].map((event) => event.seq);
  assert.ok(rest.ended);
  assert.ok(gapFree(seqs), `gap-free across nodes: ${seqs.join(',')}`);
});

test('node 1 killed with SIGKILL mid-run: another node completes the session, gap-free, charged once', async () => {
  const owner = await account(g2, 5);
  // The account's first request lands on node 1, so node 1 is its home and runs the session.
  const created = await call(g1, 'POST', '/v1/chat/sessions', owner.token, slowSession());
  assert.is(created.status, 201);
  const id = created.body.id as string;
  const before = await follow(g2, id, owner.token, 0, { until: (event) => event.type === 'phase' });
  const killedAt = performance.now();
  await g1.server!.kill('SIGKILL');

  // Reconnect where the stream left off; the node waits for the lease to run out, then another node serves it.
  const after = await follow(g2, id, owner.token, before.events.at(-1)!.seq);
  const tookOverMs = performance.now() - killedAt;
  assert.ok(after.ended, 'the resumed run ends its stream');
  const done = (await call(g3, 'GET', `/v1/chat/sessions/${id}`, owner.token)).body;
  assert.is(done.state, 'completed', JSON.stringify(done));
  const page = await call(g3, 'GET', `/v1/chat/sessions/${id}/events-page?limit=1000`, owner.token);
  const seqs = page.body.events.map((e: Seen) => e.seq);
  assert.ok(gapFree(seqs), `gap-free: ${seqs.join(',')}`);
  assert.equal(
    [...before.events, ...after.events].map((e) => e.seq),
    seqs,
    'the follower saw every event once',
  );
  assert.is(page.body.events.filter((e: Seen) => e.type === 'completed').length, 1);
  const usage = await call(g2, 'GET', '/v1/account/usage?limit=100', owner.token);
  const charges = usage.body.recent.filter(
    (e: { type: string; description: string }) => e.type === 'charge' && e.description.includes(id),
  );
  assert.is(charges.length, 1, `one charge: ${JSON.stringify(usage.body.recent)}`);
  const state = await call(g3, 'GET', '/v1/account', owner.token);
  assert.is(micros(state.body.balance_usd), 5_000_000 - micros(done.price_usd));
  assert.is(state.body.held_usd, 0);
  assert.ok(tookOverMs < 15_000, `taken over in ${Math.round(tookOverMs)} ms`);
  console.log(
    `  node 1 SIGKILLed mid-run: the follower's next event came from another node ${Math.round(tookOverMs)} ms later (lease 1,500 ms)`,
  );

  const view = await call(g2, 'GET', '/admin/v1/cluster', ADMIN_KEY);
  const dead = view.body.nodes.find((node: { id: string }) => node.id === 'g1');
  assert.is(dead.state, 'down');
  assert.is(dead.fenced, true);
  await g1.start();
});

test('a NATS server killed: every acknowledged request is on every node', async () => {
  const owner = await account(g3, 5);
  const nodes = [g1, g2, g3];
  const acknowledged: string[] = [];
  const send = async (i: number) => {
    const res = await call(nodes[i % 3]!, 'POST', '/v1/chat/completions', owner.token, {
      model: 'pro-1',
      messages: [{ role: 'user', content: `Count ${i}` }],
      max_tokens: 5,
    });
    if (res.status === 200) acknowledged.push(res.headers.get('x-request-id')!);
  };
  const waves = Array.from({ length: 4 }, (_, wave) => Array.from({ length: 10 }, (_, i) => wave * 10 + i));
  for (const [i, wave] of waves.entries()) {
    if (i === 2) await cluster.nats.members[0]!.kill();
    await Promise.all(wave.map(send));
  }
  assert.ok(acknowledged.length >= 30, `acknowledged ${acknowledged.length} of 40`);
  for (const node of nodes) {
    const usage = await call(node, 'GET', '/v1/account/usage?limit=100', owner.token);
    const charged = new Set(
      usage.body.recent
        .filter((e: { type: string }) => e.type === 'charge')
        .map((e: { request_id: string }) => e.request_id),
    );
    for (const requestId of acknowledged)
      assert.ok(charged.has(requestId), `${requestId} charged, seen through ${node.id}`);
  }
});

test('1,000 concurrent requests over the 3 nodes against a balance for 50: no overdraft, every charge accounted', async () => {
  const probe = await account(g1, 1);
  const body = { model: 'pro-1', messages: [{ role: 'user', content: 'Price me exactly' }], max_tokens: 4 };
  const one = await call(g1, 'POST', '/v1/chat/completions', probe.token, body);
  assert.is(one.status, 200, JSON.stringify(one.body));
  const price = micros(one.body.svc.price_usd);
  const owner = await account(g2, (50 * price) / 1e6);
  const nodes = [g1, g2, g3];
  const results = await Promise.all(
    Array.from({ length: 1000 }, (_, i) =>
      call(nodes[i % 3]!, 'POST', '/v1/chat/completions', owner.token, {
        ...body,
        messages: [{ role: 'user', content: `Price me exactly ${i}` }],
      }),
    ),
  );
  const ok = results.filter((res) => res.status === 200);
  for (const res of results)
    assert.ok(res.status === 200 || res.status === 402, `status ${res.status}: ${JSON.stringify(res.body)}`);
  const state = await call(g3, 'GET', '/v1/account', owner.token);
  const balance = micros(state.body.balance_usd);
  assert.ok(balance >= 0, `balance ${balance}`);
  assert.is(state.body.held_usd, 0);
  const charged = ok.reduce((sum, res) => sum + micros(res.body.svc.price_usd), 0);
  assert.is(balance, 50 * price - charged, 'every answered request charged, nothing else');
  assert.ok(ok.length > 0 && ok.length <= 50, `${ok.length} answered`);
  console.log(
    `  1,000 requests over 3 nodes against a balance for 50: ${ok.length} answered, ${results.length - ok.length} refused with 402, ${balance} µUSD left`,
  );
});

test('a token limited to 60 requests per minute is allowed exactly 60 over the 3 nodes', async () => {
  const owner = await account(g3, 1);
  const login = await fetch(`${g1.url}/v1/auth/login`, {
    method: 'POST',
    body: JSON.stringify({ email: owner.email, password: owner.password }),
  }).then((res) => res.json() as Promise<{ token: string }>);
  const limited = await call(g2, 'POST', '/v1/account/tokens', login.token, {
    label: 'limited',
    requests_per_minute: 60,
  });
  assert.is(limited.status, 201, JSON.stringify(limited.body));
  const nodes = [g1, g2, g3];
  const results = await Promise.all(
    Array.from({ length: 120 }, (_, i) => call(nodes[i % 3]!, 'GET', '/v1/models', limited.body.token)),
  );
  const allowed = results.filter((res) => res.status === 200).length;
  const limitedOut = results.filter((res) => res.status === 429).length;
  assert.is(allowed, 60);
  assert.is(limitedOut, 60);
});

/** Opens a realtime socket at `url` and returns its events as they come, with a way to wait for one type. */
function realtime(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers });
  const events: { type: string; [key: string]: any }[] = [];
  const waiting: (() => void)[] = [];
  ws.on('message', (data) => {
    events.push(JSON.parse((data as Buffer).toString('utf8')));
    for (const wake of waiting.splice(0)) wake();
  });
  const next = async (type: string) => {
    for (;;) {
      const found = events.find((event) => event.type === type);
      if (found) return found;
      await new Promise<void>((resolve, reject) => {
        waiting.push(resolve);
        setTimeout(() => reject(new Error(`no ${type} in ${events.map((e) => e.type).join(',')}`)), 15_000).unref();
      });
    }
  };
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  return { ws, events, next, closed, send: (event: unknown) => ws.send(JSON.stringify(event)) };
}

test("a realtime socket on a node that is not the account's home is relayed to it: ticket or bearer, one call, charged once", async () => {
  const owner = await account(g1, 5);
  // The first request (the ticket) makes node 1 the home; the ticket names the node that issued it.
  const ticket = await call(g1, 'POST', '/v1/realtime/ticket', owner.token);
  assert.is(ticket.status, 200, JSON.stringify(ticket.body));
  const viaTicket = realtime(
    `${g3.url.replace(/^http/, 'ws')}/v1/realtime?ticket=${encodeURIComponent(ticket.body.ticket as string)}`,
  );
  await viaTicket.next('session.created');
  viaTicket.send({ type: 'session.update', session: { output_modalities: ['text'] } });
  await viaTicket.next('session.updated');
  viaTicket.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello from node 3' }] },
  });
  viaTicket.send({ type: 'response.create' });
  const done = await viaTicket.next('response.done');
  assert.is(done.response.status, 'completed');
  viaTicket.ws.close();
  await viaTicket.closed;
  // A refusal at the home reaches the relayed client as the home's HTTP error on the upgrade.
  const again = await new Promise<{ status: number; body: any }>((resolve, reject) => {
    const ws = new WebSocket(
      `${g3.url.replace(/^http/, 'ws')}/v1/realtime?ticket=${encodeURIComponent(ticket.body.ticket as string)}`,
    );
    ws.on('open', () => reject(new Error('a spent ticket opened a call')));
    ws.on('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.on('error', () => undefined);
  });
  assert.is(again.status, 401);
  assert.is(again.body.error.code, 'invalid_ticket');

  // The SDK's form (Bearer on the upgrade) through node 2.
  const viaBearer = realtime(`${g2.url.replace(/^http/, 'ws')}/v1/realtime?model=pro-1`, {
    authorization: `Bearer ${owner.token}`,
  });
  await viaBearer.next('session.created');
  viaBearer.ws.close();
  await viaBearer.closed;

  // Both calls ran on node 1 (the home), and each was charged once.
  const view = await call(g2, 'GET', '/admin/v1/cluster', ADMIN_KEY);
  assert.is(view.body.nodes.find((node: { id: string }) => node.id === 'g1').accounts >= 1, true);
  let charges: { description: string }[] = [];
  for (let i = 0; i < 50 && charges.length < 1; i++) {
    const usage = await call(g3, 'GET', '/v1/account/usage?limit=100', owner.token);
    charges = usage.body.recent.filter((entry: { type: string }) => entry.type === 'charge');
    if (charges.length < 1) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(charges.length >= 1, 'the text turn is charged');
  let held = -1;
  for (let i = 0; i < 50 && held !== 0; i++) {
    held = (await call(g2, 'GET', '/v1/account', owner.token)).body.held_usd as number;
    if (held !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.is(held, 0, 'no hold left behind');
});

test('GET /admin/v1/cluster shows the nodes, their leases and the actors each owns; SIGTERM drains a node', async () => {
  const owner = await account(g3, 5);
  const parked = await call(g3, 'POST', '/v1/chat/sessions', owner.token, slowSession({ require_approval: true }));
  assert.is(parked.status, 201);
  // g1 lists what it has applied from the log: the session created on g3 shows once replicated there.
  const listedOnG3 = (body: any) =>
    body.nodes
      .find((node: { id: string }) => node.id === 'g3')
      ?.actors.some((actor: { id: string }) => actor.id === parked.body.id) === true;
  let view = await call(g1, 'GET', '/admin/v1/cluster', ADMIN_KEY);
  for (let i = 0; i < 50 && view.status === 200 && !listedOnG3(view.body); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    view = await call(g1, 'GET', '/admin/v1/cluster', ADMIN_KEY);
  }
  assert.is(view.status, 200);
  assert.is(view.body.mode, 'cluster');
  assert.equal(view.body.nodes.map((node: { id: string }) => node.id).sort(), ['g1', 'g2', 'g3']);
  for (const node of view.body.nodes) assert.is(node.state, 'up');
  assert.ok(listedOnG3(view.body), 'the parked session is listed under its node');
  assert.is((await call(g1, 'GET', '/admin/v1/cluster', owner.token)).status, 401);

  const exited = new Promise<number | null>((resolve) => g3.server!.process.once('exit', (code) => resolve(code)));
  g3.server!.process.kill('SIGTERM');
  assert.is(await exited, 0, 'a drained node exits cleanly');
  // Its account moves to a live node, with the parked session.
  const approved = await call(g1, 'POST', `/v1/chat/sessions/${parked.body.id}/approve`, owner.token);
  assert.is(approved.status, 200, JSON.stringify(approved.body));
  const after = await call(g2, 'GET', '/admin/v1/cluster', ADMIN_KEY);
  assert.is(after.body.nodes.find((node: { id: string }) => node.id === 'g3').state, 'down');
  await g3.start();
});

test('a node with an empty disk joins after the log was trimmed: it starts from a snapshot and reads everything', async () => {
  const owner = await account(g1, 3);
  await call(g1, 'POST', '/v1/chat/completions', owner.token, {
    model: 'pro-1',
    messages: [{ role: 'user', content: 'before g4' }],
    max_tokens: 4,
  });
  const view = await call(g2, 'GET', '/admin/v1/cluster', ADMIN_KEY);
  assert.ok(view.body.log.snapshot_seq > 0, `a snapshot was taken: ${JSON.stringify(view.body.log)}`);
  assert.ok(view.body.log.first_seq > 1, `the log was trimmed: ${JSON.stringify(view.body.log)}`);
  const g4 = await cluster.addNode('g4');
  // Served from g4's own store (the admin API is not forwarded): the account and its charge are there.
  const seen = await call(g4, 'GET', `/admin/v1/accounts/${owner.id}`, ADMIN_KEY);
  const truth = await call(g1, 'GET', `/admin/v1/accounts/${owner.id}`, ADMIN_KEY);
  assert.is(seen.status, 200, JSON.stringify(seen.body));
  assert.equal(seen.body, truth.body);
  assert.ok(micros(seen.body.account.balance_usd) < 3_000_000, 'the charge is in its copy');
  const through = await call(g4, 'GET', '/v1/account', owner.token);
  assert.is(through.status, 200);
});

test.run();
