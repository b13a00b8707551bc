import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RecordingMailer } from '../backends/mail/recording-mailer.js';
import type { RecordingSmsSender } from '../backends/sms-recording-sender.js';
import { WaitlistCodeSentObjectSchema, WaitlistSignupObjectSchema } from '../protocols/waitlist.js';
import { SimulatedClock } from '../runtime/clock.js';
import { ADMIN_KEY, startServer, type TestServer } from './harness.js';

const test = suite('waitlist: a 6-digit code by e-mail or text, then the confirmed sign-up');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
let server: TestServer;
let mailer: RecordingMailer;
let sms: RecordingSmsSender;

const settled = () => server.app.deps.accounts.background.settled();
const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;
let n = 0;
const uniqueEmail = () => `wait-${++n}-${process.pid}@example.com`;

async function ask(body: Record<string, unknown>) {
  const res = await server.request('POST', '/v1/waitlist/request', { body });
  await settled();
  return res;
}
const verify = (body: Record<string, unknown>) => server.request('POST', '/v1/waitlist/verify', { body });

test.before(async () => {
  server = await startServer({}, { clock });
  mailer = server.app.deps.mailer as RecordingMailer;
  sms = server.app.deps.sms as RecordingSmsSender;
});
test.after(() => server.close());

test('by e-mail: the code arrives, verifies once, and a short confirmation follows', async () => {
  const email = uniqueEmail();
  const sent = await ask({ product: 'marketplace', email: email.toUpperCase() });
  assert.is(sent.status, 202);
  assert.equal(WaitlistCodeSentObjectSchema.parse(sent.body), {
    object: 'waitlist.code',
    product: 'marketplace',
    channel: 'email',
    expires_at: Math.floor(clock.now() / 1000) + 600,
  });
  const [codeMail] = mailer.messages(email);
  assert.is(codeMail!.kind, 'waitlist_code');
  const code = codeIn(codeMail!.text);
  const ok = await verify({ product: 'marketplace', email, code });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  const signup = WaitlistSignupObjectSchema.parse(ok.body);
  assert.is(signup.contact, `${email[0]}…@example.com`);
  await settled();
  assert.equal(
    mailer.messages(email).map((m) => m.kind),
    ['waitlist_code', 'waitlist_confirmed'],
  );
  const replay = await verify({ product: 'marketplace', email, code });
  assert.is(replay.status, 400);
  assert.is(replay.body.error.code, 'invalid_code');
});

test('by phone: the code goes through the SmsSender port', async () => {
  const sent = await ask({ product: 'ai-companies', phone: '+1 (415) 555-0123' });
  assert.is(sent.body.channel, 'sms');
  const [text] = sms.messages('+14155550123');
  assert.ok(text, 'a text to the normalised number');
  const ok = await verify({ product: 'ai-companies', phone: '+14155550123', code: codeIn(text.text) });
  assert.is(ok.status, 200);
  assert.is(ok.body.contact, '+1…0123');
  const list = await server.request('GET', '/admin/v1/waitlist?product=ai-companies', { token: ADMIN_KEY });
  assert.ok(list.body.data.some((s: { contact: string }) => s.contact === '+14155550123'));
});

test('the right code sent twice at once confirms once and sends one confirmation', async () => {
  const email = uniqueEmail();
  await ask({ product: 'marketplace', email });
  const code = codeIn(mailer.messages(email)[0]!.text);
  const results = await Promise.all([0, 1, 2].map(() => verify({ product: 'marketplace', email, code })));
  assert.equal(results.map((r) => r.status).sort(), [200, 400, 400], JSON.stringify(results.map((r) => r.body)));
  await settled();
  assert.equal(
    mailer.messages(email).map((m) => m.kind),
    ['waitlist_code', 'waitlist_confirmed'],
  );
});

test('wrong codes count; after five the code is void; an expired code fails clearly', async () => {
  const email = uniqueEmail();
  await ask({ product: 'marketplace', email });
  const code = codeIn(mailer.messages(email)[0]!.text);
  const wrong = code === '000000' ? '111111' : '000000';
  const first = await verify({ product: 'marketplace', email, code: wrong });
  assert.is(first.status, 400);
  assert.is(first.body.error.code, 'invalid_code');
  for (let i = 0; i < 4; i++) await verify({ product: 'marketplace', email, code: wrong });
  const spent = await verify({ product: 'marketplace', email, code });
  assert.is(spent.status, 400);
  assert.is(spent.body.error.code, 'code_expired');

  const other = uniqueEmail();
  await ask({ product: 'marketplace', email: other });
  const late = codeIn(mailer.messages(other)[0]!.text);
  clock.advance(600_000);
  assert.is((await verify({ product: 'marketplace', email: other, code: late })).body.error.code, 'code_expired');
  // A code for one product does not confirm another.
  const third = uniqueEmail();
  await ask({ product: 'marketplace', email: third });
  assert.is(
    (await verify({ product: 'ai-companies', email: third, code: codeIn(mailer.messages(third)[0]!.text) })).body.error
      .code,
    'invalid_code',
  );
});

test('requests are limited per contact: the fourth in 15 minutes is 429', async () => {
  const email = uniqueEmail();
  for (let i = 0; i < 3; i++) assert.is((await ask({ product: 'marketplace', email })).status, 202);
  const limited = await ask({ product: 'ai-companies', email });
  assert.is(limited.status, 429);
  assert.is(limited.body.error.code, 'rate_limit_exceeded');
  assert.is(mailer.messages(email).length, 3);
  // Only the newest code is good.
  const codes = mailer.messages(email).map((m) => codeIn(m.text));
  if (codes[0] !== codes[2]) assert.is((await verify({ product: 'marketplace', email, code: codes[0] })).status, 400);
  assert.is((await verify({ product: 'marketplace', email, code: codes[2] })).status, 200);
});

test('unknown products and bad contacts are 422', async () => {
  const cases: Record<string, unknown>[] = [
    { product: 'rocket-ships', email: 'a@example.com' },
    { email: 'a@example.com' },
    { product: 'marketplace' },
    { product: 'marketplace', email: 'a@example.com', phone: '+14155550123' },
    { product: 'marketplace', email: 'not-an-email' },
    { product: 'marketplace', phone: '4155550123' },
    { product: 'marketplace', phone: '+1' },
    { product: ['marketplace'], email: 'a@example.com' },
  ];
  for (const body of cases) {
    const res = await ask(body);
    assert.is(res.status, 422, JSON.stringify(body));
    assert.ok(res.body.detail.length > 0);
  }
  for (const code of ['12345', '1234567', 'abcdef', 123456]) {
    assert.is((await verify({ product: 'marketplace', email: 'a@example.com', code })).status, 422, String(code));
  }
  assert.is(
    (await verify({ product: 'marketplace', email: 'never-asked@example.com', code: '123456' })).body.error.code,
    'invalid_code',
  );
});

test.run();
