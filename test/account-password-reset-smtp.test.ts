import { setImmediate as nextTurn } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from '../runtime/clock.js';
import { firstLink, SmtpInbox } from './doubles/smtp-inbox.js';
import { startServer, type TestServer } from './harness.js';

const test = suite(
  'account: password reset over a real SMTP server; the answer never waits for, nor reveals, the mail',
);
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
let inbox: SmtpInbox;
let server: TestServer;

const settled = () => server.app.deps.accounts.background.settled();
const resetMails = (to: string) => inbox.to(to).filter((mail) => mail.headers['x-svc-mail'] === 'password_reset');

/** Every response header but the ones that differ per request by design. */
function stableHeaders(headers: Headers): [string, string][] {
  return [...headers.entries()]
    .filter(([name]) => name !== 'x-request-id' && name !== 'date')
    .sort(([a], [b]) => a.localeCompare(b));
}

test.before(async () => {
  inbox = await SmtpInbox.start();
  server = await startServer({ SVC_SMTP_URL: inbox.url, SVC_PUBLIC_URL: 'https://app.svc.test' }, { clock });
});
test.after(async () => {
  await server.close();
  await inbox.close();
});

test('known and unknown addresses get the same status, headers and body before any mail is delivered; only the known one gets mail', async () => {
  const account = await server.account(0);
  const unknown = `nobody-${process.pid}@example.com`;
  inbox.hold();
  try {
    const known = await server.request('POST', '/v1/account/password-reset/request', {
      body: { email: account.email },
    });
    const stranger = await server.request('POST', '/v1/account/password-reset/request', { body: { email: unknown } });
    assert.is(known.status, 200);
    assert.is(stranger.status, 200);
    assert.equal(stranger.body, known.body);
    assert.equal(stableHeaders(stranger.headers), stableHeaders(known.headers));
    // Both were answered while the known address's mail had not yet been accepted by the SMTP server.
    while (inbox.heldCount < 1) await nextTurn();
    assert.equal(resetMails(account.email), []);
  } finally {
    inbox.release();
  }
  await settled();
  assert.is(resetMails(account.email).length, 1);
  assert.equal(inbox.to(unknown), []);
});

test('the link in the received mail sets the new password once; the same link again, or twice at once, succeeds once', async () => {
  const account = await server.account(0);
  await server.request('POST', '/v1/account/password-reset/request', { body: { email: account.email } });
  const mail = await inbox.waitFor((m) => m.to.includes(account.email) && m.headers['x-svc-mail'] === 'password_reset');
  const link = firstLink(mail.text);
  assert.is(link.origin + link.pathname, 'https://app.svc.test/account/reset-password');
  const token = link.searchParams.get('token')!;
  const confirm = (new_password: string) =>
    server.request('POST', '/v1/account/password-reset/confirm', { body: { token, new_password } });
  const [first, second] = await Promise.all([confirm('first new password'), confirm('second new password')]);
  const statuses = [first.status, second.status].sort();
  assert.equal(statuses, [200, 409], JSON.stringify([first.body, second.body]));
  const winner = first.status === 200 ? 'first new password' : 'second new password';
  const loser = first.status === 200 ? 'second new password' : 'first new password';
  assert.is(
    (await server.request('POST', '/v1/auth/login', { body: { email: account.email, password: winner } })).status,
    200,
  );
  assert.is(
    (await server.request('POST', '/v1/auth/login', { body: { email: account.email, password: loser } })).status,
    401,
  );
  const replay = await confirm('third new password');
  assert.is(replay.status, 409);
  assert.is(replay.body.error.code, 'token_used');
});

test.run();
