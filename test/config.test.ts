import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createUwsApp } from '../http/uws-app.js';
import { ConfigError, loadConfig } from '../runtime/config.js';
import { selfSignedCertificate } from './doubles/tls-proxy.js';

const test = suite('config: defaults serve, bad values name the variable');

let tlsDir: string;
const tls = { cert: '', key: '', otherKey: '', garbage: '' };

test.before(() => {
  tlsDir = mkdtempSync(join(tmpdir(), 'svc-config-tls-'));
  ({ certFile: tls.cert, keyFile: tls.key } = selfSignedCertificate(tlsDir));
  tls.otherKey = join(tlsDir, 'other-key.pem');
  tls.garbage = join(tlsDir, 'garbage.pem');
  execFileSync(
    'openssl',
    ['genpkey', '-algorithm', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', tls.otherKey],
    { stdio: 'pipe' },
  );
  writeFileSync(tls.garbage, 'not a certificate\n');
});
test.after(() => rmSync(tlsDir, { recursive: true, force: true }));

function configErrorFor(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.instance(err, ConfigError);
    return (err as Error).message;
  }
  assert.unreachable(`accepted ${JSON.stringify(env)}`);
  throw new Error('unreachable');
}

test('an empty environment gives the documented defaults', () => {
  const config = loadConfig({});
  assert.is(config.HOST, '127.0.0.1');
  assert.is(config.PORT, 8080);
  assert.is(config.SVC_DATA_DIR, './data');
  assert.is(config.SVC_BACKEND, 'sim');
  assert.is(config.SVC_ADMIN_KEY, undefined);
  assert.is(config.SVC_SIM_TTFT_MS, 0);
});

test('bad values stop the start with the variable named', () => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ SVC_BACKEND: 'magic' }, 'SVC_BACKEND'],
    [{ SVC_ADMIN_KEY: 'short' }, 'SVC_ADMIN_KEY'],
    [{ SVC_UPSTREAM_BASE_URL: 'not a url' }, 'SVC_UPSTREAM_BASE_URL'],
    [{ SVC_BACKEND: 'openai-compatible' }, 'SVC_UPSTREAM_BASE_URL'],
    [{ SVC_LOG_LEVEL: 'loud' }, 'SVC_LOG_LEVEL'],
  ];
  for (const [env, name] of cases) {
    try {
      loadConfig(env);
      assert.unreachable(name);
    } catch (err) {
      assert.instance(err, ConfigError);
      assert.ok((err as Error).message.includes(name), `${name}: ${(err as Error).message}`);
    }
  }
});

test('TLS: a certificate with its key loads; neither set means plain HTTP', () => {
  const config = loadConfig({ SVC_TLS_CERT_FILE: tls.cert, SVC_TLS_KEY_FILE: tls.key });
  assert.is(config.SVC_TLS_CERT_FILE, tls.cert);
  assert.is(config.SVC_TLS_KEY_FILE, tls.key);
  assert.is(loadConfig({}).SVC_TLS_CERT_FILE, undefined);
});

test('TLS: one variable without the other names the missing one', () => {
  assert.match(
    configErrorFor({ SVC_TLS_CERT_FILE: tls.cert }),
    /SVC_TLS_KEY_FILE: required when SVC_TLS_CERT_FILE is set/,
  );
  assert.match(
    configErrorFor({ SVC_TLS_KEY_FILE: tls.key }),
    /SVC_TLS_CERT_FILE: required when SVC_TLS_KEY_FILE is set/,
  );
});

test('TLS: a missing file, a file that is not PEM, or a key of another certificate names the variable', () => {
  assert.match(
    configErrorFor({ SVC_TLS_CERT_FILE: join(tlsDir, 'absent.pem'), SVC_TLS_KEY_FILE: tls.key }),
    /SVC_TLS_CERT_FILE: .*no such file/,
  );
  assert.match(
    configErrorFor({ SVC_TLS_CERT_FILE: tls.cert, SVC_TLS_KEY_FILE: join(tlsDir, 'absent.pem') }),
    /SVC_TLS_KEY_FILE: .*no such file/,
  );
  assert.match(
    configErrorFor({ SVC_TLS_CERT_FILE: tls.garbage, SVC_TLS_KEY_FILE: tls.key }),
    /SVC_TLS_CERT_FILE: cannot use/,
  );
  assert.match(
    configErrorFor({ SVC_TLS_CERT_FILE: tls.cert, SVC_TLS_KEY_FILE: tls.garbage }),
    /SVC_TLS_KEY_FILE: cannot use/,
  );
  assert.match(
    configErrorFor({ SVC_TLS_CERT_FILE: tls.cert, SVC_TLS_KEY_FILE: tls.cert }),
    /SVC_TLS_KEY_FILE: cannot use/,
  );
  assert.match(
    configErrorFor({ SVC_TLS_CERT_FILE: tls.cert, SVC_TLS_KEY_FILE: tls.otherKey }),
    /SVC_TLS_KEY_FILE: .* is not the key of the certificate/,
  );
});

test('TLS: files uWS cannot load fail the app creation naming both variables (uWS only says "App construction failed")', () => {
  assert.throws(
    () => createUwsApp({ SVC_TLS_CERT_FILE: tls.cert, SVC_TLS_KEY_FILE: tls.otherKey }),
    /SVC_TLS_CERT_FILE .* SVC_TLS_KEY_FILE/,
  );
  assert.throws(
    () => createUwsApp({ SVC_TLS_CERT_FILE: tls.cert, SVC_TLS_KEY_FILE: undefined }),
    /both SVC_TLS_CERT_FILE and SVC_TLS_KEY_FILE/,
  );
  assert.ok(createUwsApp({ SVC_TLS_CERT_FILE: tls.cert, SVC_TLS_KEY_FILE: tls.key }));
});

test('empty strings count as unset', () => {
  assert.is(loadConfig({ SVC_ADMIN_KEY: '', PORT: '' }).PORT, 8080);
});

test('the server refuses to start on a bad variable and says which', () => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'http/main.ts'], {
    cwd: join(import.meta.dirname, '..'),
    env: { ...process.env, PORT: 'not-a-port' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.is(result.status, 2);
  assert.match(result.stderr, /PORT/);
});

test('the server refuses to start when a TLS file is missing and says which', () => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'http/main.ts'], {
    cwd: join(import.meta.dirname, '..'),
    env: { ...process.env, PORT: '0', SVC_TLS_CERT_FILE: tls.cert, SVC_TLS_KEY_FILE: join(tlsDir, 'absent.pem') },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.is(result.status, 2);
  assert.match(result.stderr, /SVC_TLS_KEY_FILE: .*no such file/);
});

test.run();
