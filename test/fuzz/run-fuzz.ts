// The fuzz campaign as a script: starts the server in this process (loopback, temporary data
// directory), sends N hostile requests to every route, checks each answer and the server after,
// prints a summary and exits 1 on any failure.
//   npx tsx test/fuzz/run-fuzz.ts --count 10000 --seed 1 [--concurrency 8] [--timeout 10] [--only 17,42] [--log error] [--by-route]
//   FUZZ_SEED and FUZZ_COUNT stand in for --seed and --count.
import { parseArgs } from 'node:util';
import type { LogLevel } from '../../runtime/logger.js';
import { formatStatusByTarget, formatSummary } from './fuzz-report.js';
import { fuzzApp } from './fuzz-run.js';
import { sessionSettler, startFuzzServer } from './fuzz-server.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    timeout: { type: 'string', default: '10' },
    only: { type: 'string' },
    log: { type: 'string', default: 'silent' },
    examples: { type: 'string', default: '40' },
    'by-route': { type: 'boolean', default: false },
  },
});

const seed = Number(values.seed ?? process.env.FUZZ_SEED ?? 1);
const count = Number(values.count ?? process.env.FUZZ_COUNT ?? 10_000);
const only = values.only?.split(',').map(Number);
if (
  !Number.isInteger(seed) ||
  !Number.isInteger(count) ||
  count < 1 ||
  only?.some((index) => !Number.isInteger(index))
) {
  console.error(
    'usage: run-fuzz.ts [--count N] [--seed S] [--concurrency C] [--timeout SECONDS] [--only I,J] [--log error|warn|silent]',
  );
  process.exit(2);
}

const server = await startFuzzServer({ echoLevel: values.log as LogLevel });
let lastPrinted = 0;
const started = Date.now();
try {
  const report = await fuzzApp({
    app: server.app,
    port: server.port,
    adminKey: server.adminKey,
    seed,
    count,
    concurrency: Number(values.concurrency),
    timeoutMs: Number(values.timeout) * 1000,
    settle: sessionSettler(server.app),
    ...(only && { only }),
    onResponse(done, total) {
      if (done - lastPrinted >= 1000 || done === total) {
        lastPrinted = done;
        process.stderr.write(`fuzz: ${done}/${total} sent (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      }
    },
  });
  console.log(formatSummary(report.result, { log: server.log, maxExamples: Number(values.examples) }));
  if (values['by-route']) console.log(`\nstatuses by route:\n${formatStatusByTarget(report.result)}`);
  if (report.missed.length > 0) console.log(`\nroutes never hit: ${report.missed.join(', ')}`);
  if (report.health.length > 0) console.log(`\nserver after the run:\n  ${report.health.join('\n  ')}`);
  else console.log('\nserver after the run: healthy (completion and account served, no hold left, balances sane)');
  process.exitCode = report.result.failures.length + report.missed.length + report.health.length > 0 ? 1 : 0;
} finally {
  await server.close();
}
process.exit(process.exitCode ?? 0);
