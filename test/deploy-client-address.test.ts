import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClientAddress, forwardedFor } from '../http/client-address.js';
import { ConfigError, loadConfig } from '../runtime/config.js';
import { startServer, type TestServer } from './harness.js';

const test = suite('deploy: the client address through trusted proxies (SVC_TRUSTED_PROXIES)');

/** [trusted proxies, peer, headers, the client expected] */
const CASES: [string[], string, Record<string, string>, string][] = [
  [[], '10.0.0.5', { 'x-forwarded-for': '203.0.113.7' }, '10.0.0.5'],
  [['10.0.0.0/8'], '192.0.2.1', { 'x-forwarded-for': '203.0.113.7' }, '192.0.2.1'],
  [['10.0.0.0/8'], '10.0.0.5', { 'x-forwarded-for': '203.0.113.7' }, '203.0.113.7'],
  [['10.0.0.0/8'], '10.0.0.5', {}, '10.0.0.5'],
  // Walked back through trusted hops; the first untrusted one from the right is the client.
  [['10.0.0.0/8'], '10.0.0.5', { 'x-forwarded-for': '198.51.100.9, 203.0.113.7, 10.1.1.1' }, '203.0.113.7'],
  [['10.0.0.0/8'], '10.0.0.5', { 'x-forwarded-for': '198.51.100.9,10.2.2.2 , 10.1.1.1' }, '198.51.100.9'],
  // What the client itself wrote on the left is never believed past an untrusted hop.
  [['127.0.0.1'], '127.0.0.1', { 'x-forwarded-for': '1.1.1.1, 203.0.113.7' }, '203.0.113.7'],
  [['127.0.0.1'], '127.0.0.1', { 'x-forwarded-for': 'unknown, 127.0.0.1' }, '127.0.0.1'],
  [['127.0.0.1', '::1'], '::1', { 'x-forwarded-for': '2001:db8::7' }, '2001:db8::7'],
  // uWS writes IPv6 in full; an IPv4-mapped peer matches an IPv4 entry.
  [['127.0.0.1'], '0000:0000:0000:0000:0000:ffff:7f00:0001', { 'x-forwarded-for': '203.0.113.7' }, '203.0.113.7'],
  [['127.0.0.1'], '127.0.0.1', { forwarded: 'for=192.0.2.60;proto=https;by=203.0.113.43' }, '192.0.2.60'],
  [['127.0.0.1'], '127.0.0.1', { forwarded: 'for="[2001:db8:cafe::17]:4711", for=127.0.0.1' }, '2001:db8:cafe::17'],
  [['127.0.0.1'], '127.0.0.1', { forwarded: 'for=192.0.2.60', 'x-forwarded-for': '203.0.113.7' }, '203.0.113.7'],
];

test('the walk, case by case', () => {
  for (const [trusted, peer, headers, expected] of CASES)
    assert.is(createClientAddress(trusted)(peer, headers), expected, `${trusted} ${peer} ${JSON.stringify(headers)}`);
});

test('Forwarded for= values come out without quotes, brackets or ports', () => {
  assert.equal(forwardedFor('for=192.0.2.43:8080, For="[2001:db8::1]:4711";proto=http, for=_hidden'), [
    '192.0.2.43',
    '2001:db8::1',
    '_hidden',
  ]);
});

test('a bad SVC_TRUSTED_PROXIES stops the start naming the variable', () => {
  for (const bad of ['10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/8', '::1/129']) {
    try {
      loadConfig({ SVC_TRUSTED_PROXIES: bad });
      assert.unreachable(`${bad} was accepted`);
    } catch (err) {
      assert.instance(err, ConfigError);
      assert.match((err as Error).message, /SVC_TRUSTED_PROXIES/);
    }
  }
  assert.equal(loadConfig({ SVC_TRUSTED_PROXIES: ' 10.0.0.0/8, ::1 ,127.0.0.1' }).SVC_TRUSTED_PROXIES, [
    '10.0.0.0/8',
    '::1',
    '127.0.0.1',
  ]);
});

/** Fires `count` password-reset requests at once, as the client named by X-Forwarded-For; their statuses. */
async function resetRequests(server: TestServer, forwardedFor: string, count: number): Promise<number[]> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      server.request('POST', '/v1/account/password-reset/request', {
        body: { email: `someone-${i}@example.com` },
        headers: { 'x-forwarded-for': forwardedFor },
      }),
    ),
  );
  return answers.map((answer) => answer.status);
}

test('per-address limits count the forwarded client when the proxy is trusted', async () => {
  const server = await startServer({ SVC_TRUSTED_PROXIES: '127.0.0.1' });
  try {
    // The per-client limit is 20 an hour: 25 at once from one client, 5 refused.
    const first = await resetRequests(server, '198.51.100.1', 25);
    assert.is(first.filter((status) => status === 200).length, 20);
    assert.is(first.filter((status) => status === 429).length, 5);
    // Another client behind the same proxy has its own count.
    assert.equal(await resetRequests(server, '198.51.100.2', 3), [200, 200, 200]);
  } finally {
    await server.close();
  }
});

test('without trusted proxies X-Forwarded-For is ignored: every request is the peer', async () => {
  const server = await startServer();
  try {
    const first = await resetRequests(server, '198.51.100.1', 20);
    assert.ok(first.every((status) => status === 200));
    assert.equal(await resetRequests(server, '198.51.100.2', 2), [429, 429]);
  } finally {
    await server.close();
  }
});

test.run();
