import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../runtime/config.js';
import { ADMIN_KEY, startServer, tempDataDir } from './harness.js';

const test = suite('cluster mode off: one node loads nothing of NATS, and cluster settings are checked');
const ROOT = resolve(import.meta.dirname, '..');

/** Every file of ours reachable from `entry` through static value imports (type-only and dynamic imports are not loads at start). */
function staticImports(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)';/gms)].map((match) => match[1]!);
    seen.set(file, specifiers);
    for (const specifier of specifiers)
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
  };
  visit(join(ROOT, entry));
  return seen;
}

test('the server entry reaches no NATS package through static imports (cluster mode is a dynamic import)', () => {
  const graph = staticImports('http/main.ts');
  assert.ok(graph.size > 100, `walked ${graph.size} files`);
  const natsUsers = [...graph].filter(([, specifiers]) =>
    specifiers.some((specifier) => specifier.startsWith('@nats-io/')),
  );
  assert.equal(
    natsUsers.map(([file]) => file.slice(ROOT.length + 1)),
    [],
  );
  // And the cluster's own modules do import it (the check above can see an import).
  assert.ok([...staticImports('runtime/cluster/start-cluster.ts').values()].flat().includes('@nats-io/transport-node'));
});

test('SVC_NATS_URL needs SVC_NODE_ID and SVC_SECRETS_KEY, a reachable node URL behind a wildcard HOST, and nats:// URLs', () => {
  const key = Buffer.alloc(32, 1).toString('base64');
  const messageOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return '';
    } catch (err) {
      assert.instance(err, ConfigError);
      return (err as Error).message;
    }
  };
  const bare = messageOf({ SVC_NATS_URL: 'nats://127.0.0.1:4222' });
  assert.match(bare, 'SVC_NODE_ID: required when SVC_NATS_URL is set');
  assert.match(bare, 'SVC_SECRETS_KEY: required when SVC_NATS_URL is set');
  assert.match(
    messageOf({ SVC_NATS_URL: 'nats://a:4222', SVC_NODE_ID: 'g1', SVC_SECRETS_KEY: key, HOST: '0.0.0.0' }),
    'SVC_NODE_URL: required',
  );
  assert.match(
    messageOf({ SVC_NATS_URL: 'http://a:4222', SVC_NODE_ID: 'g1', SVC_SECRETS_KEY: key }),
    'SVC_NATS_URL: must be nats:// URLs',
  );
  assert.match(messageOf({ SVC_NATS_URL: 'nats://a:4222', SVC_NODE_ID: 'g 1', SVC_SECRETS_KEY: key }), 'SVC_NODE_ID');
  assert.match(
    messageOf({ SVC_NATS_URL: 'nats://a:4222', SVC_NODE_ID: 'g1', SVC_SECRETS_KEY: key, SVC_CLUSTER_LEASE_MS: '10' }),
    'SVC_CLUSTER_LEASE_MS',
  );
  const ok = loadConfig({ SVC_NATS_URL: 'nats://a:4222,nats://b:4222', SVC_NODE_ID: 'g1', SVC_SECRETS_KEY: key });
  assert.is(ok.SVC_CLUSTER_LEASE_MS, 5000);
  assert.is(ok.SVC_NATS_STREAM, 'SVC_STORE');
  assert.is(loadConfig({}).SVC_NATS_URL, undefined);
});

test("the admin CLI refuses to write a cluster node's LMDB directly (it would part from the log)", () => {
  const env = {
    ...process.env,
    SVC_DATA_DIR: tempDataDir(),
    SVC_NATS_URL: 'nats://127.0.0.1:4222',
    SVC_NODE_ID: 'g1',
    SVC_SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
  };
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'actors/accounts/admin-cli.ts', 'list-accounts'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.is(res.status, 2);
  assert.match(res.stderr, 'in cluster mode (SVC_NATS_URL set) use the admin API');
});

test('GET /admin/v1/cluster on one node says so; it needs the admin key', async () => {
  const server = await startServer();
  try {
    const view = await server.request('GET', '/admin/v1/cluster', { token: ADMIN_KEY });
    assert.is(view.status, 200);
    assert.equal(view.body, {
      object: 'cluster',
      mode: 'single',
      node: null,
      lease_ms: null,
      applied_seq: null,
      log: null,
      nodes: [],
      orphaned_actors: 0,
    });
    const account = await server.account(1);
    assert.is((await server.request('GET', '/admin/v1/cluster', { token: account.token })).status, 401);
    assert.is((await server.request('GET', '/admin/v1/cluster')).status, 401);
    assert.is((await server.request('POST', '/admin/v1/cluster', { token: ADMIN_KEY })).status, 405);
  } finally {
    await server.close();
  }
});

test.run();
