// The upload scenario: a resumable upload of `bytes` in 8 MiB parts, `concurrency` parts in
// flight, against the gateway (child process, sampled from /proc) and, as baselines in the same
// run, a bare uWS server that takes the same PUTs and drops them (the network ceiling) and plain
// fsynced writes of the same parts to a file (the disk ceiling). Checks the assembled file's
// sha256 against the source and reports the server's peak RSS.
import { createHash, randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { UPLOAD_PART_BYTES } from '../../protocols/files.js';
import { Histogram, type LatencySummary } from '../load/histogram.js';
import { ResourceSampler, type ServerResources } from '../load/process-sampler.js';
import { externalTarget, startBaseline, startGateway, type ServerUnderTest } from '../load/servers.js';

/** Settings of the upload scenario. */
export interface UploadBenchSettings {
  bytes: number;
  /** Parts in flight at once. */
  concurrency: number;
  target: { url: string; token: string } | null;
  /** Also run the bare uWS sink and the disk baseline (default true). */
  baselines?: boolean;
}

/** One target's upload figures. */
export interface UploadRow {
  name: string;
  role: 'ours' | 'baseline';
  parts: number;
  /** MiB/s over the part phase (reserve to last part acknowledged). */
  mibPerSecond: number;
  partLatencyMs: LatencySummary;
  /** Time of the complete call: assembly, hashing, extraction, commit. */
  completeMs: number | null;
  sha256Matches: boolean | null;
  server: ServerResources | null;
}

/** The scenario's report: our row, then the baselines. */
export interface UploadReport {
  scenario: 'upload';
  bytes: number;
  concurrency: number;
  rows: UploadRow[];
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Sends parts 0…n−1 with `concurrency` in flight; parts are random bytes generated in order and hashed as a whole. */
async function sendParts(
  total: number,
  concurrency: number,
  put: (n: number, body: Buffer) => Promise<void>,
): Promise<{ sha256: string; histogram: Histogram; ms: number }> {
  const count = Math.ceil(total / UPLOAD_PART_BYTES);
  const whole = createHash('sha256');
  const histogram = new Histogram();
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      const n = next++;
      const body = randomFillSync(Buffer.allocUnsafe(Math.min(UPLOAD_PART_BYTES, total - n * UPLOAD_PART_BYTES)));
      whole.update(body); // lanes take parts in order, synchronously, so the hash sees them in order
      const t0 = performance.now();
      await put(n, body);
      histogram.record(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return { sha256: whole.digest('hex'), histogram, ms: performance.now() - started };
}

async function json(
  pool: Pool,
  method: 'POST' | 'PUT' | 'GET',
  path: string,
  token: string | null,
  body?: Buffer | string,
  type = 'application/json',
): Promise<Record<string, unknown>> {
  const res = await pool.request({
    method,
    path,
    headers: {
      ...(token && { authorization: `Bearer ${token}` }),
      ...(body !== undefined && { 'content-type': type }),
    },
    body,
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${method} ${path} → ${res.statusCode} ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function uploadToGateway(server: ServerUnderTest, settings: UploadBenchSettings): Promise<UploadRow> {
  const pool = new Pool(server.url, { connections: settings.concurrency + 1, pipelining: 1 });
  const sampler = new ResourceSampler(typeof server.sample === 'number' ? server.sample : null, 100);
  try {
    if (server.sample !== null) sampler.start();
    const upload = await json(
      pool,
      'POST',
      '/v1/files/uploads',
      server.token,
      JSON.stringify({ filename: 'bench.bin', bytes: settings.bytes }),
    );
    const id = upload.id as string;
    const sent = await sendParts(settings.bytes, settings.concurrency, async (n, body) => {
      await json(pool, 'PUT', `/v1/files/uploads/${id}/parts/${n}`, server.token, body, 'application/octet-stream');
    });
    const t0 = performance.now();
    const file = await json(pool, 'POST', `/v1/files/uploads/${id}/complete`, server.token);
    const completeMs = performance.now() - t0;
    const resources = server.sample !== null ? sampler.stop() : null;
    await pool
      .request({
        method: 'DELETE',
        path: `/v1/files/${file.id as string}`,
        headers: { authorization: `Bearer ${server.token}` },
      })
      .then((res) => res.body.dump());
    return {
      name: 'svc gateway',
      role: 'ours',
      parts: sent.histogram.summary().count,
      mibPerSecond: round(settings.bytes / 1024 ** 2 / (sent.ms / 1000)),
      partLatencyMs: sent.histogram.summary(),
      completeMs: round(completeMs),
      sha256Matches: file.sha256 === sent.sha256,
      server: resources,
    };
  } finally {
    await pool.close();
  }
}

async function uploadToSink(settings: UploadBenchSettings): Promise<UploadRow> {
  const server = await startBaseline({ kind: 'uws-sink' });
  const pool = new Pool(server.url, { connections: settings.concurrency, pipelining: 1 });
  const sampler = new ResourceSampler(typeof server.sample === 'number' ? server.sample : null, 100);
  try {
    sampler.start();
    const sent = await sendParts(settings.bytes, settings.concurrency, async (n, body) => {
      await json(pool, 'PUT', `/parts/${n}`, null, body, 'application/octet-stream');
    });
    return {
      name: 'bare uWS sink',
      role: 'baseline',
      parts: sent.histogram.summary().count,
      mibPerSecond: round(settings.bytes / 1024 ** 2 / (sent.ms / 1000)),
      partLatencyMs: sent.histogram.summary(),
      completeMs: null,
      sha256Matches: null,
      server: sampler.stop(),
    };
  } finally {
    await pool.close();
    await server.close();
  }
}

async function writeToDisk(settings: UploadBenchSettings): Promise<UploadRow> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-disk-'));
  try {
    const sent = await sendParts(settings.bytes, settings.concurrency, async (n, body) => {
      const handle = await open(join(dir, String(n)), 'w');
      await handle.write(body);
      await handle.datasync();
      await handle.close();
    });
    return {
      name: 'fsynced file writes',
      role: 'baseline',
      parts: sent.histogram.summary().count,
      mibPerSecond: round(settings.bytes / 1024 ** 2 / (sent.ms / 1000)),
      partLatencyMs: sent.histogram.summary(),
      completeMs: null,
      sha256Matches: null,
      server: null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the upload scenario against the gateway (or `target`) and the two baselines. */
export async function runUploadBench(settings: UploadBenchSettings): Promise<UploadReport> {
  const server = settings.target ? externalTarget(settings.target.url, settings.target.token) : await startGateway();
  const rows: UploadRow[] = [];
  try {
    rows.push(await uploadToGateway(server, settings));
  } finally {
    await server.close();
  }
  if (settings.baselines !== false) {
    rows.push(await uploadToSink(settings));
    rows.push(await writeToDisk(settings));
  }
  return { scenario: 'upload', bytes: settings.bytes, concurrency: settings.concurrency, rows };
}

/** The report as a markdown table, with the targets next to the figures. */
export function formatUpload(report: UploadReport): string {
  const lines = [
    `### upload (${round(report.bytes / 1024 ** 2, 0)} MiB in 8 MiB parts, ${report.concurrency} in flight)`,
    '',
    '| target | MiB/s | part p50 ms | part p99 ms | complete ms | sha256 | server RSS max MB | server CPU % |',
    '|---|---:|---:|---:|---:|---|---:|---:|',
  ];
  for (const row of report.rows) {
    const sha = row.sha256Matches === null ? '–' : row.sha256Matches ? 'matches' : '**differs**';
    lines.push(
      `| ${row.name} | ${row.mibPerSecond} | ${round(row.partLatencyMs.p50)} | ${round(row.partLatencyMs.p99)} | ${row.completeMs ?? '–'} | ${sha} | ${row.server?.rssMbMax ?? '–'} | ${row.server?.cpuPercent ?? '–'} |`,
    );
  }
  const ours = report.rows.find((row) => row.role === 'ours');
  const sink = report.rows.find((row) => row.name === 'bare uWS sink');
  if (ours && sink)
    lines.push(
      '',
      `ours ÷ bare uWS sink: ${round((ours.mibPerSecond / sink.mibPerSecond) * 100, 0)} % of its MiB/s; target: server RSS under 200 MiB (${ours.server?.rssMbMax ?? '?'} MB) and sha256 equal`,
    );
  return lines.join('\n');
}
