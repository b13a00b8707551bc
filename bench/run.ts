// `npm run bench [-- --time MS --json]`: runs the benchmarks, prints a table and writes
// bench/results/<timestamp>.json with the machine, Node version, commit and every figure.
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runMicro, type MicroResult } from './micro.js';

const { values } = parseArgs({ options: { time: { type: 'string', default: '1000' }, json: { type: 'boolean', default: false } } });
const timeMs = Number(values.time);

function commit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown';
  }
}

function table(results: MicroResult[]): string {
  const lines = ['| group | benchmark | ops/s | p50 µs | p99 µs | vs baseline |', '|---|---|---:|---:|---:|---:|'];
  for (const r of results) {
    const base = results.find((b) => b.group === r.group && b.baseline);
    const factor = base ? base.opsPerSecond / r.opsPerSecond : 0;
    const ratio = r.baseline ? '(baseline)' : !base ? '' : factor >= 1 ? `${factor.toFixed(2)}× slower` : `${(1 / factor).toFixed(2)}× faster`;
    lines.push(`| ${r.group} | ${r.name} | ${r.opsPerSecond.toLocaleString('en-US')} | ${r.p50Us} | ${r.p99Us} | ${ratio} |`);
  }
  return lines.join('\n');
}

const micro = await runMicro({ timeMs });
const report = {
  when: new Date().toISOString(),
  commit: commit(),
  node: process.version,
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memory_gib: Math.round(totalmem() / 1024 ** 3) },
  micro,
};
const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `${report.when.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
else process.stdout.write(`${table(micro)}\n\nwritten ${file}\n`);
