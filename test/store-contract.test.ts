import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { MemoryStore } from '../runtime/store/memory-store.js';
import { storeContract } from './contracts/store.js';
import { tempDataDir } from './harness.js';

const dirs = new Map<unknown, string>();

const lmdb = suite('store contract: LmdbStore (real files in a temporary directory)');
storeContract(lmdb, {
  open: () => {
    const dir = tempDataDir();
    const store = LmdbStore.open(dir);
    dirs.set(store, dir);
    return store;
  },
  dispose: async (store) => {
    await store.close();
    rmSync(dirs.get(store)!, { recursive: true, force: true });
  },
});
lmdb.run();

const memory = suite('store contract: MemoryStore');
storeContract(memory, { open: () => new MemoryStore(), dispose: (store) => store.close() });
memory.run();
