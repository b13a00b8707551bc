import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../runtime/config.js';

const test = suite('config: defaults serve, bad values name the variable');

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

test.run();
