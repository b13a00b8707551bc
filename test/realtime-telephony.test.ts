import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import alawmulaw from 'alawmulaw';
import { decodeSimVoice } from '../backends/sim/sim-voice-codec.js';
import { encodeTelephony, TelephonyDecoder } from '../actors/realtime/telephony-audio.js';
import { startServer, type TestServer } from './harness.js';
import { connectCall, silence, type RealtimeClient } from './realtime-client.js';
import { simSpoken } from './speech-fixture.js';

// A phone bridge's call: G.711 at 8 kHz in 20 ms frames, answered in the same format, billed by
// the same audio seconds as the same call in PCM.

let server: TestServer;
const test = suite('realtime telephony audio: G.711 µ-law and A-law at 8 kHz in and out');

test.before(async () => {
  server = await startServer();
});
test.after(async () => {
  await server.close();
});

const QUESTION = 'What time does the pharmacy open?';

/** One call: the question spoken in `format` in 20 ms frames, the answer heard, then a goodbye and the bill. */
async function phoneCall(format: 'pcm' | 'pcmu' | 'pcma') {
  const account = await server.account();
  const client: RealtimeClient = await connectCall(server, account.token);
  await client.next('session.created');
  const wire = format === 'pcm' ? { type: 'audio/pcm', rate: 24000 } : { type: `audio/${format}` };
  client.send({ type: 'session.update', session: { audio: { input: { format: wire }, output: { format: wire } } } });
  const session = (await client.next('session.updated')).session;
  const pcm = Buffer.concat([silence(300), await simSpoken(QUESTION), silence(900)]);
  const audio = encodeTelephony(pcm, format);
  const frame = format === 'pcm' ? 960 : 160; // 20 ms
  for (let at = 0; at < audio.length; at += frame)
    client.send({ type: 'input_audio_buffer.append', audio: audio.subarray(at, at + frame).toString('base64') });
  const transcript = await client.next('conversation.item.input_audio_transcription.completed', 10_000);
  const done = await client.next('response.done', 10_000);
  const frames = client.events
    .filter((e) => e.type === 'response.output_audio.delta')
    .map((e) => Buffer.from(e.delta as string, 'base64'));
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks, goodbye!' }] },
  });
  await client.next('svc.realtime.end_ready', 10_000);
  client.send({ type: 'svc.realtime.end_ack' });
  const closed = await client.next('svc.realtime.closed', 10_000);
  return { session, transcript, done, frames, closed };
}

/** What the sim voice in the answer says, the frames decoded from `format` first. */
function heard(frames: Buffer[], format: 'pcm' | 'pcmu' | 'pcma'): string | null {
  const decoder = new TelephonyDecoder();
  const pcm = Buffer.concat(frames.map((frame) => decoder.decode(frame, format)));
  return decodeSimVoice(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2));
}

test('a µ-law call in 20 ms frames is transcribed and answered in µ-law, billed as the same call in PCM', async () => {
  const phone = await phoneCall('pcmu');
  const plain = await phoneCall('pcm');
  assert.equal(phone.session.audio.input.format, { type: 'audio/pcmu' });
  assert.equal(phone.session.audio.output.format, { type: 'audio/pcmu' });
  assert.is(phone.transcript.transcript, QUESTION);
  assert.is(phone.done.response.status, 'completed');
  const answer = phone.done.response.output[0].content[0].transcript as string;
  assert.is(heard(phone.frames, 'pcmu'), answer, 'the µ-law answer says its transcript');
  // 50 ms frames: 400 bytes of µ-law, 2,400 bytes of PCM.
  assert.is(phone.frames[0]!.length, 400);
  assert.is(plain.frames[0]!.length, 2400);
  // Same audio time in and out, so the same bill.
  assert.equal(phone.transcript.usage, plain.transcript.usage);
  assert.equal(phone.closed.usage, plain.closed.usage);
  assert.ok(phone.closed.usage.audio_in_seconds > 1);
  assert.is(phone.closed.svc.price_usd, plain.closed.svc.price_usd);
});

test('an A-law call is served the same way', async () => {
  const phone = await phoneCall('pcma');
  assert.is(phone.transcript.transcript, QUESTION);
  const answer = phone.done.response.output[0].content[0].transcript as string;
  assert.is(heard(phone.frames, 'pcma'), answer);
});

test('the G.711 codecs are the library’s: a µ-law frame decodes as alawmulaw decodes it', () => {
  const frame = Buffer.from(alawmulaw.mulaw.encode(new Int16Array([0, 1000, -1000, 8000])));
  const wide = new TelephonyDecoder().decode(frame, 'pcmu');
  const samples = new Int16Array(wide.buffer, wide.byteOffset, wide.length / 2);
  assert.is(samples.length, 12);
  assert.equal([samples[2], samples[5], samples[8], samples[11]], Array.from(alawmulaw.mulaw.decode(frame)));
});

test.run();
