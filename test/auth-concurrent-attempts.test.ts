import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { totpCode } from '../actors/accounts/totp.js';
import { SimulatedClock } from '../runtime/clock.js';
import { startServer, type TestServer } from './harness.js';

// Regression tests for attempt limits that were checked before an await and recorded after it:
// every request below is fired at once over its own connection, so all of them are in flight
// before any password or code check has finished. The server limits by the connection's peer
// address; the client binds each connection to a chosen loopback address (127.0.0.0/8) to vary it.

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | undefined;
}

/** POSTs `body` as JSON over a fresh connection from `from` (a loopback address). */
function post(
  server: TestServer,
  path: string,
  body: unknown,
  options: { from?: string; token?: string } = {},
): Promise<Answer> {
  const url = new URL(server.url);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers,
        agent: false,
        localAddress: options.from ?? '127.0.0.1',
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          const parsed = JSON.parse(text) as { error?: { code?: string } };
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            code: parsed.error?.code,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** How many answers had each `status code` pair, e.g. `{ '401 invalid_credentials': 10 }`. */
function tally(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = `${answer.status} ${answer.code ?? '-'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Asserts every 429 carries a positive Retry-After. */
function assertRetryAfter(answers: Answer[]): void {
  for (const answer of answers.filter((a) => a.status === 429))
    assert.ok(Number(answer.retryAfter) > 0, 'a 429 says when to retry');
}

function freshEmail(): string {
  return `race-${randomBytes(6).toString('hex')}@example.com`;
}

/** A six-digit code that no step around `now` accepts for `secret`. */
function wrongCode(secret: string, now: number): string {
  const valid = new Set([-2, -1, 0, 1, 2].map((step) => totpCode(secret, now + step * 30_000)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

const PASSWORD = 'Pw#right!4711';

/** A self-registered account holder: one scrypt hash, and the session register opened. */
interface Holder {
  email: string;
  password: string;
  session: string;
}

async function register(server: TestServer): Promise<Holder> {
  const email = freshEmail();
  const res = await server.request('POST', '/v1/auth/register', { body: { email, password: PASSWORD } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return { email, password: PASSWORD, session: res.body.token };
}

/** Turns two-factor on for `holder` at `clock`'s time; returns its secret and recovery codes, one step later. */
async function enableTwoFactor(
  server: TestServer,
  clock: SimulatedClock,
  holder: Holder,
): Promise<{ secret: string; recovery: string[] }> {
  const setup = await server.request('POST', '/v1/account/2fa/setup', { token: holder.session });
  const enabled = await server.request('POST', '/v1/account/2fa/enable', {
    token: holder.session,
    body: { code: totpCode(setup.body.secret, clock.now()) },
  });
  assert.is(enabled.status, 200, JSON.stringify(enabled.body));
  clock.advance(30_000);
  return { secret: setup.body.secret, recovery: enabled.body.recovery_codes };
}

/** `length` consecutive numbers from `first`. */
const at = (first: number, length: number) => Array.from({ length }, (_, i) => first + i);

/** A simulated clock: the limits never refill while a test runs. */
const newClock = () => new SimulatedClock(Date.UTC(2026, 6, 1));

{
  const test = suite('auth: concurrent wrong passwords cannot pass the per-e-mail limit');
  const clock = newClock();
  let server: TestServer;
  test.before(async () => {
    server = await startServer({}, { clock });
  });
  test.after(() => server.close());

  test('40 wrong passwords at once from 40 addresses: exactly 10 are checked, 30 are 429 (three rounds)', async () => {
    for (let round = 0; round < 3; round++) {
      // An e-mail with an account, then one without: the limit is the same either way.
      const email = round === 1 ? freshEmail() : (await register(server)).email;
      const answers = await Promise.all(
        at(1, 40).map((host, i) =>
          post(server, '/v1/auth/login', { email, password: `wrong guess ${i}` }, { from: `127.1.${round}.${host}` }),
        ),
      );
      assert.equal(tally(answers), { '401 invalid_credentials': 10, '429 rate_limit_exceeded': 30 }, `round ${round}`);
      assertRetryAfter(answers);
      // Even the right password, from an address never seen, waits now.
      const right = await post(server, '/v1/auth/login', { email, password: PASSWORD }, { from: `127.1.${round}.200` });
      assert.is(right.status, 429);
      assert.is(right.code, 'rate_limit_exceeded');
    }
  });

  test('ten logins at once with the right password all pass and give their attempts back', async () => {
    const { email } = await register(server);
    const answers = await Promise.all(
      at(1, 10).map((host) =>
        post(server, '/v1/auth/login', { email, password: PASSWORD }, { from: `127.1.9.${host}` }),
      ),
    );
    assert.equal(tally(answers), { '200 -': 10 });
    // Had they kept their attempts, the e-mail would have none left.
    assert.is(
      (await post(server, '/v1/auth/login', { email, password: 'wrong guess' }, { from: '127.1.9.1' })).code,
      'invalid_credentials',
    );
  });

  test.run();
}

{
  const test = suite('auth: concurrent wrong passwords cannot pass the per-address limit');
  const clock = newClock();
  let server: TestServer;
  test.before(async () => {
    server = await startServer({}, { clock });
  });
  test.after(() => server.close());

  test('40 wrong logins at once from one address for 40 e-mails: exactly 30 are checked, 10 are 429; other addresses go on', async () => {
    const answers = await Promise.all(
      at(0, 40).map(() =>
        post(server, '/v1/auth/login', { email: freshEmail(), password: 'wrong guess' }, { from: '127.2.0.1' }),
      ),
    );
    assert.equal(tally(answers), { '401 invalid_credentials': 30, '429 rate_limit_exceeded': 10 });
    assertRetryAfter(answers);
    // The server tells client addresses apart: another one is not limited.
    assert.is(
      (await post(server, '/v1/auth/login', { email: freshEmail(), password: 'wrong guess' }, { from: '127.2.0.2' }))
        .status,
      401,
    );
  });

  test.run();
}

{
  const test = suite('auth: two-factor codes sent at once cannot pass the limit');
  const clock = newClock();
  let server: TestServer;
  test.before(async () => {
    server = await startServer({}, { clock });
  });
  test.after(() => server.close());

  test('30 logins at once with the right password and wrong codes: exactly 5 codes are checked (two rounds)', async () => {
    for (let round = 0; round < 2; round++) {
      const account = await register(server);
      const { secret } = await enableTwoFactor(server, clock, account);
      const body = { email: account.email, password: account.password, totp_code: wrongCode(secret, clock.now()) };
      const answers = await Promise.all(
        at(1, 30).map((host) => post(server, '/v1/auth/login', body, { from: `127.3.${round}.${host}` })),
      );
      // Logins still checking their password hold the e-mail's attempts too, so some are 429 before the code.
      assert.equal(tally(answers), { '401 invalid_second_factor': 5, '429 rate_limit_exceeded': 25 }, `round ${round}`);
      assertRetryAfter(answers);
      const right = await post(server, '/v1/auth/login', { ...body, totp_code: totpCode(secret, clock.now()) });
      assert.is(right.status, 429, 'even the right code waits now');
      assert.is(right.code, 'rate_limit_exceeded');
    }
  });

  test('10 wrong codes at once to enable two-factor: exactly 5 are checked', async () => {
    const account = await register(server);
    const setup = await server.request('POST', '/v1/account/2fa/setup', { token: account.session });
    const code = wrongCode(setup.body.secret, clock.now());
    const answers = await Promise.all(
      at(0, 10).map(() => post(server, '/v1/account/2fa/enable', { code }, { token: account.session })),
    );
    assert.equal(tally(answers), { '400 invalid_code': 5, '429 rate_limit_exceeded': 5 });
    assertRetryAfter(answers);
  });

  test('refusals that judge no code (enable before setup) do not use up attempts', async () => {
    const account = await register(server);
    for (let i = 0; i < 8; i++) {
      assert.is(
        (await post(server, '/v1/account/2fa/enable', { code: '123456' }, { token: account.session })).code,
        'two_factor_setup_required',
      );
    }
    const setup = await server.request('POST', '/v1/account/2fa/setup', { token: account.session });
    const enabled = await post(
      server,
      '/v1/account/2fa/enable',
      { code: totpCode(setup.body.secret, clock.now()) },
      { token: account.session },
    );
    assert.is(enabled.status, 200);
  });

  test.run();
}

{
  const test = suite('change password: wrong current passwords are limited per e-mail');
  const clock = newClock();
  let server: TestServer;
  test.before(async () => {
    server = await startServer({}, { clock });
  });
  test.after(() => server.close());

  const change = (account: Holder, current: string) =>
    post(
      server,
      '/v1/account/password',
      { current_password: current, new_password: 'Pw#changed!0815' },
      { token: account.session },
    );

  test('11 wrong current passwords at once: 10 × 401, the 11th is 429; then the right one waits too', async () => {
    const account = await register(server);
    const answers = await Promise.all(at(0, 11).map((i) => change(account, `wrong current ${i}`)));
    assert.equal(tally(answers), { '401 invalid_credentials': 10, '429 rate_limit_exceeded': 1 });
    assertRetryAfter(answers);
    assert.is((await change(account, account.password)).code, 'rate_limit_exceeded');
    // The same limit as the login's: the e-mail cannot log in either until it refills.
    assert.is(
      (
        await post(
          server,
          '/v1/auth/login',
          { email: account.email, password: account.password },
          { from: '127.4.0.1' },
        )
      ).status,
      429,
    );
    clock.advance(15 * 60_000);
    const changed = await change(account, account.password);
    assert.is(changed.status, 200, 'nothing changed meanwhile; the right password works once the window refilled');
  });

  test('wrong logins and wrong current passwords at once share the e-mail limit', async () => {
    const account = await register(server);
    const answers = await Promise.all([
      ...at(1, 6).map((host) =>
        post(
          server,
          '/v1/auth/login',
          { email: account.email, password: `wrong login ${host}` },
          { from: `127.4.1.${host}` },
        ),
      ),
      ...at(0, 5).map((i) => change(account, `wrong current ${i}`)),
    ]);
    assert.equal(tally(answers), { '401 invalid_credentials': 10, '429 rate_limit_exceeded': 1 });
  });

  test.run();
}

{
  const test = suite('two-factor disable: wrong passwords are limited per e-mail');
  const clock = newClock();
  let server: TestServer;
  test.before(async () => {
    server = await startServer({}, { clock });
  });
  test.after(() => server.close());

  test('11 wrong passwords at once: 10 × 401, the 11th is 429', async () => {
    const account = await register(server);
    const { recovery } = await enableTwoFactor(server, clock, account);
    const answers = await Promise.all(
      at(0, 11).map((i) =>
        post(
          server,
          '/v1/account/2fa/disable',
          { password: `wrong ${i}`, code: recovery[0] },
          { token: account.session },
        ),
      ),
    );
    assert.equal(tally(answers), { '401 invalid_credentials': 10, '429 rate_limit_exceeded': 1 });
    assertRetryAfter(answers);
    const right = await post(
      server,
      '/v1/account/2fa/disable',
      { password: account.password, code: recovery[0] },
      { token: account.session },
    );
    assert.is(right.code, 'rate_limit_exceeded', 'the right password waits too');
  });

  test.run();
}
