import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SimulatedClock } from '../runtime/clock.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { appendAudio, connectCall, silence, type RealtimeClient } from './realtime-client.js';
import { simSpoken } from './speech-fixture.js';

let server: TestServer;
// The server's clock moves only when a test moves it: the end grace runs out when the test says.
const clock = new SimulatedClock(Date.now());
const test = suite('realtime hang-up, transcription mode and billing');

test.before(async () => {
  server = await startServer({ SVC_REALTIME_END_GRACE_MS: '400' }, { clock });
});
test.after(async () => {
  await server.close();
});

async function call(account?: TestAccount): Promise<{ client: RealtimeClient; account: TestAccount }> {
  const owner = account ?? (await server.account());
  const client = await connectCall(server, owner.token);
  await client.next('session.created');
  return { client, account: owner };
}

function say(client: RealtimeClient, text: string): void {
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  });
}

async function realtimeCharges(account: TestAccount): Promise<{ amount: number; description: string }[]> {
  const usage = await server.request('GET', '/v1/account/usage', { token: account.token });
  return (usage.body.recent as { type: string; amount_usd: number; description: string }[])
    .filter((e) => e.description.startsWith('realtime call'))
    .map((e) => ({ amount: e.amount_usd, description: e.description }));
}

/** Waits until the client's socket is closed and the call behind it has closed (and settled). */
async function callEnded(client: RealtimeClient): Promise<void> {
  await client.closed;
  await server.app.deps.host.waitFor(client.events[0]!.session.id as string, () => false);
}

test('a typed farewell: ending, one spoken goodbye, end_ready, end_ack, the charge once, then close 1000', async () => {
  const { client, account } = await call();
  say(client, 'What time is it?');
  client.send({ type: 'response.create' });
  await client.next('response.done');
  say(client, 'Great, thanks for your help. Goodbye!');
  const ending = await client.next('svc.realtime.ending');
  assert.is(ending.reason, 'farewell');
  assert.is(ending.language, 'en');
  const goodbye = await client.next('response.done', 5000);
  assert.is(goodbye.response.status, 'completed');
  assert.ok(
    client.events.some((e) => e.type === 'response.output_audio.delta' && e.response_id === goodbye.response.id),
    'the goodbye is spoken',
  );
  assert.ok(goodbye.response.output[0].content[0].transcript.length > 0);
  const ready = await client.next('svc.realtime.end_ready');
  assert.is(ready.grace_ms, 400);
  client.send({ type: 'response.create' });
  assert.is((await client.next('error')).error.code, 'call_ending');
  client.send({ type: 'svc.realtime.end_ack' });
  const closedEvent = await client.next('svc.realtime.closed');
  assert.is(closedEvent.reason, 'end_ack');
  assert.ok(
    closedEvent.usage.audio_out_seconds > 0 &&
      closedEvent.usage.prompt_tokens > 0 &&
      closedEvent.usage.completion_tokens > 0,
  );
  const price = closedEvent.svc.price_usd as number;
  assert.ok(price > 0);
  assert.is((await client.closed).code, 1000);

  const charges = await realtimeCharges(account);
  assert.is(charges.length, 1, 'charged exactly once');
  assert.is(charges[0]!.amount, -price);
  const usage = await server.request('GET', '/v1/account/usage', { token: account.token });
  assert.is(usage.body.held_usd, 0);
  assert.ok(Math.abs(usage.body.balance_usd - (10 - price)) < 1e-9);
});

test('a spoken Spanish farewell ends in Spanish; without end_ack the grace period closes the call', async () => {
  const { client } = await call();
  appendAudio(client, Buffer.concat([silence(200), await simSpoken('muchas gracias, adiós'), silence(800)]));
  assert.is(
    (await client.next('conversation.item.input_audio_transcription.completed')).transcript,
    'muchas gracias, adiós',
  );
  const ending = await client.next('svc.realtime.ending');
  assert.is(ending.language, 'es');
  const transcript = (await client.next('response.output_audio_transcript.done')).transcript;
  assert.match(transcript, /adiós/i);
  await client.next('svc.realtime.end_ready');
  clock.advance(399);
  client.send({ type: 'response.create' });
  assert.is((await client.next('error')).error.code, 'call_ending');
  assert.not.ok(
    client.events.some((e) => e.type === 'svc.realtime.closed'),
    'waited for the grace period',
  );
  clock.advance(1);
  assert.is((await client.next('svc.realtime.closed', 3000)).reason, 'grace');
  assert.is((await client.closed).code, 1000);
});

test('an explicit request to hang up ends the call; "bye" in the middle of a sentence does not', async () => {
  const { client } = await call();
  client.send({ type: 'session.update', session: { output_modalities: ['text'] } });
  say(client, 'I said bye to my friend at the station and then went home.');
  client.send({ type: 'response.create' });
  assert.is((await client.next('response.done')).response.status, 'completed');
  assert.not.ok(client.events.some((e) => e.type === 'svc.realtime.ending'));
  say(client, 'Please hang up now.');
  const ending = await client.next('svc.realtime.ending');
  assert.is(ending.reason, 'hang_up_request');
  const goodbye = await client.next('response.output_text.done');
  assert.ok(goodbye.text.length > 0, 'a text session says goodbye in text');
  await client.next('svc.realtime.end_ready');
  client.send({ type: 'svc.realtime.end_ack' });
  assert.is((await client.next('svc.realtime.closed')).reason, 'end_ack');
});

test('transcription mode transcribes every turn, answers none and never ends on "goodbye"', async () => {
  const { client, account } = await call();
  client.send({
    type: 'session.update',
    session: { type: 'transcription', audio: { input: { transcription: { model: 'sim', language: 'en' } } } },
  });
  assert.is((await client.next('session.updated')).session.type, 'transcription');
  appendAudio(
    client,
    Buffer.concat([
      silence(200),
      await simSpoken('goodbye'),
      silence(700),
      await simSpoken('bye bye, hang up'),
      silence(700),
    ]),
  );
  assert.is((await client.next('conversation.item.input_audio_transcription.completed')).transcript, 'goodbye');
  assert.is(
    (await client.next('conversation.item.input_audio_transcription.completed')).transcript,
    'bye bye, hang up',
  );
  // The refusal answers a message sent after both turns: anything they caused was sent before it.
  client.send({ type: 'response.create' });
  assert.is((await client.next('error')).error.code, 'transcription_session');
  assert.not.ok(client.events.some((e) => e.type === 'svc.realtime.ending' || e.type === 'response.created'));
  client.close();
  await callEnded(client);
  const charges = await realtimeCharges(account);
  assert.is(charges.length, 1, 'a call the client leaves is still charged, once');
  assert.match(charges[0]!.description, /s in, 0\.0 s out/);
  assert.is((await realtimeCharges(account)).length, 1);
});

test('a call the balance cannot carry gets insufficient_balance and closes cleanly', async () => {
  const poor = await server.account(0.015);
  const { client } = await call(poor);
  say(client, 'Tell me everything about the history of Rome.');
  client.send({ type: 'response.create' });
  const error = await client.next('error');
  assert.is(error.error.code, 'insufficient_balance');
  assert.is(error.error.type, 'billing_error');
  assert.is((await client.next('svc.realtime.closed')).reason, 'insufficient_balance');
  assert.is((await client.closed).code, 1000);
  const usage = await server.request('GET', '/v1/account/usage', { token: poor.token });
  assert.is(usage.body.held_usd, 0);
  assert.ok(usage.body.balance_usd >= 0);
});

test.run();
