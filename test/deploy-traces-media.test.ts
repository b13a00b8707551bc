import { rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toFile } from 'openai';
import OpenAI from 'openai';
import { encodeSimVoice } from '../backends/sim/sim-voice-codec.js';
import { buildApp } from '../http/app.js';
import { loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { startTracing } from '../runtime/trace-export.js';
import { simVoiceWav } from './audio-fixtures.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './doubles/otlp-receiver.js';
import { startFakeUpstream, type CapturedRequest, type FakeUpstream } from './fake-upstream.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';

const test = suite('deploy: client spans for image, speech and transcription upstream calls (GenAI conventions)');
const UPSTREAM_KEY = 'sk-upstream-Media7Kf3LmW9xTr2Vb7Np4';
const CLIENT_TRACE = '5cf92f3577b34da6a3ce929d0e0e4737';
const CLIENT_SPAN = '10f067aa0ba902b8';

let upstream: FakeUpstream;
let receiver: OtlpReceiver;
let png: Buffer;

async function answer(request: CapturedRequest, res: ServerResponse): Promise<void> {
  if (request.path === '/v1/images/generations') {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: [{ b64_json: png.toString('base64') }] }));
    return;
  }
  if (request.path === '/v1/audio/speech') {
    res.writeHead(200, { 'content-type': 'audio/pcm' }).end(encodeSimVoice(String(request.body.input)));
    return;
  }
  if (request.path === '/v1/audio/transcriptions') {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ task: 'transcribe', language: 'english', duration: 2.5, text: 'Hello from upstream.' }));
    return;
  }
  await Promise.resolve();
  res.writeHead(404).end();
}

/** One traced call through the gateway: the server span named `name`, its client span, and the traceparent the upstream got. */
function clientSpanOf(name: string, path: string): { server: ReceivedSpan; client: ReceivedSpan } {
  const server = receiver.spans.find((span) => span.name === name);
  assert.ok(server, `a server span ${name}: ${receiver.spans.map((span) => span.name).join(', ')}`);
  assert.is(server.traceId, CLIENT_TRACE);
  const client = receiver.spans.find((span) => span.kind === 3 && span.parentSpanId === server.spanId);
  assert.ok(client, `a client span under ${name}`);
  assert.is(client.traceId, CLIENT_TRACE);
  assert.is(client.attributes['gen_ai.operation.name'], 'generate_content');
  assert.is(client.attributes['gen_ai.provider.name'], 'openai');
  const sent = upstream.requests
    .filter((request) => request.path === path)
    .map((request) => request.headers.traceparent);
  assert.equal(sent, [`00-${CLIENT_TRACE}-${client.spanId}-01`], `the traceparent ${path} got`);
  return { server, client };
}

test.before(async () => {
  png = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#225588' } })
    .png()
    .toBuffer();
  upstream = await startFakeUpstream(answer);
  receiver = await startOtlpReceiver();
  const dataDir = tempDataDir();
  const config = loadConfig({
    PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_KEY: ADMIN_KEY,
    SVC_IMAGE_BACKEND: 'openai-compatible',
    SVC_SPEECH_BACKEND: 'openai-compatible',
    SVC_TRANSCRIPTION_BACKEND: 'openai-compatible',
    SVC_UPSTREAM_BASE_URL: upstream.url,
    SVC_UPSTREAM_API_KEY: UPSTREAM_KEY,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  });
  const tracing = startTracing(config);
  const app = buildApp(config, { tracing, logger: createLogger('silent') });
  const url = `http://127.0.0.1:${await app.listen()}`;
  try {
    const created = await fetch(`${url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'media-traced@example.com', password: 'correct horse battery', credit_usd: 5 }),
    });
    const token = ((await created.json()) as { api_token: { token: string } }).api_token.token;
    const client = new OpenAI({
      apiKey: token,
      baseURL: `${url}/v1`,
      defaultHeaders: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
    });
    await client.images.generate({ prompt: 'a lighthouse', size: '512x512' });
    await (await client.audio.speech.create({ model: 'pro-1', voice: 'nova', input: 'Traced speech.' })).arrayBuffer();
    await client.audio.transcriptions.create({ file: await toFile(simVoiceWav('ignored'), 'a.wav'), model: 'pro-1' });
    await tracing.flush();
  } finally {
    await app.close();
    await tracing.shutdown();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
test.after(async () => {
  await receiver.close();
  await upstream.close();
});

test('an image generation is a client span with the upstream model, size and our cost, under the server span', () => {
  const { client } = clientSpanOf('POST /v1/images/generations', '/v1/images/generations');
  assert.is(client.name, 'generate_content gpt-image-1');
  assert.is(client.attributes['gen_ai.request.model'], 'gpt-image-1');
  assert.is(client.attributes['gen_ai.output.type'], 'image');
  assert.is(client.attributes['svc.image.size'], '512x512');
  assert.ok(Number(client.attributes['svc.cost_micro_usd']) > 0);
});

test('speech is a client span over the whole stream, with the PCM bytes it produced', () => {
  const { client } = clientSpanOf('POST /v1/audio/speech', '/v1/audio/speech');
  assert.is(client.attributes['gen_ai.request.model'], 'tts-1');
  assert.is(client.attributes['gen_ai.output.type'], 'speech');
  assert.is(client.attributes['svc.speech.characters'], 'Traced speech.'.length);
  assert.ok(Number(client.attributes['svc.audio.pcm_bytes']) > 0);
});

test('a transcription is a client span with the audio duration the upstream heard', () => {
  const { client } = clientSpanOf('POST /v1/audio/transcriptions', '/v1/audio/transcriptions');
  assert.is(client.attributes['gen_ai.request.model'], 'whisper-1');
  assert.is(client.attributes['gen_ai.output.type'], 'text');
  assert.is(client.attributes['svc.audio.duration_s'], 2.5);
});

test('no span carries the upstream key or the API token', () => {
  const exported = Buffer.concat(receiver.raw).toString('latin1');
  assert.ok(exported.length > 0);
  assert.not.ok(exported.includes(UPSTREAM_KEY));
  assert.not.ok(exported.includes(ADMIN_KEY));
});

test.run();
