import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from './harness.js';
import { appendAudio, connectCall, silence, type RealtimeClient, type ServerEvent } from './realtime-client.js';
import { espeakSpoken, simSpoken } from './speech-fixture.js';

let server: TestServer;
let slow: TestServer;
const test = suite('realtime calls: session, messages, text and audio turns, barge-in');

test.before(async () => {
  server = await startServer();
  // 40 tokens/s: a response lasts long enough to be interrupted.
  slow = await startServer({ SVC_SIM_TOKENS_PER_S: '40' });
});
test.after(async () => {
  await server.close();
  await slow.close();
});

async function call(on: TestServer = server): Promise<RealtimeClient> {
  const account = await on.account();
  const client = await connectCall(on, account.token);
  await client.next('session.created');
  return client;
}

function decodedAudio(events: ServerEvent[], responseId: string): Buffer {
  return Buffer.concat(
    events
      .filter((e) => e.type === 'response.output_audio.delta' && e.response_id === responseId)
      .map((e) => Buffer.from(e.delta, 'base64')),
  );
}

test('session.created shows the defaults; session.update merges and answers session.updated', async () => {
  const client = await call();
  const created = client.events[0]!;
  assert.is(created.type, 'session.created');
  assert.ok(created.event_id.startsWith('event_'));
  assert.is(created.session.type, 'realtime');
  assert.equal(created.session.audio.input.format, { type: 'audio/pcm', rate: 24000 });
  assert.is(created.session.audio.input.turn_detection.type, 'server_vad');

  client.send({
    type: 'session.update',
    session: {
      type: 'realtime',
      output_modalities: ['text'],
      instructions: 'Be brief.',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          turn_detection: { type: 'server_vad', silence_duration_ms: 700, create_response: false },
        },
        output: { voice: 'marin' },
      },
      tools: [],
    },
  });
  const updated = (await client.next('session.updated')).session;
  assert.equal(updated.output_modalities, ['text']);
  assert.is(updated.instructions, 'Be brief.');
  assert.is(updated.audio.input.turn_detection.silence_duration_ms, 700);
  assert.is(updated.audio.input.turn_detection.create_response, false);
  assert.is(updated.audio.input.turn_detection.prefix_padding_ms, 300, 'fields not sent keep their values');
  assert.is(updated.audio.output.voice, 'marin');
  client.close();
});

test('malformed and unknown messages get an error event naming the problem, and the call stays up', async () => {
  const client = await call();
  client.ws.send('{not json');
  assert.is((await client.next('error')).error.code, 'invalid_json');
  client.send({ type: 'response.explode' });
  const unknown = await client.next('error');
  assert.is(unknown.error.code, 'invalid_event');
  assert.match(unknown.error.message, /response\.explode/);
  client.send({
    type: 'session.update',
    event_id: 'evt_1',
    session: { audio: { input: { format: { type: 'audio/g729' } } } },
  });
  const format = await client.next('error');
  assert.is(format.error.code, 'invalid_value');
  assert.is(format.error.param, 'session.audio.input.format.type');
  assert.is(format.error.event_id, 'evt_1');
  client.send({ type: 'input_audio_buffer.append', audio: '###' });
  assert.match((await client.next('error')).error.message, /base64/);
  client.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3).toString('base64') });
  assert.is((await client.next('error')).error.code, 'invalid_audio');
  client.send({ type: 'response.cancel' });
  assert.is((await client.next('error')).error.code, 'response_cancel_not_active');
  client.send({ type: 'svc.realtime.end_ack' });
  assert.is((await client.next('error')).error.code, 'end_ack_unexpected');
  client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
  assert.is((await client.next('error')).error.code, 'invalid_event');
  client.ws.send(`{"type":"response.create","response":{"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}}`);
  assert.match((await client.next('error')).error.message, /nested more than 64 levels/);
  client.send({ type: 'session.update', session: { instructions: 'still here' } });
  assert.is((await client.next('session.updated')).session.instructions, 'still here');
  assert.is(client.ws.readyState, client.ws.OPEN);
  client.close();
});

test('a text turn: item added, then response.create streams text deltas and ends with usage', async () => {
  const client = await call();
  client.send({ type: 'session.update', session: { output_modalities: ['text'] } });
  await client.next('session.updated');
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is the capital of France?' }] },
  });
  const added = await client.next('conversation.item.added');
  assert.is(added.item.role, 'user');
  assert.equal(added.item.content, [{ type: 'input_text', text: 'What is the capital of France?' }]);
  client.send({ type: 'response.create' });
  const created = await client.next('response.created');
  assert.is(created.response.status, 'in_progress');
  const done = await client.next('response.done');
  assert.is(done.response.id, created.response.id);
  assert.is(done.response.status, 'completed');
  const deltas = client.events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta as string);
  assert.ok(deltas.length > 1, 'streamed in several deltas');
  const text = (await client.next('response.output_text.done')).text;
  assert.is(deltas.join(''), text);
  assert.equal(done.response.output[0].content, [{ type: 'output_text', text }]);
  assert.ok(done.response.usage.input_tokens > 0 && done.response.usage.output_tokens > 0);
  assert.is(done.response.usage.total_tokens, done.response.usage.input_tokens + done.response.usage.output_tokens);
  assert.is(client.events.filter((e) => e.type === 'response.output_audio.delta').length, 0);
  client.close();
});

test('an audio turn with server VAD: speech started and stopped, transcript, then a spoken answer in 50 ms frames', async () => {
  const client = await call();
  const question = 'what is the weather like today?';
  appendAudio(client, Buffer.concat([silence(400), await simSpoken(question), silence(900)]));
  const started = await client.next('input_audio_buffer.speech_started');
  const stopped = await client.next('input_audio_buffer.speech_stopped');
  assert.is(stopped.item_id, started.item_id);
  assert.ok(
    started.audio_start_ms >= 350 && started.audio_start_ms <= 450,
    `speech starts near 400 ms: ${started.audio_start_ms}`,
  );
  assert.ok(stopped.audio_end_ms > started.audio_start_ms);
  assert.is((await client.next('input_audio_buffer.committed')).item_id, started.item_id);
  const transcript = await client.next('conversation.item.input_audio_transcription.completed');
  assert.is(transcript.transcript, question);
  const done = await client.next('response.done', 10_000);
  assert.is(done.response.status, 'completed');
  const frames = client.events.filter((e) => e.type === 'response.output_audio.delta');
  assert.ok(frames.length > 5, `${frames.length} frames`);
  for (const frame of frames.slice(0, -1)) assert.is(Buffer.from(frame.delta, 'base64').length, 2400);
  const audio = decodedAudio(client.events, done.response.id);
  assert.is(audio.length % 2, 0);
  assert.ok(Math.abs(done.response.usage.svc.audio_out_seconds - audio.length / 48_000) < 0.01);
  // Audio frames and transcript deltas interleave: speech leaves while the answer is produced.
  const firstAudio = client.events.findIndex((e) => e.type === 'response.output_audio.delta');
  const lastTranscript = client.events.findLastIndex((e) => e.type === 'response.output_audio_transcript.delta');
  assert.ok(
    firstAudio < lastTranscript ||
      client.events.filter((e) => e.type === 'response.output_audio_transcript.delta').length === 1,
  );
  const spoken = (await client.next('response.output_audio_transcript.done')).transcript;
  assert.ok(spoken.length > 0);
  client.close();
});

test('real speech from espeak-ng is detected and answered (skipped without espeak-ng)', async () => {
  const speech = await espeakSpoken('Hello, could you tell me a story about a lighthouse?');
  if (!speech) {
    console.log('  (espeak-ng not installed: real-speech turn skipped)');
    return;
  }
  const client = await call();
  appendAudio(client, Buffer.concat([silence(300), speech, silence(1000)]));
  await client.next('input_audio_buffer.speech_started');
  await client.next('input_audio_buffer.speech_stopped', 10_000);
  const transcript = await client.next('conversation.item.input_audio_transcription.completed', 10_000);
  assert.ok(transcript.transcript.length > 0);
  assert.is((await client.next('response.done', 15_000)).response.status, 'completed');
  client.close();
});

test('barge-in: speech during a response cancels it (turn_detected) and the new turn is answered', async () => {
  const client = await call(slow);
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Tell me a long story.' }] },
  });
  client.send({ type: 'response.create' });
  const first = await client.next('response.created');
  await client.next('response.output_audio.delta', 5000);
  appendAudio(client, Buffer.concat([await simSpoken('stop please'), silence(800)]));
  await client.next('input_audio_buffer.speech_started');
  const cancelled = await client.next('response.done', 5000);
  assert.is(cancelled.response.id, first.response.id);
  assert.is(cancelled.response.status, 'cancelled');
  assert.is(cancelled.response.status_details.reason, 'turn_detected');
  assert.is(cancelled.response.output[0].status, 'incomplete');
  assert.is(
    (await client.next('conversation.item.input_audio_transcription.completed', 5000)).transcript,
    'stop please',
  );
  const second = await client.next('response.created', 5000);
  assert.is.not(second.response.id, first.response.id);
  client.close();
});

test('response.cancel stops a response in flight: status cancelled, client_cancelled', async () => {
  const client = await call(slow);
  client.send({ type: 'session.update', session: { output_modalities: ['text'] } });
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Count to one hundred.' }] },
  });
  client.send({ type: 'response.create' });
  await client.next('response.output_text.delta');
  client.send({ type: 'response.create' });
  assert.is((await client.next('error')).error.code, 'conversation_already_has_active_response');
  client.send({ type: 'response.cancel' });
  const done = await client.next('response.done');
  assert.is(done.response.status, 'cancelled');
  assert.is(done.response.status_details.reason, 'client_cancelled');
  assert.ok(done.response.usage.output_tokens > 0, 'a cut response still counts what it produced');
  client.close();
});

test('without turn detection the client commits: too little audio is refused, a commit is transcribed and answered only on request', async () => {
  const client = await call();
  client.send({
    type: 'session.update',
    session: { audio: { input: { turn_detection: null } }, output_modalities: ['text'] },
  });
  assert.is((await client.next('session.updated')).session.audio.input.turn_detection, null);
  appendAudio(client, silence(50));
  client.send({ type: 'input_audio_buffer.commit' });
  assert.is((await client.next('error')).error.code, 'input_audio_buffer_commit_empty');
  appendAudio(client, await simSpoken('hello there'));
  client.send({ type: 'input_audio_buffer.commit' });
  await client.next('input_audio_buffer.committed');
  assert.is((await client.next('conversation.item.input_audio_transcription.completed')).transcript, 'hello there');
  await client.next('conversation.item.done');
  assert.is(client.events.filter((e) => e.type === 'input_audio_buffer.speech_started').length, 0);
  assert.is(client.events.filter((e) => e.type === 'response.created').length, 0);
  client.send({ type: 'response.create' });
  assert.is((await client.next('response.done')).response.status, 'completed');
  appendAudio(client, await simSpoken('scratch that'));
  client.send({ type: 'input_audio_buffer.clear' });
  await client.next('input_audio_buffer.cleared');
  client.send({ type: 'input_audio_buffer.commit' });
  assert.is((await client.next('error')).error.code, 'input_audio_buffer_commit_empty');
  client.close();
});

test.run();
