import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from '../runtime/clock.js';
import { ADMIN_KEY, startServer, type TestServer } from './harness.js';
import { connectCall, realtimeUrl, ticketFor, tryUpgrade } from './realtime-client.js';

let server: TestServer;
let shortLived: TestServer;
const shortClock = new SimulatedClock(Date.now());
const test = suite('realtime tickets: single use, short-lived, bound to the token, checked before the upgrade');

test.before(async () => {
  server = await startServer();
  shortLived = await startServer({ SVC_REALTIME_TICKET_TTL_S: '1' }, { clock: shortClock });
});
test.after(async () => {
  await server.close();
  await shortLived.close();
});

test('POST /v1/realtime/ticket answers a ticket and its expiry about 60 s ahead', async () => {
  const account = await server.account();
  const res = await server.request('POST', '/v1/realtime/ticket', { token: account.token });
  assert.is(res.status, 200);
  assert.is(res.body.object, 'realtime.ticket');
  assert.match(res.body.ticket, /^rtt_[A-Za-z0-9_-]{43}$/);
  assert.not.match(res.body.ticket, new RegExp(account.token));
  const ahead = res.body.expires_at - Date.now() / 1000;
  assert.ok(ahead > 55 && ahead <= 61, `expires in ${ahead} s`);
});

test('the ticket route needs an API token: none is 401, a login session is 401 too', async () => {
  const account = await server.account();
  const none = await server.request('POST', '/v1/realtime/ticket');
  assert.is(none.status, 401);
  assert.is(none.body.error.code, 'missing_authorization');
  const session = await server.request('POST', '/v1/realtime/ticket', { token: account.session });
  assert.is(session.status, 401);
});

test('an account with no balance gets 402 for a ticket', async () => {
  const broke = await server.account(0);
  const res = await server.request('POST', '/v1/realtime/ticket', { token: broke.token });
  assert.is(res.status, 402);
  assert.is(res.body.error.code, 'insufficient_balance');
});

test('a ticket opens one call; used again it is refused with 401 before the upgrade', async () => {
  const account = await server.account();
  const ticket = await ticketFor(server, account.token);
  assert.is(await tryUpgrade(realtimeUrl(server, ticket)), 'opened');
  const again = await tryUpgrade(realtimeUrl(server, ticket));
  assert.ok(again !== 'opened');
  assert.is(again.status, 401);
  assert.is(again.body.error.code, 'invalid_ticket');
  assert.match(again.body.error.message, /already used/);
  assert.ok(again.body.request_id);
});

test('no ticket and no Authorization is 401 missing_authorization; an unknown ticket is 401 naming the problem', async () => {
  const missing = await tryUpgrade(realtimeUrl(server, null));
  assert.ok(missing !== 'opened');
  assert.is(missing.status, 401);
  assert.is(missing.body.error.code, 'missing_authorization');
  assert.match(missing.body.error.message, /ticket/);
  const unknown = await tryUpgrade(realtimeUrl(server, 'rtt_not-a-real-ticket'));
  assert.ok(unknown !== 'opened');
  assert.is(unknown.status, 401);
  assert.match(unknown.body.error.message, /not valid/);
});

test('an expired ticket is refused', async () => {
  const account = await shortLived.account();
  const ticket = await ticketFor(shortLived, account.token);
  shortClock.advance(1100);
  const late = await tryUpgrade(realtimeUrl(shortLived, ticket));
  assert.ok(late !== 'opened');
  assert.is(late.status, 401);
  assert.match(late.body.error.message, /expired/);
});

test('a ticket presented with another token is refused without burning it: its owner can still use it', async () => {
  const owner = await server.account();
  const other = await server.account();
  const ticket = await ticketFor(server, owner.token);
  const foreign = await tryUpgrade(realtimeUrl(server, ticket), { authorization: `Bearer ${other.token}` });
  assert.ok(foreign !== 'opened');
  assert.is(foreign.status, 401);
  assert.is(foreign.body.error.code, 'invalid_ticket');
  assert.match(foreign.body.error.message, /another API token/);
  assert.is(await tryUpgrade(realtimeUrl(server, ticket)), 'opened', 'the owner still gets in with the ticket');
  const spent = await tryUpgrade(realtimeUrl(server, ticket));
  assert.ok(spent !== 'opened');
  assert.match(spent.body.error.message, /already used/);
});

test('a ticket refused while its account is suspended is not burnt: once reactivated it opens the call', async () => {
  const owner = await server.account();
  const ticket = await ticketFor(server, owner.token);
  const setStatus = (status: string) =>
    server.request('POST', `/admin/v1/accounts/${owner.id}/status`, { token: ADMIN_KEY, body: { status } });
  assert.is((await setStatus('suspended')).status, 200);
  const suspended = await tryUpgrade(realtimeUrl(server, ticket));
  assert.ok(suspended !== 'opened');
  assert.is(suspended.status, 403);
  assert.is(suspended.body.error.code, 'account_suspended');
  assert.is((await setStatus('active')).status, 200);
  assert.is(await tryUpgrade(realtimeUrl(server, ticket)), 'opened');
});

test('a ticket of a token disabled since is refused', async () => {
  const account = await server.account();
  const ticket = await ticketFor(server, account.token);
  const disabled = await server.request('PATCH', `/v1/account/tokens/${account.tokenId}`, {
    token: account.session,
    body: { enabled: false },
  });
  assert.is(disabled.status, 200, JSON.stringify(disabled.body));
  const refused = await tryUpgrade(realtimeUrl(server, ticket));
  assert.ok(refused !== 'opened');
  assert.is(refused.status, 401);
  assert.is(refused.body.error.code, 'token_disabled');
});

test('a plain GET of the socket path is 426 with Upgrade: websocket', async () => {
  const res = await server.request('GET', '/v1/realtime');
  assert.is(res.status, 426);
  assert.is(res.body.error.code, 'upgrade_required');
  assert.is(res.headers.get('upgrade'), 'websocket');
});

test('offered subprotocols get `realtime` echoed, as OpenAI clients expect', async () => {
  const account = await server.account();
  const call = await connectCall(server, account.token, ['realtime', 'openai-beta.realtime-v1']);
  assert.is(call.ws.protocol, 'realtime');
  assert.is((await call.next('session.created')).type, 'session.created');
  call.close();
  const plain = await connectCall(server, account.token);
  assert.is(plain.ws.protocol, '');
  plain.close();
});

test.run();
