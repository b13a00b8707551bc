import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, ERROR_CATALOGUE, errorBody } from '../protocols/errors.js';

const test = suite('error catalogue: every code has a status, a type and an entry in docs/errors.md');
const errorsPage = readFileSync(join(import.meta.dirname, '..', 'docs', 'errors.md'), 'utf8');

test('every code has an HTTP status and an OpenAI-style type', () => {
  for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
    assert.ok(entry.status >= 400 && entry.status < 600, code);
    assert.match(entry.type, /_error$/, code);
  }
});

test('every code is documented in the docs/errors.md table with its status', () => {
  for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
    assert.match(errorsPage, new RegExp(`\\| \`${code}\` \\| ${entry.status} \\|`), code);
  }
});

test('the body carries message, type, code, param and request_id; 422 adds detail', () => {
  const body = errorBody(
    new ApiError('validation_error', 'bad', {
      param: 'n',
      detail: [{ loc: ['body', 'n'], msg: 'x', type: 'too_small' }],
    }),
    'req_1',
  );
  assert.equal(body, {
    error: { message: 'bad', type: 'invalid_request_error', code: 'validation_error', param: 'n' },
    request_id: 'req_1',
    detail: [{ loc: ['body', 'n'], msg: 'x', type: 'too_small' }],
  });
});

test('retry advice comes from the catalogue: a refusal that cannot change answers x-should-retry: false', () => {
  for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
    const advice = new ApiError(code as keyof typeof ERROR_CATALOGUE, 'x').headers['x-should-retry'];
    assert.is(advice, 'retry' in entry ? 'false' : undefined, code);
  }
  assert.is(new ApiError('conflict', 'x').headers['x-should-retry'], 'false');
  assert.is(
    new ApiError('upload_closed', 'x', { headers: { 'x-svc-price-usd': '0.5' } }).headers['x-svc-price-usd'],
    '0.5',
  );
});

test('Retry-After is whole seconds, at least 1, when the wait is known; a terminal failure says not to retry', () => {
  assert.equal(new ApiError('rate_limit_exceeded', 'x', { retryAfterMs: 1 }).headers, { 'retry-after': '1' });
  assert.equal(new ApiError('rate_limit_exceeded', 'x', { retryAfterMs: 2_001 }).headers, { 'retry-after': '3' });
  assert.equal(new ApiError('upstream_unavailable', 'x', { retryAfterMs: null }).headers, {});
  assert.equal(new ApiError('upstream_error', 'x', { retry: false }).headers, { 'x-should-retry': 'false' });
});

test.run();
