import { Validator } from '@seriousme/openapi-schema-validator';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openApiPath } from '../http/openapi/openapi-document.js';
import { allRoutes } from '../http/routes/index.js';
import { startServer, type TestServer } from './harness.js';

const test = suite(
  'openapi: GET /v1/openapi.json is generated from the route table, validates, and matches the served routes both ways',
);
let server: TestServer;
let doc: {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown> };
};
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

test.before(async () => {
  server = await startServer();
  const res = await server.request('GET', '/v1/openapi.json');
  assert.is(res.status, 200);
  doc = res.body;
});

test.after(() => server.close());

test('the document is valid OpenAPI 3.1 by a maintained validator', async () => {
  assert.is(doc.openapi, '3.1.0');
  const result = await new Validator().validate(doc);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));
});

test('info.version is the API description version of the spec (section 9), the same as model_version', () => {
  assert.is(doc.info.version, '1.1.3');
});

test('every served route is in the document', () => {
  const routes = allRoutes(server.app.deps);
  assert.ok(routes.length > 100);
  for (const route of routes) {
    const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    assert.ok(operation, `${route.method} ${route.path} is served but not documented`);
  }
});

test('every documented operation is answered by the running server (never an unknown route or a wrong method)', async () => {
  let count = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const url = path.replace(/\{[^}]+\}/g, 'probe_0000');
      const res = await fetch(`${server.url}${url}`, {
        method: method.toUpperCase(),
        headers: { 'content-type': 'application/json' },
        ...(method !== 'get' && { body: '{}' }),
      });
      const text = await res.text();
      assert.is.not(res.status, 405, `${method.toUpperCase()} ${path}: ${text.slice(0, 200)}`);
      assert.not.match(text, /Unknown route/, `${method.toUpperCase()} ${path} is documented but not served`);
      count++;
    }
  }
  assert.is(count, allRoutes(server.app.deps).length, 'as many operations as routes');
});

test('operations carry their schemas, the error envelope and their security', () => {
  const chat = doc.paths['/v1/chat/completions']!.post;
  assert.ok(chat.requestBody.content['application/json'].schema.properties.messages, 'request schema from zod');
  assert.is(chat.responses['422'].content['application/json'].schema.$ref, '#/components/schemas/HTTPValidationError');
  assert.equal(chat.security, [{ apiToken: [] }]);
  const models = doc.paths['/v1/models']!.get;
  assert.ok(models.responses['200'].content['application/json'].schema.properties.data, 'response schema from zod');
  assert.ok(doc.components.schemas.ErrorEnvelope);
  assert.equal(
    doc.paths['/mcp']!.post.security,
    [{ apiToken: [] }, { oauthAccessToken: [] }],
    '/mcp authenticates itself',
  );
  assert.ok(doc.paths['/mcp']!.post.responses['401']);
  assert.equal(doc.paths['/mcp/docs']!.post.security, []);
  const live = doc.paths['/v1/benchmarks/live']!.get;
  assert.equal(live.security, []);
  assert.ok(live.responses['200'].content['application/json'].schema.properties.data);
  const ids = Object.values(doc.paths).flatMap((item) =>
    METHODS.filter((m) => item[m]).map((m) => item[m].operationId as string),
  );
  assert.is(new Set(ids).size, ids.length, 'operationIds are unique');
});

/** The success answers of an operation (2xx, or 101 for a WebSocket upgrade). */
const successes = (operation: any): [string, any][] =>
  Object.entries(operation.responses as Record<string, any>).filter(([status]) => /^(2\d\d|101)$/.test(status));

test('every operation publishes a real success answer: a JSON schema, SSE events or declared media types, never a bare object', () => {
  const generic: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const answers = successes(item[method]);
      assert.ok(answers.length > 0, `${method} ${path} has no success answer`);
      for (const [status, answer] of answers) {
        if (status === '101' || status === '204') {
          assert.not.ok(answer.content, `${method} ${path} ${status} has no body`);
          continue;
        }
        const content = Object.entries((answer.content ?? {}) as Record<string, any>);
        if (content.length === 0) generic.push(`${method.toUpperCase()} ${path} ${status}: no content`);
        for (const [type, media] of content) {
          const schema = media.schema as Record<string, unknown>;
          if (type === 'application/json' && Object.keys(schema).length <= 1 && schema.type === 'object')
            generic.push(`${method.toUpperCase()} ${path} ${status}: a bare object`);
          if (type === 'text/event-stream')
            assert.ok(media['x-event-data'], `${method} ${path}: SSE without its event schema`);
          if (type !== 'application/json' && type !== 'text/event-stream')
            assert.is(schema.contentMediaType, type, `${method} ${path}: ${type}`);
        }
      }
    }
  }
  assert.equal(generic, [], generic.join('\n'));
});

test('a body the route lets the client leave out is published as not required; the others as required', async () => {
  const optional = [
    '/v1/chat/completions/{completion_id}/cancel',
    '/v1/chat/sessions/{session_id}/cancel',
    '/v1/account/2fa/setup',
    '/v1/account/subscription/cancel',
  ];
  for (const path of optional) assert.is(doc.paths[path]!.post.requestBody.required, false, path);
  assert.is(doc.paths['/v1/chat/completions']!.post.requestBody.required, true);
  // And the server agrees: a bodiless cancel of an unknown completion is a 404, not a 400 for the missing body.
  const res = await server.request('POST', '/v1/chat/completions/chatcmpl-unknown/cancel', {
    token: (await server.account()).token,
  });
  assert.is(res.status, 404, JSON.stringify(res.body));
});

test('binary and streaming answers declare their media types', () => {
  const content = (path: string, method: string, status = '200') =>
    Object.keys(doc.paths[path]![method].responses[status].content as object);
  assert.ok(content('/v1/audio/speech', 'post').includes('audio/mpeg'));
  assert.ok(content('/v1/music/generations', 'post').includes('audio/wav'));
  assert.ok(content('/v1/audio/sound-effects', 'post').includes('audio/flac'));
  assert.equal(content('/v1/chat/completions', 'post'), ['application/json', 'text/event-stream']);
  assert.equal(content('/v1/chat/sessions/{session_id}/events', 'get'), ['text/event-stream']);
  assert.equal(content('/v1/videos/{video_id}/events', 'get'), ['text/event-stream']);
  assert.equal(content('/v1/videos/{video_id}/content', 'get'), ['video/mp4']);
  assert.ok(content('/v1/chat/sessions/{session_id}/workbook.csv', 'get')[0]!.startsWith('text/csv'));
  assert.equal(content('/v1/chat/sessions/{session_id}/workbook.xlsx', 'get'), [
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ]);
  assert.ok(content('/v1/media/{media_id}', 'get').includes('image/png'));
  assert.ok(content('/v1/audio/transcriptions', 'post').includes('text/vtt'));
  assert.ok(doc.paths['/v1/realtime']!.get.responses['101'], 'the WebSocket upgrade');
  assert.equal(content('/inspector', 'get'), ['text/html; charset=utf-8']);
  const pageFiles = content('/inspector/{file}', 'get');
  assert.ok(
    pageFiles.includes('text/javascript; charset=utf-8') && pageFiles.includes('text/css; charset=utf-8'),
    pageFiles.join(', '),
  );
  assert.equal(content('/admin/v1/machines/{name}', 'get'), [
    'application/json',
    'text/vnd.mermaid; charset=utf-8',
    'application/scxml+xml; charset=utf-8',
  ]);
  assert.equal(content('/admin/v1/actors/{id}/events', 'get'), ['application/json', 'text/event-stream']);
  assert.equal(content('/admin/v1/actors/stream', 'get'), ['text/event-stream']);
  const actorEvents = JSON.stringify(
    doc.paths['/admin/v1/actors/{id}/events']!.get.responses['200'].content['text/event-stream']['x-event-data'],
  );
  assert.ok(
    actorEvents.includes('up_to_seq') && actorEvents.includes('"actor"'),
    'log, step and received events carry their schemas',
  );
  const query = (path: string) =>
    (doc.paths[path]!.get.parameters as { name: string; in: string }[])
      .filter((p) => p.in === 'query')
      .map((p) => p.name);
  assert.equal(query('/admin/v1/machines/{name}'), ['format']);
  assert.equal(query('/admin/v1/actors/{id}/events'), ['after', 'limit', 'stream']);
  assert.equal(query('/admin/v1/actors/{id}/timeline'), [], 'the timeline takes no query');
  const events = doc.paths['/v1/chat/completions']!.post.responses['200'].content['text/event-stream']['x-event-data'];
  assert.ok(JSON.stringify(events).includes('chat.completion.chunk'), 'chunk events carry their schema');
});

test('multipart bodies declare multipart/form-data with their fields and file parts', () => {
  const form = (path: string) => doc.paths[path]!.post.requestBody.content['multipart/form-data'];
  const files = form('/v1/files');
  assert.is(files.schema.properties.file.contentMediaType, 'application/octet-stream');
  assert.ok(files.schema.properties.purpose, 'the purpose field');
  assert.ok(files.schema.required.includes('file'));
  assert.ok(
    doc.paths['/v1/files']!.post.requestBody.content['application/json'].schema.properties.file_data,
    'or JSON with base64',
  );
  const transcription = form('/v1/audio/transcriptions');
  assert.ok(transcription.schema.properties.model && transcription.schema.properties.file);
  assert.is(transcription.encoding.file.contentType, 'audio/*');
  const edit = form('/v1/images/edits');
  assert.ok(edit.schema.properties.prompt && edit.schema.properties.image && edit.schema.properties.mask);
  assert.ok(form('/v1/videos').schema.properties.prompt);
  assert.ok(
    doc.paths['/v1/files/uploads/{upload_id}/parts/{part_number}']!.put.requestBody.content['application/octet-stream'],
  );
  assert.not.ok(doc.paths['/v1/files']!.get.requestBody, 'a GET takes no body');
});

test.run();
