// What a request's cancel signal costs on the direct path (issue 28), the old way beside the new in
// one process (tinybench p50): the exchange's signal and the run's listener on it, as an
// AbortController (an EventTarget) or as a CancelSource (a field per listener, an AbortSignal only
// when read); then the run's own signal, which the backend's call listens on, as a CancelSource too.
// Run: npx tsx bench/proxy/cancel-signal-micro.ts
import { Bench } from 'tinybench';
import { CancelSource } from '../../runtime/cancel-signal.js';
import { microResults } from '../micro.js';

let sink = 0;
const bench = new Bench({ time: Number(process.env.MICRO_MS ?? 1500) });
const groups: Record<string, { name: string; baseline: boolean }> = {};
const add = (name: string, baseline: boolean, fn: () => void) => {
  groups[name] = { name: 'one request: exchange signal, run linked, backend linked, all unhooked', baseline };
  bench.add(name, fn);
};
const onBackendAbort = () => sink--;

add('AbortController per exchange (before)', true, () => {
  const exchange = new AbortController();
  const run = new AbortController();
  const onAbort = () => run.abort();
  exchange.signal.addEventListener('abort', onAbort, { once: true });
  run.signal.addEventListener('abort', onBackendAbort, { once: true });
  run.signal.removeEventListener('abort', onBackendAbort);
  exchange.signal.removeEventListener('abort', onAbort);
  sink += exchange.signal.aborted || run.signal.aborted ? 0 : 1;
});
add('CancelSource per exchange (after)', false, () => {
  const exchange = new CancelSource();
  const run = new AbortController();
  const onAbort = () => run.abort();
  exchange.addEventListener('abort', onAbort);
  run.signal.addEventListener('abort', onBackendAbort, { once: true });
  run.signal.removeEventListener('abort', onBackendAbort);
  exchange.removeEventListener('abort', onAbort);
  sink += exchange.aborted || run.signal.aborted ? 0 : 1;
});

add('CancelSource per exchange and per run (after, second step)', false, () => {
  const exchange = new CancelSource();
  const run = new CancelSource();
  const onAbort = () => run.abort();
  exchange.addEventListener('abort', onAbort);
  run.addEventListener('abort', onBackendAbort);
  run.removeEventListener('abort', onBackendAbort);
  exchange.removeEventListener('abort', onAbort);
  sink += exchange.aborted || run.aborted ? 0 : 1;
});

await bench.run();
for (const row of microResults(bench, groups))
  process.stdout.write(`${row.group} | ${row.name} | p50 ${row.p50Us} µs | ${row.opsPerSecond} ops/s\n`);
if (sink === 0) process.stdout.write('nothing measured\n');
