import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDataDir } from './harness.js';

const test = suite('LMDB store: closing while a backup copies the environment waits for it (was a segfault)');
const ROOT = resolve(import.meta.dirname, '..');

// In a child process: on a regression the process dies with SIGSEGV, which would end this runner too.
const SCRIPT = `
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LmdbStore } from './runtime/store/lmdb-store.ts';
const dir = process.argv[1];
const store = LmdbStore.open(dir);
const table = store.table('rows');
const row = 'x'.repeat(2000);
for (let i = 0; i < 20000; i++) void table.put('row-' + i, row);
await store.flushed;
mkdirSync(join(dir, 'copy'));
const copied = store.backup(join(dir, 'copy')).then(() => 'copied');
await store.close();
console.log('closed', await copied);
`;

test('a cluster snapshot under way when the node drains: the store closes after the copy, the process lives', () => {
  const dir = tempDataDir();
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT, dir], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(run.signal, null, `the process died of ${run.signal}`);
  assert.is(run.status, 0, run.stderr);
  assert.is(run.stdout.trim(), 'closed copied');
});

test.run();
