import { createHash } from 'node:crypto';
import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, fetch as undiciFetch } from 'undici';
import WebSocket from 'ws';
import { chunk, echoModel, sendEvent, startFakeUpstream, startSse, type FakeUpstream } from '../fake-upstream.js';
import type { TlsProxy } from '../doubles/tls-proxy.js';
import { startServer, type TestAccount, type TestServer } from '../harness.js';

/** One proxy as the docs configure it: its name and how to start it in front of a server's port. */
export interface ProxyUnderTest {
  name: string;
  start(upstreamPort: number): Promise<TlsProxy>;
}

const PART = 8 * 1024 * 1024;

/**
 * What every reverse proxy config in docs/deploy.md must carry, registered on `test` for one proxy:
 * chat JSON and SSE unbuffered, a session's events, a three-part resumable upload with 8 MiB
 * parts, a realtime call over wss://, and the client's address through X-Forwarded-For.
 */
export function reverseProxyContract(test: Test, impl: ProxyUnderTest): void {
  let upstream: FakeUpstream;
  let server: TestServer;
  let proxy: TlsProxy;
  let account: TestAccount;
  /** Released by the test once the first delta came through the proxy: only then does the upstream finish. */
  let releaseLast: () => void = () => undefined;

  /** A client of the proxy trusting its certificate, connecting from `localAddress` (any 127.0.0.0/8 address). */
  function through(localAddress = '127.0.0.1') {
    const dispatcher = new Agent({ localAddress, connect: { ca: proxy.cert } });
    return (path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}) =>
      undiciFetch(proxy.url + path, { ...init, dispatcher });
  }

  const auth = () => ({ authorization: `Bearer ${account.token}`, 'content-type': 'application/json' });

  test.before(async () => {
    upstream = await startFakeUpstream((request, res) => {
      if (request.body.messages?.[0]?.content !== 'gated') return echoModel(request, res);
      startSse(res);
      sendEvent(res, chunk({ content: 'first ' }));
      const last = new Promise<void>((resolve) => (releaseLast = resolve));
      void last.then(() => {
        sendEvent(res, chunk({ content: 'last', finishReason: 'stop' }));
        sendEvent(res, '[DONE]');
        res.end();
      });
    });
    server = await startServer({
      SVC_BACKEND: 'openai-compatible',
      SVC_UPSTREAM_BASE_URL: upstream.url,
      SVC_UPSTREAM_MODEL: 'upstream-model',
      SVC_CHAT_CACHE_TTL_S: '0',
      SVC_TRUSTED_PROXIES: '127.0.0.1',
    });
    account = await server.account(20);
    proxy = await impl.start(Number(new URL(server.url).port));
  });
  test.after(async () => {
    await proxy?.close();
    await server?.close();
    await upstream?.close();
  });

  test(`a chat completion as JSON, over TLS through ${impl.name}`, async () => {
    const res = await through()('/v1/chat/completions', {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify({ model: 'pro-1', messages: [{ role: 'user', content: 'hello proxy' }] }),
    });
    assert.is(res.status, 200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    assert.match(body.choices[0]!.message.content, /hello proxy/);
    assert.match(res.headers.get('x-request-id') ?? '', /^req_/);
  });

  test(`SSE streams through ${impl.name}: the first chunk arrives before the upstream produces the last`, async () => {
    const res = await through()('/v1/chat/completions', {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify({ model: 'pro-1', stream: true, messages: [{ role: 'user', content: 'gated' }] }),
    });
    assert.is(res.status, 200);
    // nginx reads X-Accel-Buffering: no, Caddy flushes text/event-stream: either way, unbuffered.
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const decoder = new TextDecoder();
    let text = '';
    let released = false;
    // The upstream holds its last chunk until the first has come out of the proxy: buffering would hang here.
    for await (const piece of res.body!) {
      text += decoder.decode(piece as Uint8Array, { stream: true });
      if (!released && text.includes('first')) {
        assert.not.ok(text.includes('last'), 'the last chunk was not produced yet');
        released = true;
        releaseLast();
      }
    }
    assert.ok(released);
    assert.ok(text.includes('"content":"last"'));
    assert.ok(text.trimEnd().endsWith('data: [DONE]'));
  });

  test(`a session's events over SSE through ${impl.name}`, async () => {
    const fetchProxy = through();
    const created = await fetchProxy('/v1/chat/sessions', {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify({ model: 'pro-1', max_tokens: 40, messages: [{ role: 'user', content: 'Plan a trip' }] }),
    });
    assert.is(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    const events = await fetchProxy(`/v1/chat/sessions/${id}/events?after=-1`, { headers: auth() });
    assert.is(events.status, 200);
    assert.match(events.headers.get('content-type') ?? '', /text\/event-stream/);
    const text = await events.text();
    assert.match(text, /completed/);
    assert.match(text, /Plan a trip/);
  });

  test(`a three-part resumable upload through ${impl.name} (8 MiB parts)`, async () => {
    const fetchProxy = through();
    const source = Buffer.alloc(2 * PART + 4321);
    for (let i = 0; i < source.length; i++) source[i] = (i * 2654435761) >>> 24;
    const reserved = await fetchProxy('/v1/files/uploads', {
      method: 'POST',
      headers: auth(),
      body: JSON.stringify({ filename: 'through-nginx.bin', bytes: source.length }),
    });
    assert.is(reserved.status, 200);
    const upload = (await reserved.json()) as { id: string; part_count: number };
    assert.is(upload.part_count, 3);
    for (const n of [0, 1, 2]) {
      const put = await fetchProxy(`/v1/files/uploads/${upload.id}/parts/${n}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/octet-stream' },
        body: source.subarray(n * PART, (n + 1) * PART),
      });
      assert.is(put.status, 200, await put.clone().text());
    }
    const done = await fetchProxy(`/v1/files/uploads/${upload.id}/complete`, { method: 'POST', headers: auth() });
    assert.is(done.status, 200);
    const file = (await done.json()) as { bytes: number; sha256: string };
    assert.is(file.bytes, source.length);
    assert.is(file.sha256, createHash('sha256').update(source).digest('hex'));
  });

  test(`a realtime call over wss:// through ${impl.name}`, async () => {
    const ticket = await through()('/v1/realtime/ticket', { method: 'POST', headers: auth() });
    assert.is(ticket.status, 200);
    const { ticket: value } = (await ticket.json()) as { ticket: string };
    const url = `${proxy.url.replace(/^https/, 'wss')}/v1/realtime?ticket=${encodeURIComponent(value)}`;
    const ws = new WebSocket(url, { ca: proxy.cert });
    const events: { type: string; [key: string]: any }[] = [];
    const waiters: (() => void)[] = [];
    ws.on('message', (data) => {
      events.push(JSON.parse((data as Buffer).toString('utf8')) as { type: string });
      waiters.splice(0).forEach((wake) => wake());
    });
    const next = async (type: string) => {
      for (;;) {
        const found = events.find((event) => event.type === type);
        if (found) return found;
        if (ws.readyState === WebSocket.CLOSED) throw new Error(`closed before ${type}`);
        await new Promise<void>((wake) => waiters.push(wake));
      }
    };
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    try {
      await next('session.created');
      ws.send(JSON.stringify({ type: 'session.update', session: { output_modalities: ['text'] } }));
      await next('session.updated');
      ws.send(
        JSON.stringify({
          type: 'conversation.item.create',
          item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'over the proxy' }] },
        }),
      );
      ws.send(JSON.stringify({ type: 'response.create' }));
      const done = await next('response.done');
      assert.is(done.response.status, 'completed');
      assert.match(JSON.stringify(done.response.output), /over the proxy/);
    } finally {
      ws.close();
    }
  });

  test(`X-Forwarded-For from ${impl.name} (trusted) gives the client's address to the per-client limits; a forged one does not`, async () => {
    const resetFrom = (address: string, headers: Record<string, string> = {}) =>
      through(address)('/v1/account/password-reset/request', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ email: 'someone@example.com' }),
      }).then((res) => res.status);
    // 20 an hour per client: the client at 127.0.0.3 uses them up.
    const first = await Promise.all(Array.from({ length: 21 }, () => resetFrom('127.0.0.3')));
    assert.is(first.filter((status) => status === 200).length, 20);
    assert.is(first.filter((status) => status === 429).length, 1);
    // Another client behind the same proxy has its own count, even naming 127.0.0.3 itself.
    assert.is(await resetFrom('127.0.0.4'), 200);
    assert.is(await resetFrom('127.0.0.4', { 'x-forwarded-for': '127.0.0.5' }), 200);
    assert.is(await resetFrom('127.0.0.5', { 'x-forwarded-for': '127.0.0.3' }), 200);
  });
}
