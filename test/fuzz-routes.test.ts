import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatSummary } from './fuzz/fuzz-report.js';
import { fuzzApp, type FuzzRunReport } from './fuzz/fuzz-run.js';
import { sessionSettler } from './fuzz/fuzz-server.js';
import { ADMIN_KEY, startServer, type TestServer } from './harness.js';

// Small and seeded here; `npm run fuzz -- --count 10000 --seed 1` is the long run.
const SEED = Number(process.env.FUZZ_SEED ?? 1);
const COUNT = Number(process.env.FUZZ_COUNT ?? 400);
const REPLAY = `replay: FUZZ_SEED=${SEED} FUZZ_COUNT=${COUNT} npm test -- fuzz-routes`;

const test = suite('fuzz: hostile requests to every route');
let server: TestServer;
let report: FuzzRunReport;

test.before(async () => {
  server = await startServer();
  report = await fuzzApp({
    app: server.app,
    port: Number(new URL(server.url).port),
    adminKey: ADMIN_KEY,
    seed: SEED,
    count: COUNT,
    concurrency: 8,
    settle: sessionSettler(server.app),
  });
});
test.after(() => server.close());

test('no answer is a 5xx, each has X-Request-ID, and every error is in the envelope', () => {
  assert.ok(report.result.failures.length === 0, `${formatSummary(report.result, { maxExamples: 20 })}\n${REPLAY}`);
});

test('every route of the app was hit, and the WebSocket path and unknown paths too', () => {
  assert.equal(report.missed, [], `never hit: ${report.missed.join(', ')}`);
});

test('the server is healthy afterwards: completion and account served, no hold left, balances sane', () => {
  assert.equal(report.health, [], `${report.health.join('\n')}\n${REPLAY}`);
});

test.run();
