import { generateKeyPairSync } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../runtime/config.js';

const test = suite(
  'config: OAuth issuer and audience, evidence directory and key go together; the key must be Ed25519',
);

const fails = (env: Record<string, string>, variable: string) => {
  try {
    loadConfig(env);
  } catch (err) {
    assert.instance(err, ConfigError);
    assert.match((err as Error).message, variable);
    return;
  }
  assert.unreachable(`accepted ${JSON.stringify(Object.keys(env))}`);
};

const ed25519 = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();

test('one of a pair without the other stops the start naming the missing variable', () => {
  fails({ SVC_OIDC_ISSUER: 'https://issuer.example.com' }, 'SVC_OIDC_AUDIENCE: required');
  fails({ SVC_OIDC_AUDIENCE: 'https://svc.example.com/mcp' }, 'SVC_OIDC_ISSUER: required');
  fails({ SVC_BENCH_EVIDENCE_DIR: '/srv/evidence' }, 'SVC_BENCH_EVIDENCE_PUBLIC_KEY: required');
  fails({ SVC_BENCH_EVIDENCE_PUBLIC_KEY: ed25519 }, 'SVC_BENCH_EVIDENCE_DIR: required');
});

test('the evidence key must be an Ed25519 public key; PEM with \\n escapes and base64 DER both work', () => {
  fails(
    { SVC_BENCH_EVIDENCE_DIR: '/srv/evidence', SVC_BENCH_EVIDENCE_PUBLIC_KEY: rsa },
    'SVC_BENCH_EVIDENCE_PUBLIC_KEY',
  );
  fails(
    {
      SVC_BENCH_EVIDENCE_DIR: '/srv/evidence',
      SVC_BENCH_EVIDENCE_PUBLIC_KEY: 'not-a-key-but-long-enough-to-pass-the-length-check',
    },
    'SVC_BENCH_EVIDENCE_PUBLIC_KEY',
  );
  const escaped = ed25519.trim().replace(/\n/g, '\\n');
  assert.is(
    loadConfig({ SVC_BENCH_EVIDENCE_DIR: '/srv/evidence', SVC_BENCH_EVIDENCE_PUBLIC_KEY: escaped })
      .SVC_BENCH_EVIDENCE_PUBLIC_KEY,
    escaped,
  );
  const der = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  assert.ok(loadConfig({ SVC_BENCH_EVIDENCE_DIR: '/srv/evidence', SVC_BENCH_EVIDENCE_PUBLIC_KEY: der }));
});

test('an OIDC issuer must be an http(s) URL', () => {
  fails({ SVC_OIDC_ISSUER: 'ftp://issuer.example.com', SVC_OIDC_AUDIENCE: 'x' }, 'SVC_OIDC_ISSUER');
  const config = loadConfig({
    SVC_OIDC_ISSUER: 'https://issuer.example.com',
    SVC_OIDC_AUDIENCE: 'https://svc.example.com/mcp',
  });
  assert.is(config.SVC_OIDC_ACCOUNT_CLAIM, 'sub');
  assert.is(config.SVC_ORDER_APPROVAL_TTL_S, 900);
});

test.run();
