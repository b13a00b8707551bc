// The serve bench end to end against our server on the sim: a small sweep produces the JSON (every
// request's timings), the CSV and the HTML report, and the HTML draws its plots in headless
// Chromium (a screenshot is kept; every canvas must hold its first series' colour).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeServeFiles } from '../bench/serve/serve-files.js';
import { runServeSweep, type ServeReport } from '../bench/serve/serve-scenario.js';
import type { ServeOptions } from '../bench/serve/serve-options.js';
import { startServer, type TestServer } from './harness.js';

// Functions handed to page.evaluate run in the browser, where `document` exists.
declare const document: any;

const test = suite('bench serve: a sweep against the sim gives JSON, CSV and an HTML report that draws');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where the screenshot is kept (git-ignored), beside the inspector test's. */
const ARTIFACTS = join(import.meta.dirname, 'artifacts');

let server: TestServer;
let token: string;
let dir: string;
let report: ServeReport;

function options(overrides: Partial<ServeOptions>): ServeOptions {
  return {
    url: server.url,
    token,
    model: 'pro-1',
    api: 'chat',
    mode: 'concurrency',
    points: [1, 4],
    maxConcurrency: null,
    burstiness: 1,
    requests: 8,
    durationMs: null,
    inputTokens: { mean: 40, stddev: 10 },
    outputTokens: { mean: 16, stddev: 4 },
    promptsFile: null,
    ignoreEos: false,
    slo: { ttftMs: 5000, tpotMs: 1000 },
    timeoutMs: 20_000,
    seed: 3,
    warmupRequests: 1,
    clientThreads: 1,
    ...overrides,
  };
}

test.before(async () => {
  server = await startServer({ SVC_SIM_TTFT_MS: '20', SVC_SIM_TOKENS_PER_S: '400' });
  token = (await server.account(50)).token;
  dir = mkdtempSync(join(tmpdir(), 'svc-serve-report-'));
});
test.after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a sweep over 1 and 4 users reports every figure from the server usage and every request', async () => {
  // The server runs in this process: its CPU and RSS are sampled from this process (client included).
  report = await runServeSweep(options({}), { local: { pid: 'self', kind: 'local' } });
  assert.equal(
    report.points.map((p) => p.x),
    [1, 4],
  );
  for (const point of report.points) {
    const f = point.figures;
    assert.is(f.completed, 8, JSON.stringify(f.errors));
    assert.equal(f.errors, {});
    assert.is(f.tokensEstimated, false, 'the sim sends usage');
    assert.ok(f.totalOutputTokens > 0 && f.outputTokensPerS > 0 && f.totalTokensPerS > f.outputTokensPerS);
    for (const spread of [f.ttftMs!, f.itlMs!, f.tpotMs!, f.e2elMs!])
      assert.ok(spread.p50 <= spread.p90 && spread.p90 <= spread.p99 && spread.p99 <= spread.max, 'ordered');
    assert.ok(f.e2elMs!.p50 >= f.ttftMs!.p50, 'a request ends after its first token');
    assert.ok(f.goodput !== null && f.goodputShare !== null && f.goodputShare <= 1);
    assert.is(point.timings.length, 8);
    assert.ok(point.server && point.server.rssMbMax > 0, 'the local server was sampled');
  }
  assert.ok(report.serverSeries && report.serverSeries.samples.length > 0);
  assert.is(JSON.stringify(report).includes(token), false, 'the token is not in the report');
});

test('an open-loop point at a request rate sends every request and reports the figures', async () => {
  const open = await runServeSweep(options({ mode: 'rate', points: [20], requests: 10, burstiness: 0.5 }));
  assert.is(open.points[0]!.figures.completed, 10);
  assert.equal(
    open.points[0]!.timings.map((t) => t.index),
    Array.from({ length: 10 }, (_, i) => i + 1),
    'prompt 0 was the warm-up',
  );
});

test('the JSON, CSV and HTML files are written', () => {
  const files = writeServeFiles(report, dir);
  const json = JSON.parse(readFileSync(files.json, 'utf8')) as ServeReport;
  assert.is(json.points[1]!.timings.length, 8);
  assert.ok(json.points[1]!.timings.every((t) => t.itlMs.length > 0 && t.ttftMs! > 0));
  const csv = readFileSync(files.csv, 'utf8').trim().split('\n');
  assert.is(csv.length, 3);
  assert.match(csv[0]!, /^concurrency,completed,failed,duration_s,request_throughput,output_tokens_per_s/);
  assert.match(csv[2]!, /^4,8,0,/);
  const html = readFileSync(files.html, 'utf8');
  assert.ok(
    !/<script[^>]+src=|<link[^>]+href=|https?:\/\/[^"'\s]*\.(js|css)/.test(html),
    'no external script or style',
  );
  assert.match(html, /uPlot/);
});

test('the HTML report draws its plots in headless Chromium', async () => {
  if (!existsSync(CHROMIUM))
    return console.log(`  (skipped: no Chromium at ${CHROMIUM}; .ci/run installs the Debian package)`);
  const files = writeServeFiles(report, dir);
  const launch = () =>
    puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: 60_000,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  const browser = await launch().catch(launch);
  try {
    const page = await browser.newPage();
    // Offline: a report that fetched anything would fail to draw.
    await page.setRequestInterception(true);
    page.on('request', (request) => void (request.url().startsWith('file:') ? request.continue() : request.abort()));
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    await page.setViewport({ width: 1600, height: 1200 });
    await page.goto(pathToFileURL(files.html).href);
    await page.waitForFunction(() => document.body.dataset.drawn === 'yes', { timeout: 15_000 });
    assert.equal(errors, []);
    // Each canvas: how many pixels carry the first series' colour (#1f77b4), i.e. a line was drawn.
    const drawn = (await page.evaluate(() =>
      [...document.querySelectorAll('canvas')].map((canvas: any) => {
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        let series = 0;
        for (let i = 0; i < data.length; i += 4)
          if (Math.abs(data[i] - 31) < 30 && Math.abs(data[i + 1] - 119) < 30 && Math.abs(data[i + 2] - 180) < 30)
            series++;
        return { id: canvas.closest('.chart').id, series };
      }),
    )) as { id: string; series: number }[];
    assert.equal(
      drawn.map((c) => c.id),
      ['ttft', 'tpot', 'e2el', 'throughput', 'ttft-dist', 'itl-dist', 'server'],
    );
    for (const canvas of drawn) assert.ok(canvas.series > 20, `${canvas.id}: series drawn (${canvas.series} pixels)`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'bench-serve-report.png'), fullPage: true });
  } finally {
    await browser.close();
  }
});

test.run();
