import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from './harness.js';
import { appendAudio, connectCall, silence, type RealtimeClient } from './realtime-client.js';
import { simSpoken } from './speech-fixture.js';

let server: TestServer;
const test = suite('realtime session settings: semantic_vad, input transcription settings and deltas');

test.before(async () => {
  server = await startServer();
});
test.after(async () => {
  await server.close();
});

async function call(): Promise<RealtimeClient> {
  const account = await server.account();
  const client = await connectCall(server, account.token);
  await client.next('session.created');
  return client;
}

test('semantic_vad is served by our VAD: eagerness sets the silence it waits for, other fields kept', async () => {
  const client = await call();
  for (const [eagerness, silenceMs] of [
    ['low', 1200],
    ['high', 350],
    ['auto', 700],
  ] as const) {
    client.send({
      type: 'session.update',
      session: { audio: { input: { turn_detection: { type: 'semantic_vad', eagerness, create_response: true } } } },
    });
    const detection = (await client.next('session.updated')).session.audio.input.turn_detection;
    assert.is(detection.type, 'server_vad');
    assert.is(detection.silence_duration_ms, silenceMs);
    assert.is(detection.create_response, true);
  }
  client.send({ type: 'session.update', session: { audio: { input: { turn_detection: { type: 'far_vad' } } } } });
  const refused = await client.next('error');
  assert.is(refused.error.code, 'invalid_value');
  assert.is(refused.error.param, 'session.audio.input.turn_detection.type');
  client.close();
});

test('transcription settings are kept and shown; a heard turn gets one whole-transcript delta before completed', async () => {
  const client = await call();
  client.send({
    type: 'session.update',
    session: {
      audio: {
        input: {
          transcription: { model: 'gpt-4o-mini-transcribe', language: 'en', prompt: 'Names of cities' },
          turn_detection: { type: 'semantic_vad', create_response: false },
        },
      },
    },
  });
  const shown = (await client.next('session.updated')).session.audio.input.transcription;
  assert.equal(shown, { model: 'gpt-4o-mini-transcribe', language: 'en', prompt: 'Names of cities' });
  appendAudio(client, Buffer.concat([silence(300), await simSpoken('Lisbon and Porto.'), silence(1500)]));
  const delta = await client.next('conversation.item.input_audio_transcription.delta', 10_000);
  const completed = await client.next('conversation.item.input_audio_transcription.completed', 10_000);
  assert.is(delta.item_id, completed.item_id);
  assert.is(delta.delta, 'Lisbon and Porto.');
  assert.is(completed.transcript, 'Lisbon and Porto.');
  const order = client.events.map((e) => e.type);
  assert.ok(
    order.indexOf('conversation.item.input_audio_transcription.delta') <
      order.indexOf('conversation.item.input_audio_transcription.completed'),
  );
  client.close();
});

test.run();
