import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { totpCode } from '../actors/accounts/totp.js';
import type { RecordingSmsSender } from '../backends/sms-recording-sender.js';
import { buildApp, type App } from '../http/app.js';
import { SimulatedClock } from '../runtime/clock.js';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { firstLink, SmtpInbox } from './doubles/smtp-inbox.js';
import { STRIPE_TEST_KEY, STRIPE_WEBHOOK_SECRET, StripeDouble } from './doubles/stripe-double.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';

const test = suite('account secrets: never in a log line, never unhashed in LMDB, never in a later response');
const clock = new SimulatedClock(Date.UTC(2026, 6, 1));
const SECRETS_KEY = randomBytes(32).toString('base64');
const SMTP_AUTH = { user: 'svc-mailer', pass: `smtp-pass-${randomBytes(12).toString('hex')}` };

/** Every raw key and value of every table of the LMDB environment in `dataDir`, as latin1 text. */
function lmdbDump(dataDir: string): string {
  const root = open({
    path: join(dataDir, 'lmdb'),
    readOnly: true,
    encoding: 'binary',
    keyEncoding: 'binary',
    maxDbs: 256,
  });
  const parts: string[] = [];
  try {
    const names = [...root.getRange({})].map(({ key }) =>
      Buffer.from(key as Uint8Array)
        .toString('latin1')
        .replace(/\0$/, ''),
    );
    for (const name of names) {
      const db = root.openDB({ name, encoding: 'binary', keyEncoding: 'binary' });
      for (const { key, value } of db.getRange({}))
        parts.push(
          Buffer.from(key as Uint8Array).toString('latin1'),
          Buffer.from(value as Uint8Array).toString('latin1'),
        );
    }
  } finally {
    void root.close();
  }
  return parts.join('\n');
}

test('a whole account life leaves no secret in the log, the store or later answers', async () => {
  const dataDir = tempDataDir();
  const log: string[] = [];
  const stripe = await StripeDouble.start(() => clock.now());
  // Mail goes over real SMTP with a password, which is a secret too.
  const inbox = await SmtpInbox.start({ auth: SMTP_AUTH });
  const config = loadConfig({
    PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_KEY: ADMIN_KEY,
    SVC_LOG_LEVEL: 'debug',
    SVC_SECRETS_KEY: SECRETS_KEY,
    SVC_SMTP_URL: inbox.url,
    ...stripe.env(),
  });
  const app: App = buildApp(config, { clock, logger: createLogger('debug', (line) => log.push(line)) });
  const url = `http://127.0.0.1:${await app.listen()}`;
  const sms = app.deps.sms as RecordingSmsSender;
  /** The newest mail of `kind` to `to`, as the SMTP server received it. */
  const lastMail = (to: string, kind: string) =>
    inbox
      .to(to)
      .filter((mail) => mail.headers['x-svc-mail'] === kind)
      .at(-1)!;
  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: { ...(token && { authorization: `Bearer ${token}` }), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  const json = async (method: string, path: string, token?: string, body?: unknown) =>
    JSON.parse((await call(method, path, token, body)).text);
  const settled = () => app.deps.accounts.background.settled();
  const secrets: Record<string, string> = {
    admin_key: ADMIN_KEY,
    stripe_key: STRIPE_TEST_KEY,
    webhook_secret: STRIPE_WEBHOOK_SECRET,
    secrets_key: SECRETS_KEY,
    smtp_password: SMTP_AUTH.pass,
    smtp_url: inbox.url,
  };
  const later: string[] = [];
  try {
    const email = 'secret-keeper@example.com';
    secrets.password = 'first secret password';
    const registered = await json('POST', '/v1/auth/register', undefined, { email, password: secrets.password });
    secrets.session_1 = registered.token;
    await call('POST', '/v1/account/email-verification/request', secrets.session_1);
    await settled();
    secrets.verification_token = firstLink(lastMail(email, 'email_verification').text).searchParams.get('token')!;
    await call('POST', '/v1/account/email-verification/confirm', undefined, { token: secrets.verification_token });
    const setup = await json('POST', '/v1/account/2fa/setup', secrets.session_1);
    secrets.totp_secret = setup.secret;
    const enabled = await json('POST', '/v1/account/2fa/enable', secrets.session_1, {
      code: totpCode(setup.secret, clock.now()),
    });
    enabled.recovery_codes.forEach((code: string, i: number) => {
      secrets[`recovery_${i}`] = code;
      secrets[`recovery_${i}_bare`] = code.replace(/-/g, '');
    });
    clock.advance(30_000);
    await call('POST', '/v1/auth/login', undefined, { email, password: 'a wrong password here' });
    secrets.session_2 = (
      await json('POST', '/v1/auth/login', undefined, {
        email,
        password: secrets.password,
        totp_code: totpCode(setup.secret, clock.now()),
      })
    ).token;
    secrets.session_3 = (
      await json('POST', '/v1/auth/login', undefined, {
        email,
        password: secrets.password,
        recovery_code: secrets.recovery_0,
      })
    ).token;
    secrets.api_token = (await json('POST', '/v1/account/tokens', secrets.session_2, { label: 'kept' })).token;
    await call('POST', '/v1/account/password-reset/request', undefined, { email });
    await settled();
    secrets.reset_token = firstLink(lastMail(email, 'password_reset').text).searchParams.get('token')!;
    secrets.new_password = 'second secret password';
    await call('POST', '/v1/account/password-reset/confirm', undefined, {
      token: secrets.reset_token,
      new_password: secrets.new_password,
    });
    await call('POST', '/v1/account/password-reset/confirm', undefined, {
      token: secrets.reset_token,
      new_password: 'replayed password!',
    });
    clock.advance(30_000);
    secrets.session_4 = (
      await json('POST', '/v1/auth/login', undefined, {
        email,
        password: secrets.new_password,
        totp_code: totpCode(setup.secret, clock.now()),
      })
    ).token;
    const checkout = await json('POST', '/v1/account/checkout', secrets.session_4, { amount_usd: 5 });
    await stripe.deliver(url, stripe.paid(checkout.id));
    await stripe.deliver(url, stripe.paid(checkout.id), { signature: 't=1,v1=00' });
    await call('POST', '/v1/waitlist/request', undefined, { product: 'marketplace', email });
    await settled();
    const waitlistCode = /\b(\d{6})\b/.exec(lastMail(email, 'waitlist_code').text)![1]!;
    await call('POST', '/v1/waitlist/verify', undefined, { product: 'marketplace', email, code: waitlistCode });
    const phone = '+14155550199';
    await call('POST', '/v1/waitlist/request', undefined, { product: 'ai-companies', phone });
    await settled();
    const smsCode = /\b(\d{6})\b/.exec(sms.messages(phone).at(-1)!.text)![1]!;
    // A wrong try first (it is counted, never logged), then the code itself.
    assert.is(
      (
        await call('POST', '/v1/waitlist/verify', undefined, {
          product: 'ai-companies',
          phone,
          code: smsCode === '000000' ? '000001' : '000000',
        })
      ).status,
      400,
    );
    assert.is(
      (await call('POST', '/v1/waitlist/verify', undefined, { product: 'ai-companies', phone, code: smsCode })).status,
      200,
    );
    await call('POST', '/v1/chat/completions', secrets.api_token, {
      model: 'pro-1',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 8,
    });
    // What later answers say about the account.
    for (const path of [
      '/v1/account',
      '/v1/account/tokens',
      '/v1/account/usage',
      '/v1/account/tier',
      '/v1/account/subscription',
      '/v1/early-access',
    ])
      later.push((await call('GET', path, secrets.session_4)).text);
    later.push((await call('GET', `/admin/v1/accounts/${registered.account.id}`, ADMIN_KEY)).text);
    later.push((await call('POST', '/v1/auth/login', undefined, { email, password: secrets.new_password })).text);
    await settled();

    for (const name of ['session_1', 'session_2', 'session_3', 'session_4'])
      assert.match(secrets[name]!, /^sess_/, `${name} was issued`);
    assert.match(secrets.api_token!, /^sk-svc-/);
    assert.is(JSON.parse(later[0]!).balance_usd > 4.99, true, 'the top-up was credited');
    const refused = log.find((line) => line.includes('webhook refused'));
    assert.ok(refused, 'the forged delivery was logged');
    // pino writes the line, stamped with the request it was logged in.
    assert.match(String(JSON.parse(refused).request_id), /^req_/);

    const logText = log.join('');
    assert.ok(log.length > 0, 'the server logged something (debug level)');
    await app.close();
    const store = lmdbDump(dataDir);
    assert.ok(store.includes(email), 'the dump reads the store (the address is not a secret)');
    for (const [name, value] of Object.entries(secrets)) {
      assert.not.ok(logText.includes(value), `${name} appears in the log`);
      assert.not.ok(store.includes(value), `${name} appears unhashed in LMDB`);
      assert.not.ok(
        later.some((text) => text.includes(value)),
        `${name} appears in a later response`,
      );
    }
    // A 6-digit code is short enough to occur inside other digits: look for it as a string of its own.
    for (const code of [waitlistCode, smsCode]) {
      assert.not.ok(store.includes(`\xa6${code}`), 'a waitlist code is stored as a msgpack string');
      assert.not.match(logText, new RegExp(`(?<!\\d)${code}(?!\\d)`));
    }
    assert.ok(inbox.to(email).length >= 4, 'the mail really went over SMTP');
    // The key file is not used when SVC_SECRETS_KEY is set.
    assert.throws(() => readFileSync(join(dataDir, 'secrets.key')));
  } finally {
    await app.close().catch(() => undefined);
    await stripe.close();
    await inbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
