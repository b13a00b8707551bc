import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { context, trace } from '@opentelemetry/api';
import { loadConfig } from '../runtime/config.js';
import { createLogger, SECRET_FIELDS } from '../runtime/logger.js';
import { startTracing } from '../runtime/trace-export.js';
import { startOtlpReceiver } from './doubles/otlp-receiver.js';
import type { RequestScope } from '../runtime/request-scope.js';
import { rmSync } from 'node:fs';
import { startChildServer } from './child-server.js';
import { tempDataDir } from './harness.js';

const test = suite('deploy logs: pino lines, secrets redacted, the request on each line');

/** A logger whose lines land in an array, parsed. */
function capture(level: Parameters<typeof createLogger>[0] = 'debug') {
  const lines: string[] = [];
  return { logger: createLogger(level, (line) => lines.push(line)), lines };
}

test('every secret-bearing field is redacted at the top, one level down and in headers', () => {
  const { logger, lines } = capture();
  const secretOf = (name: string, where: string) => `secret-${where}-${name}-value`;
  for (const name of SECRET_FIELDS) {
    logger.info('top', { [name]: secretOf(name, 'top') });
    logger.warn('nested', { req: { [name]: secretOf(name, 'nested') } });
    logger.error('headers', { headers: { [name]: secretOf(name, 'headers') } });
    logger.debug('nested headers', { upstream: { headers: { [name]: secretOf(name, 'upstream') } } });
  }
  assert.is(lines.length, SECRET_FIELDS.length * 4);
  const text = lines.join('');
  for (const name of SECRET_FIELDS)
    for (const where of ['top', 'nested', 'headers', 'upstream'])
      assert.not.ok(text.includes(secretOf(name, where)), `${name} (${where}) was written`);
  assert.is(JSON.parse(lines[0]!)[SECRET_FIELDS[0]!], '[redacted]');
});

test('a line says its level, time and message, and keeps what is not secret', () => {
  const { logger, lines } = capture('info');
  logger.debug('dropped below the level');
  logger.warn('kept', { account_id: 'acct_1', err: new Error('boom') });
  assert.is(lines.length, 1);
  const line = JSON.parse(lines[0]!);
  assert.is(line.level, 'warn');
  assert.is(line.msg, 'kept');
  assert.is(line.account_id, 'acct_1');
  assert.is(line.err.message, 'boom');
  assert.ok(!Number.isNaN(Date.parse(line.ts)));
});

test("lines written through a request's logger carry its request_id, client and trace_id", () => {
  const { logger, lines } = capture();
  const scope: RequestScope = { requestId: 'req_abc', client: '203.0.113.7' };
  const forRequest = logger.forRequest(scope);
  logger.info('outside');
  forRequest.info('before the span');
  // The server span starts after the logger was made: the trace id is read when the line is written.
  scope.traceId = '0af7651916cd43dd8448eb211c80319c';
  forRequest.warn('inside', { password: 'hunter2-secret', account_id: 'acct_1' });
  forRequest.debug('a line without fields');
  const [outside, before, inside, bare] = lines.map((line) => JSON.parse(line));
  assert.is(outside.request_id, undefined);
  assert.is(before.request_id, 'req_abc');
  assert.is(before.trace_id, undefined);
  assert.is(inside.request_id, 'req_abc');
  assert.is(inside.client, '203.0.113.7');
  assert.is(inside.trace_id, '0af7651916cd43dd8448eb211c80319c');
  assert.is(inside.account_id, 'acct_1');
  assert.is(inside.password, '[redacted]');
  assert.is(bare.request_id, 'req_abc');
  assert.is(bare.msg, 'a line without fields');
});

test('a request logger honours the level and adds nothing when its lines are dropped', () => {
  const { logger, lines } = capture('warn');
  logger.forRequest({ requestId: 'req_x', client: '127.0.0.1' }).info('dropped');
  assert.is(lines.length, 0);
});

test('with tracing on, a line written where a span is active carries its trace_id, across an await', async () => {
  const receiver = await startOtlpReceiver();
  const tracing = startTracing(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }));
  try {
    const { logger, lines } = capture();
    const span = tracing.tracer.startSpan('work');
    await context.with(trace.setSpan(context.active(), span), async () => {
      await Promise.resolve();
      logger.info('inside the span');
    });
    span.end();
    logger.info('outside');
    const [inside, outside] = lines.map((line) => JSON.parse(line));
    assert.is(inside.trace_id, span.spanContext().traceId);
    assert.is(inside.request_id, undefined);
    assert.is(outside.trace_id, undefined);
  } finally {
    await tracing.shutdown();
    await receiver.close();
  }
});

test('the start line stays on stdout when the log level is silent', async () => {
  // startChildServer resolves only once "svc listening on N" arrives on stdout.
  const dataDir = tempDataDir();
  const child = await startChildServer({ SVC_LOG_LEVEL: 'silent', SVC_DATA_DIR: dataDir });
  try {
    assert.is((await fetch(`${child.url}/healthz`)).status, 200);
  } finally {
    await child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
