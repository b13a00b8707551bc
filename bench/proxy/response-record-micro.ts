// The stored response's share of the settle's commit, in process: transactions shaped like a
// settle (a ledger entry, the account, the day's totals, the key's usage) with and without a
// Responses record, written by concurrent callers the way 50 connections write them (batches of
// --batch transactions at once, one LMDB commit per batch or so), each variant on a store of its
// own; CPU (utime + stime of the whole process: the event loop and LMDB's writer thread) per
// transaction, variants interleaved; MICRO_CPU=user or sys counts only that part. Usage:
//   npx tsx bench/proxy/response-record-micro.ts [--rounds 7] [--per-round 4000] [--batch 25] [--variants none,record]
// Variants: none (the settle alone), record (+ the stored response as ResponseStore writes it), and,
// to take that apart: pack (+ the record built and packed, not written), raw (+ put without the undo
// journal), append (+ put with LMDB's append flag when the key sorts last, else plain), append-all
// (+ every key strictly increasing, all appended), string (+ the record as one JSON string), tiny
// (+ a 16-byte value under a new key), overwrite (+ the record over one fixed key).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ResponseStore } from '../../actors/responses/response-store.js';
import { timeOrderedId } from '../../runtime/ids.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';
import type { Store } from '../../runtime/store/store.js';
import { tablePackr } from '../../runtime/store/table-packr.js';
import type { Database, RootDatabase } from 'lmdb';
import type { ResponseCreateRequest } from '../../protocols/responses.js';

const VARIANTS = 'none,record,pack,raw,append,append-all,string,tiny,overwrite';
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    'per-round': { type: 'string', default: '4000' },
    batch: { type: 'string', default: '25' },
    variants: { type: 'string', default: VARIANTS },
  },
});
const rounds = Number(values.rounds);
const perRound = Number(values['per-round']);
const batch = Number(values.batch);

const request = {
  model: 'pro-1',
  input: 'Proxy probe for the Responses API against chat',
  max_output_tokens: 64,
  store: true,
  background: false,
  stream: false,
} as unknown as ResponseCreateRequest;
const text = 'Instant upstream answer: '.padEnd(300, 'lorem ipsum dolor sit amet ');
const output = JSON.stringify([
  {
    id: 'msg_0000000000000000000000000000',
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  },
]);

/** One variant: its store, and what a settle writes in it. */
function variant(name: string) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-record-micro-'));
  const store: Store = LmdbStore.open(dir);
  const ledger = store.table<unknown[]>('ledger');
  const accounts = store.table<object>('accounts');
  const daily = store.table<object>('ledger_daily');
  const usage = store.table<object>('key_usage');
  const responses = new ResponseStore(store);
  const account = { id: 'acct_0123456789abcdefghij', balance: 1e12, ledgerSeq: 0, tier: 'free', email: 'a@b.c' };
  const settle = () =>
    store.transaction(() => {
      const seq = ++account.ledgerSeq;
      account.balance -= 100;
      void accounts.put(account.id, { ...account });
      void ledger.put(
        [account.id, seq],
        ['charge', -100, 'chat completion', 'req_x', 'tok_y', 'pro-1', 12, 64, 0, Date.now()],
        { value: undefined },
      );
      const day = [account.id, 20_000];
      const was = daily.get(day) as { charges: number } | undefined;
      void daily.put(
        day,
        { topups: 0, charges: (was?.charges ?? 0) + 100, requests: seq, promptTokens: 1, completionTokens: 2 },
        { value: was },
      );
      void usage.put('tok_y', {
        requests: 0,
        denied: 0,
        promptTokens: seq,
        completionTokens: seq,
        cost: seq,
        lastUsedAt: null,
      });
      if (name === 'none') return;
      const id = timeOrderedId('resp', Date.now());
      if (name !== 'record') return experiment(name, id);
      responses.saveSettledInTransaction({
        accountId: account.id,
        head: { id, createdAt: Math.floor(Date.now() / 1000), model: 'pro-1', request },
        state: { status: 'completed', output: [], usage: { promptTokens: 12, completionTokens: 64 }, incomplete: null },
        output,
        charge: [3384, false, 'direct', 'completed', null],
        turn: null,
      });
    });
  // The variants below write the table's LMDB views directly, inside the same transaction.
  const root = (store as unknown as { root: RootDatabase }).root;
  const rawDb = root.openDB<Buffer, string>({
    name: 'responses',
    encoding: 'binary',
    cache: false,
    compression: false,
  });
  const msgDb = root.openDB<unknown, string>({
    name: 'responses',
    encoding: 'msgpack',
    cache: false,
    compression: false,
  });
  const table = store.table<unknown>('responses', { compressed: { over: 1900 } });
  let last = '';
  const compact = () => [
    account.id,
    JSON.stringify(request),
    Math.floor(Date.now() / 1000),
    'pro-1',
    'completed',
    output,
    [12, 64],
    null,
    [3384, false, 'direct', 'completed', null],
    null,
  ];
  /** Appends when `id` sorts after every key this variant wrote (LMDB's MDB_APPEND), else a plain put. */
  const appendOrPut = <V>(db: Database<V, string>, id: string, value: V) => {
    if (id <= last) return void db.put(id, value);
    last = id;
    void db.put(id, value, { append: true } as never);
  };
  function experiment(kind: string, id: string) {
    const record = compact();
    if (kind === 'pack') tablePackr.pack(record);
    else if (kind === 'raw') void msgDb.put(id, record);
    else if (kind === 'append') appendOrPut(msgDb, id, record);
    else if (kind === 'append-all')
      void msgDb.put(`${id.slice(0, 17)}${(++seq).toString(36).padStart(8, '0')}`, record, { append: true } as never);
    else if (kind === 'string') void table.putPacked(id, tablePackr.pack(JSON.stringify(record)));
    else if (kind === 'tiny') void rawDb.put(id, Buffer.from('0123456789abcdef'));
    else if (kind === 'overwrite') void rawDb.put('fixed', tablePackr.pack(record));
    else throw new Error(`unknown variant ${kind} (${VARIANTS})`);
  }
  let seq = 0;
  return { name, dir, store, settle };
}

const sides = values.variants.split(',').map(variant);
const SYS = process.env.MICRO_CPU === 'sys' ? 1 : 0;
const USER = process.env.MICRO_CPU === 'user' ? 1 : 0;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (SYS ? system : USER ? user : user + system) / 1000;
};
async function run(side: ReturnType<typeof variant>, count: number): Promise<number> {
  const before = cpuMs();
  for (let done = 0; done < count; done += batch) {
    const writes = [];
    for (let i = 0; i < batch; i++) writes.push(side.settle());
    await Promise.all(writes);
  }
  return ((cpuMs() - before) * 1000) / count;
}

for (const side of sides) await run(side, perRound); // warm-up
const us = new Map<string, number[]>(sides.map((s) => [s.name, []]));
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < sides.length; i++) {
    const side = sides[(i + round) % sides.length]!;
    us.get(side.name)!.push(await run(side, perRound));
  }
  process.stdout.write(
    `round ${round + 1}: ${[...us].map(([n, xs]) => `${n} ${xs[round]!.toFixed(1)} µs`).join(', ')} (load ${loadavg()[0]!.toFixed(2)})\n`,
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const base = us.get(sides[0]!.name)!;
for (const [name, xs] of us) {
  const ratios = xs.map((x, i) => x - base[i]!);
  process.stdout.write(
    `${name}: median ${median(xs).toFixed(1)} µs / settle; minus ${sides[0]!.name}, per round: median ${median(ratios).toFixed(1)} µs\n`,
  );
}
for (const side of sides) {
  await side.store.close();
  rmSync(side.dir, { recursive: true });
}
