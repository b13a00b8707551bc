import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Router } from '../http/router.js';

const test = suite('router: static paths, parameters and methods');

function build() {
  const router = new Router<string>();
  router.add('GET', '/v1/models', 'list');
  router.add('GET', '/v1/models/:model_id', 'card');
  router.add('PATCH', '/v1/account/tokens/:token', 'patch');
  router.add('DELETE', '/v1/account/tokens/:token', 'delete');
  router.add('GET', '/v1/files/uploads', 'uploads');
  router.add('GET', '/v1/files/:file_id', 'file');
  router.add('GET', '/v1/files/:file_id/content', 'content');
  return router;
}

test('static routes match exactly', () => {
  assert.equal(build().match('GET', '/v1/models'), { kind: 'found', route: 'list', params: {} });
});

test('parameters are captured and URL-decoded', () => {
  assert.equal(build().match('GET', '/v1/models/pro-1%2D2026'), {
    kind: 'found',
    route: 'card',
    params: { model_id: 'pro-1-2026' },
  });
});

test('a static segment wins over a parameter at the same depth', () => {
  assert.equal(build().match('GET', '/v1/files/uploads'), { kind: 'found', route: 'uploads', params: {} });
  assert.equal(build().match('GET', '/v1/files/file-1'), {
    kind: 'found',
    route: 'file',
    params: { file_id: 'file-1' },
  });
});

test('a parameter route is reached when the static branch has no deeper match', () => {
  assert.equal(build().match('GET', '/v1/files/uploads/content'), {
    kind: 'found',
    route: 'content',
    params: { file_id: 'uploads' },
  });
});

test('a known path with another method reports the allowed methods', () => {
  const match = build().match('POST', '/v1/account/tokens/tok_1');
  assert.is(match.kind, 'method_not_allowed');
  assert.equal(match.kind === 'method_not_allowed' && match.allowed.sort(), ['DELETE', 'PATCH']);
});

test('unknown and partial paths are not found', () => {
  assert.is(build().match('GET', '/v1').kind, 'not_found');
  assert.is(build().match('GET', '/v1/models/a/b').kind, 'not_found');
  assert.is(build().match('GET', '/v2/models').kind, 'not_found');
});

test('a malformed percent-encoding is not found rather than a crash', () => {
  assert.is(build().match('GET', '/v1/models/%E0%A4%A').kind, 'not_found');
});

test('duplicate routes are refused at registration', () => {
  assert.throws(() => build().add('GET', '/v1/models', 'again'));
});

test.run();
