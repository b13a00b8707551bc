import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_KEY, startServer, type TestAccount, type TestServer } from './harness.js';
import { callFails, callOk, mcpClient } from './mcp-client.js';

const test = suite('mcp product tools: API token, billed invoke, orders only after explicit approval');
const LISTING = 'lst_EvalPackLegal500Prmt'; // 25 USD a pack
let server: TestServer;
let account: TestAccount;
let client: Client;

const balance = async () =>
  (await server.request('GET', '/v1/account', { token: account.token })).body.balance_usd as number;
const order = async (id: string) =>
  (await callOk(client, 'list_orders', {})).data.find((o: { id: string }) => o.id === id);

test.before(async () => {
  server = await startServer();
  account = await server.account(100);
  const granted = await server.request('POST', `/admin/v1/accounts/${account.id}/early-access`, {
    token: ADMIN_KEY,
    body: { product: 'marketplace' },
  });
  assert.is(granted.status, 200, JSON.stringify(granted.body));
  client = await mcpClient(`${server.url}/mcp`, account.token);
});

test.after(async () => {
  await client.close();
  await server.close();
});

test('tools/list names every product tool; order tools are not read-only, the rest are', async () => {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  assert.equal([...byName.keys()].sort(), [
    'accept_order',
    'cancel_order',
    'estimate',
    'invoke_pro1',
    'list_listings',
    'list_models',
    'list_orders',
    'place_order',
  ]);
  for (const name of ['list_models', 'estimate', 'list_listings', 'list_orders'])
    assert.is(byName.get(name)!.annotations?.readOnlyHint, true, name);
  for (const name of ['invoke_pro1', 'place_order', 'accept_order', 'cancel_order'])
    assert.is(byName.get(name)!.annotations?.readOnlyHint, false, name);
});

test('invoke_pro1 is billed like a chat completion and carries the svc block; list_models and estimate answer', async () => {
  const before = await balance();
  const completion = await callOk(client, 'invoke_pro1', {
    messages: [{ role: 'user', content: 'Hello from an agent' }],
    max_tokens: 16,
  });
  assert.is(completion.object, 'chat.completion');
  assert.ok(completion.svc.price_usd > 0);
  const after = await balance();
  assert.ok(
    Math.abs(before - after - completion.svc.price_usd) < 1e-6,
    `charged ${before - after}, svc says ${completion.svc.price_usd}`,
  );
  const models = await callOk(client, 'list_models');
  assert.ok(models.data.some((m: { id: string }) => m.id === 'pro-1'));
  const estimate = await callOk(client, 'estimate', { messages: [{ role: 'user', content: 'How much?' }] });
  assert.ok(estimate.cost_usd.max >= estimate.cost_usd.min);
});

test('place_order without approval changes nothing; the second call with its approval places it', async () => {
  const listings = await callOk(client, 'list_listings');
  assert.ok(listings.data.some((l: { id: string }) => l.id === LISTING));
  const before = await balance();
  const first = await callOk(client, 'place_order', { listing_id: LISTING, quantity: 1 });
  assert.is(first.status, 'approval_required');
  assert.is(first.order.status, 'pending_approval');
  assert.is(first.pending_action.cost_usd, 25);
  assert.is(first.pending_action.confirm_with.tool, 'place_order');
  assert.is(await balance(), before, 'nothing held on the first call');
  const wrong = await callFails(client, 'place_order', {
    listing_id: LISTING,
    quantity: 2,
    approval_id: first.pending_action.id,
  });
  assert.is(wrong.data.code, 'approval_mismatch');
  assert.is(wrong.code, -32009);
  const placed = await callOk(client, 'place_order', first.pending_action.confirm_with.arguments);
  assert.is(placed.status, 'done');
  assert.is(placed.order.status, 'placed');
  assert.is(placed.order.held_usd, 25);
  // Confirming twice answers with the order as it is; it holds once.
  const again = await callOk(client, 'place_order', first.pending_action.confirm_with.arguments);
  assert.is(again.order.status, 'placed');

  const acceptAsk = await callOk(client, 'accept_order', { order_id: placed.order.id });
  assert.is(acceptAsk.status, 'approval_required');
  assert.is((await order(placed.order.id)).status, 'placed', 'accept without approval charges nothing');
  assert.is((await order(placed.order.id)).charged_usd, 0);
  const accepted = await callOk(client, 'accept_order', acceptAsk.pending_action.confirm_with.arguments);
  assert.is(accepted.order.status, 'accepted');
  assert.is(accepted.order.charged_usd, 25);
  assert.ok(Math.abs(before - (await balance()) - 25) < 1e-6, 'charged exactly the price, once');
});

test('cancel_order needs approval too and gives the hold back', async () => {
  const before = await balance();
  const ask = await callOk(client, 'place_order', { listing_id: LISTING });
  const placed = await callOk(client, 'place_order', ask.pending_action.confirm_with.arguments);
  const cancelAsk = await callOk(client, 'cancel_order', { order_id: placed.order.id, reason: 'changed my mind' });
  assert.is(cancelAsk.status, 'approval_required');
  assert.is(cancelAsk.pending_action.money.releases_usd, 25);
  assert.is((await order(placed.order.id)).status, 'placed');
  const cancelled = await callOk(client, 'cancel_order', cancelAsk.pending_action.confirm_with.arguments);
  assert.is(cancelled.order.status, 'cancelled');
  assert.is(cancelled.order.cancel_reason, 'changed my mind');
  assert.is(await balance(), before, 'the hold is returned, nothing charged');
});

test('a client that supports elicitation is asked, and its answer decides in one call', async () => {
  const asked: string[] = [];
  const yes = await mcpClient(`${server.url}/mcp`, account.token, { elicit: 'accept', onElicit: (m) => asked.push(m) });
  const placed = await callOk(yes, 'place_order', { listing_id: LISTING });
  assert.is(placed.status, 'done');
  assert.is(placed.order.status, 'placed');
  assert.match(asked[0]!, /25 USD/);
  await yes.close();
  const no = await mcpClient(`${server.url}/mcp`, account.token, { elicit: 'decline' });
  const declined = await callOk(no, 'cancel_order', { order_id: placed.order.id });
  assert.is(declined.status, 'declined');
  assert.is(declined.order.status, 'placed', 'a declined cancel leaves the order as it was');
  await no.close();
});

test('errors are JSON-RPC errors with our codes; foreign orders are not found; no token is a 401', async () => {
  const missing = await callFails(client, 'accept_order', { order_id: 'ord_00000000000000000000' });
  assert.is(missing.data.code, 'not_found');
  assert.is(missing.code, -32004);
  const invalid = await callFails(client, 'place_order', { listing_id: 'nope' });
  assert.is(invalid.code, -32602);
  const other = await server.account(1);
  const stranger = await mcpClient(`${server.url}/mcp`, other.token);
  const denied = await callFails(stranger, 'list_orders');
  assert.is(denied.data.code, 'early_access_required');
  await stranger.close();
  const anonymous = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.is(anonymous.status, 401);
  assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
  assert.is(((await anonymous.json()) as { error: { code: string } }).error.code, 'missing_authorization');
});

test.run();
