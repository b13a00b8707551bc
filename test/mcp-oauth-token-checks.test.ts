// The OIDC issuer behind MCP's OAuth: every kind of bad access token refused with the check that
// failed, the tokens it accepts beside strict RFC 9068, and the live issuer check step by step,
// against a small issuer on loopback whose discovery document and keys each test sets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CompactSign, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AccessTokenError, type AccessTokenFailure } from '../backends/oidc.js';
import { JoseOidcIssuer } from '../backends/oidc/jose-oidc-issuer.js';
import { systemClock } from '../runtime/clock.js';

const test = suite('mcp oauth: access token checks and the live issuer check, one failed check each');

const AUDIENCE = 'https://svc.test/mcp';
const KID = 'issuer-key-1';

/** What the loopback issuer serves; tests change it and restore it. */
interface Published {
  /** `/.well-known/openid-configuration`; null answers 404. */
  openid: Record<string, unknown> | null;
  /** `/.well-known/oauth-authorization-server` (RFC 8414); null answers 404. */
  oauth: Record<string, unknown> | null;
  jwks: JWK[];
}

let http: Server;
let issuerUrl = '';
let signingKey: CryptoKey;
let publicJwk: JWK;
let published: Published;

const document = (overrides: Record<string, unknown> = {}) => ({
  issuer: issuerUrl,
  jwks_uri: `${issuerUrl}/jwks`,
  token_endpoint: `${issuerUrl}/token`,
  code_challenge_methods_supported: ['S256'],
  ...overrides,
});
const standard = (): Published => ({ openid: document(), oauth: null, jwks: [publicJwk] });
const issuer = (url = issuerUrl) => new JoseOidcIssuer({ issuer: url, audience: AUDIENCE, clock: systemClock });
const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const claims = (overrides: JWTPayload = {}): JWTPayload => ({
  iss: issuerUrl,
  aud: AUDIENCE,
  sub: 'user-1',
  client_id: 'agent-1',
  scope: 'pro1:invoke orders:read',
  jti: 'token-1',
  iat: now(),
  exp: now() + 300,
  ...overrides,
});

/** A token signed with the issuer's key (or `key`), with the header given. */
const sign = (payload: JWTPayload, header: Record<string, unknown> = {}, key: CryptoKey | Uint8Array = signingKey) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: KID, typ: 'at+jwt', ...header }).sign(key);

async function refusal(token: string, verifier = issuer()): Promise<AccessTokenFailure> {
  try {
    await verifier.verify(token);
  } catch (err) {
    if (err instanceof AccessTokenError) return err.failure;
    throw err;
  }
  throw new assert.Assertion({
    message: 'the token was accepted',
    operator: 'throws',
    expects: 'refusal',
    actual: 'accepted',
  });
}

test.before(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  signingKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'ES256', use: 'sig' };
  http = createServer((req, res) => {
    const body =
      req.url === '/.well-known/openid-configuration'
        ? published.openid
        : req.url === '/.well-known/oauth-authorization-server'
          ? published.oauth
          : req.url === '/jwks'
            ? { keys: published.jwks }
            : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  issuerUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  published = standard();
});

test.after.each(() => {
  published = standard();
});

test.after(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

test('a well-formed access token gives its subject, client, scopes and expiry', async () => {
  const exp = now() + 300;
  const verified = await issuer().verify(await sign(claims({ exp })));
  assert.is(verified.subject, 'user-1');
  assert.is(verified.clientId, 'agent-1');
  assert.equal(verified.scopes, ['pro1:invoke', 'orders:read']);
  assert.is(verified.expiresAt, exp * 1000);
  assert.is(verified.claims.jti, 'token-1');
});

test('fourteen kinds of bad token are refused, each naming the check that failed', async () => {
  const valid = await sign(claims());
  const [header, payload, signature] = valid.split('.') as [string, string, string];
  const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
  const stranger = (await generateKeyPair('ES256')).privateKey;
  const notJson = new CompactSign(new TextEncoder().encode('{nope'))
    .setProtectedHeader({ alg: 'ES256', kid: KID, typ: 'at+jwt' })
    .sign(signingKey);
  const cases: [string, string, AccessTokenFailure][] = [
    ['not a JWT', 'not-a-jwt', 'malformed'],
    ['a signed payload that is not JSON', await notJson, 'malformed'],
    ['an encrypted token (five parts)', `${header}.a.b.c.d`, 'malformed'],
    ['unsigned (alg none)', `${b64({ alg: 'none', typ: 'at+jwt' })}.${payload}.`, 'algorithm'],
    ['signed with a shared secret (HS256)', await sign(claims(), { alg: 'HS256' }, new Uint8Array(32)), 'algorithm'],
    ['a tampered signature', `${header}.${payload}.${flipped}`, 'signature'],
    ['signed by another key under the issuer key id', await sign(claims(), {}, stranger), 'signature'],
    ['signed by a key the issuer does not publish', await sign(claims(), { kid: 'unknown' }, stranger), 'signature'],
    ['another issuer', await sign(claims({ iss: 'https://evil.test' })), 'issuer'],
    ['another audience', await sign(claims({ aud: ['https://other.test/api'] })), 'audience'],
    ['expired past the tolerance', await sign(claims({ iat: now() - 3600, exp: now() - 60 })), 'expired'],
    ['not valid before a time past the tolerance', await sign(claims({ nbf: now() + 120 })), 'not_yet_valid'],
    ['without an expiry', await sign(claims({ exp: undefined })), 'malformed'],
    ['an ID token, not an access token', await sign(claims(), { typ: 'id_token+jwt' }), 'malformed'],
  ];
  assert.is(cases.length, 14);
  for (const [name, token, failure] of cases) assert.is(await refusal(token), failure, name);
});

test('beside strict RFC 9068, typ JWT or none, application/at+jwt, and tokens without sub are accepted', async () => {
  const verifier = issuer();
  for (const typ of ['JWT', 'application/at+jwt', undefined]) {
    const token = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'ES256', kid: KID, ...(typ && { typ }) })
      .sign(signingKey);
    assert.is((await verifier.verify(token)).clientId, 'agent-1', String(typ));
  }
  const clientCredentials = await verifier.verify(
    await sign(claims({ sub: undefined, jti: undefined, client_id: undefined, azp: 'agent-2', scope: undefined })),
  );
  assert.is(clientCredentials.subject, null);
  assert.is(clientCredentials.clientId, 'agent-2');
  assert.equal(clientCredentials.scopes, []);
  const scp = await verifier.verify(await sign(claims({ scope: undefined, scp: ['orders:read', 'orders:write'] })));
  assert.equal(scp.scopes, ['orders:read', 'orders:write']);
  const skewed = await verifier.verify(await sign(claims({ exp: now() - 10, nbf: now() + 10 })));
  assert.ok(skewed.expiresAt < Date.now(), 'within the 30 s clock tolerance');
});

test('an issuer that cannot be reached, or whose document does not fit, makes tokens unavailable, not refused', async () => {
  const token = await sign(claims());
  assert.is(await refusal(token, issuer('http://127.0.0.1:9')), 'unavailable');
  published = { ...standard(), openid: document({ issuer: 'https://other.test' }) };
  assert.is(await refusal(token), 'unavailable', 'the document names another issuer');
  published = { ...standard(), openid: document({ jwks_uri: 'http://keys.example.com/jwks' }) };
  assert.is(await refusal(token), 'unavailable', 'keys in the clear off loopback');
  published = { ...standard(), openid: null, oauth: document() };
  assert.is((await issuer().verify(token)).subject, 'user-1', 'RFC 8414 metadata when there is no OpenID document');
});

test('the live check passes step by step on a conforming issuer, also through RFC 8414 metadata', async () => {
  const passing = await issuer().check();
  assert.ok(passing.ok, JSON.stringify(passing.checks));
  assert.equal(
    passing.checks.map((check) => check.name),
    ['discovery', 'issuer', 'token_endpoint', 'pkce_s256', 'jwks', 'algorithms'],
  );
  assert.is(passing.checks.at(-1)!.detail, 'accepted: ES256');
  published = { ...standard(), openid: null, oauth: document() };
  assert.ok((await issuer().check()).ok, 'RFC 8414');
});

test('the live check names the step that fails', async () => {
  const failed = async (name: string) => {
    const result = await issuer().check();
    assert.not.ok(result.ok, name);
    return result.checks.filter((check) => !check.ok).map((check) => check.name);
  };
  published = { ...standard(), openid: document({ issuer: 'https://other.test' }) };
  assert.equal(await failed('another issuer'), ['issuer']);
  published = { ...standard(), openid: document({ code_challenge_methods_supported: ['plain'] }) };
  assert.equal(await failed('no S256'), ['pkce_s256']);
  published = { ...standard(), openid: document({ token_endpoint: 'http://auth.example.com/token' }) };
  assert.equal(await failed('token endpoint in the clear'), ['token_endpoint']);
  published = { ...standard(), jwks: [publicJwk, { kty: 'oct', k: 'c2VjcmV0', kid: 'shared' }] };
  assert.equal(await failed('a shared-secret key'), ['algorithms']);
  published = { ...standard(), jwks: [] };
  assert.equal(await failed('no keys'), ['jwks', 'algorithms']);
  published = { ...standard(), openid: null };
  assert.equal(await failed('no document'), ['discovery']);
  const dead = await issuer('http://127.0.0.1:9').check();
  assert.equal(
    dead.checks.map((check) => [check.name, check.ok]),
    [['discovery', false]],
  );
  const clear = await issuer('http://auth.example.com').check();
  assert.equal(
    clear.checks.map((check) => [check.name, check.ok]),
    [['issuer_url', false]],
  );
});

test.run();
