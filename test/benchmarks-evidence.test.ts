import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, tempDataDir, type TestServer } from './harness.js';

const test = suite('benchmark views: served only from a signed evidence package, fail closed');
const work = tempDataDir();
const reportsDir = join(work, 'results');
const pkgDir = join(work, 'evidence');
const keys = generateKeyPairSync('ed25519');
const otherKeys = generateKeyPairSync('ed25519');
const publicPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
let server: TestServer;

const report = (when: string, scenario: string, rows: Record<string, unknown>[]) => ({
  when,
  commit: 'abc1234',
  node: 'v20.20.2',
  machine: { cpus: 2, cpu: 'Test CPU', memory_gib: 4 },
  load: [{ scenario, settings: { connections: 8 }, rows }],
});

/** Runs the documented publishing command (npm run bench:evidence) into `out`. */
function publish(out: string, catalog: string): string {
  const key = join(work, 'evidence-key.pem');
  writeFileSync(key, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return execFileSync(
    'npm',
    [
      'run',
      '--silent',
      'bench:evidence',
      '--',
      '--key',
      key,
      '--out',
      out,
      '--reports',
      reportsDir,
      '--catalog',
      catalog,
    ],
    { encoding: 'utf8' },
  );
}

const get = (path: string) => server.request('GET', path);
const expect503 = async (why: string) => {
  for (const path of [
    '/v1/benchmarks/live',
    '/v1/benchmarks/catalog',
    '/v1/benchmarks/participants',
    '/v1/benchmarks/publication',
    '/v1/benchmarks/live-per-domain/proxy',
  ]) {
    const res = await get(path);
    assert.is(res.status, 503, `${why}: ${path}`);
    assert.is(res.body.error.code, 'benchmarks_unavailable', why);
    assert.is(res.body.data, undefined, 'no partial data');
  }
};

test.before(async () => {
  mkdirSync(reportsDir, { recursive: true });
  writeFileSync(
    join(reportsDir, '2026-11-01.json'),
    JSON.stringify(
      report('2026-11-01T10:00:00.000Z', 'proxy', [
        { name: 'gateway', latencyMs: { p50: 0.4, p99: 0.9 }, rps: 20000 },
        { name: 'direct upstream', baseline: true, latencyMs: { p50: 0.3, p99: 0.7 }, rps: 25000 },
      ]),
      null,
      2,
    ),
  );
  writeFileSync(
    join(reportsDir, '2026-11-02.json'),
    JSON.stringify(report('2026-11-02T10:00:00.000Z', 'soak', [{ name: 'gateway', rssMiB: 180 }]), null, 2),
  );
  const catalog = join(work, 'catalog.json');
  writeFileSync(catalog, readFileSync('bench/evidence-catalog.json'));
  const out = publish(pkgDir, catalog);
  assert.match(out, /bep_\S+: 2 benchmark\(s\)/);
  server = await startServer({ SVC_BENCH_EVIDENCE_DIR: pkgDir, SVC_BENCH_EVIDENCE_PUBLIC_KEY: publicPem });
});

test.after(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

test('a valid package is served: live, per-domain, catalog, participants, publication', async () => {
  const live = await get('/v1/benchmarks/live');
  assert.is(live.status, 200, JSON.stringify(live.body));
  assert.equal(
    live.body.data.map((d: { bench_id: string }) => d.bench_id),
    ['proxy'],
  );
  const proxy = live.body.data[0];
  assert.is(proxy.rows[0].figures['latencyMs.p99'], 0.9);
  assert.is(proxy.rows[1].role, 'baseline');
  assert.match(proxy.evidence.sha256, /^[0-9a-f]{64}$/);
  const domain = await get('/v1/benchmarks/live-per-domain/proxy');
  assert.is(domain.status, 200);
  assert.is(domain.body.result.settings.connections, 8);
  const publication = await get('/v1/benchmarks/publication');
  assert.is(publication.body.signature.algorithm, 'Ed25519');
  assert.is(publication.body.rights_cleared_entries, 1);
  const participants = await get('/v1/benchmarks/participants');
  assert.ok(
    participants.body.data.some(
      (p: { name: string; description: string | null }) => p.name === 'gateway' && p.description,
    ),
  );
});

test('the catalog lists only rights-cleared entries; uncleared or unknown campaigns are not public', async () => {
  const catalog = await get('/v1/benchmarks/catalog');
  assert.equal(
    catalog.body.data.map((e: { bench_id: string }) => e.bench_id),
    ['proxy'],
  );
  assert.is(
    (await get('/v1/benchmarks/live-per-domain/soak')).status,
    404,
    'soak has evidence but is not rights-cleared',
  );
  assert.is((await get('/v1/benchmarks/live-per-domain/nope')).status, 404);
  assert.is((await get('/v1/benchmarks/live-per-domain/..%2Fmanifest.json')).status, 404);
});

test('one altered byte in a report gives the fail-closed 503, and restoring it serves again', async () => {
  const manifest = JSON.parse(readFileSync(join(pkgDir, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
  const file = join(pkgDir, manifest.files[0]!.path);
  const original = readFileSync(file);
  const altered = Buffer.from(original);
  const at = altered.indexOf('0.9');
  altered[at + 2] = '8'.charCodeAt(0);
  writeFileSync(file, altered);
  await expect503('altered byte');
  writeFileSync(file, original);
  assert.is((await get('/v1/benchmarks/live')).status, 200);
});

test('a missing signature gives the fail-closed 503', async () => {
  const sig = join(pkgDir, 'manifest.sig');
  renameSync(sig, `${sig}.away`);
  try {
    await expect503('missing signature');
  } finally {
    renameSync(`${sig}.away`, sig);
  }
  assert.is((await get('/v1/benchmarks/live')).status, 200);
});

test('a package checked with the wrong key, or none at all, gives the fail-closed 503', async () => {
  const wrong = await startServer({
    SVC_BENCH_EVIDENCE_DIR: pkgDir,
    SVC_BENCH_EVIDENCE_PUBLIC_KEY: otherKeys.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  });
  const none = await startServer();
  const missing = await startServer({
    SVC_BENCH_EVIDENCE_DIR: join(work, 'no-such-dir'),
    SVC_BENCH_EVIDENCE_PUBLIC_KEY: publicPem,
  });
  try {
    for (const [why, s] of [
      ['wrong key', wrong],
      ['not configured', none],
      ['missing package', missing],
    ] as const) {
      const res = await s.request('GET', '/v1/benchmarks/live');
      assert.is(res.status, 503, why);
      assert.is(res.body.error.code, 'benchmarks_unavailable', why);
    }
  } finally {
    await Promise.all([wrong.close(), none.close(), missing.close()]);
  }
});

test('an unlisted file added to the package is refused too', async () => {
  const extra = join(pkgDir, 'reports', 'extra.json');
  writeFileSync(extra, '{}');
  try {
    await expect503('unlisted file');
  } finally {
    rmSync(extra);
  }
});

test.run();
