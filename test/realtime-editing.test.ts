import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { conversationMessages } from '../actors/realtime/call-conversation.js';
import { countPromptTokens } from '../protocols/tokens.js';
import { startServer, type TestServer } from './harness.js';
import { appendAudio, connectCall, silence, type RealtimeClient } from './realtime-client.js';
import { simSpoken } from './speech-fixture.js';

let server: TestServer;
let slow: TestServer;
const test = suite('realtime conversation editing: truncate, delete, retrieve, and barge-in truncation');

test.before(async () => {
  server = await startServer();
  // 40 tokens/s: a spoken answer lasts long enough to be interrupted.
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

function say(client: RealtimeClient, text: string): void {
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  });
}

/** The prompt tokens a response over these items costs (no instructions). */
const promptTokensOf = (items: { role: 'user' | 'assistant'; text: string }[]): number =>
  countPromptTokens(
    conversationMessages(
      '',
      items.map((item, i) => ({ id: `i${i}`, audioMs: 0, ...item })),
    ),
  );

test('retrieve shows an item; delete removes it from what later responses see; unknown items are refused', async () => {
  const client = await call();
  client.send({ type: 'session.update', session: { output_modalities: ['text'] } });
  say(client, 'My name is Ada.');
  const kept = (await client.next('conversation.item.added')).item;
  say(client, 'Ignore this line please.');
  const dropped = (await client.next('conversation.item.added')).item;
  client.send({ type: 'conversation.item.retrieve', item_id: kept.id });
  const retrieved = await client.next('conversation.item.retrieved');
  assert.equal(retrieved.item.content, [{ type: 'input_text', text: 'My name is Ada.' }]);
  client.send({ type: 'conversation.item.delete', item_id: dropped.id });
  assert.is((await client.next('conversation.item.deleted')).item_id, dropped.id);
  client.send({ type: 'conversation.item.retrieve', event_id: 'r1', item_id: dropped.id });
  const gone = await client.next('error');
  assert.is(gone.error.code, 'item_not_found');
  assert.is(gone.error.param, 'item_id');
  assert.is(gone.error.event_id, 'r1');
  client.send({ type: 'conversation.item.delete', item_id: 'item_nope' });
  assert.is((await client.next('error')).error.code, 'item_not_found');
  client.send({ type: 'conversation.item.truncate', item_id: kept.id, content_index: 0, audio_end_ms: 10 });
  const notAudio = await client.next('error');
  assert.is(notAudio.error.code, 'invalid_value');
  assert.is(notAudio.error.param, 'item_id');
  client.send({ type: 'conversation.item.truncate', item_id: kept.id, content_index: 0 });
  assert.is((await client.next('error')).error.param, 'audio_end_ms');

  client.send({ type: 'response.create' });
  const done = await client.next('response.done');
  assert.is(done.response.usage.input_tokens, promptTokensOf([{ role: 'user', text: 'My name is Ada.' }]));
  client.close();
});

test('truncate cuts an assistant audio item and its transcript; the next response sees only what was heard', async () => {
  const client = await call();
  say(client, 'Tell me about the sea and the ships that sail on it.');
  client.send({ type: 'response.create' });
  const done = await client.next('response.done', 10_000);
  const item = done.response.output[0];
  const spoken = item.content[0].transcript as string;
  const spokenMs = Math.round(done.response.usage.svc.audio_out_seconds * 1000);
  assert.ok(spoken.split(' ').length > 4 && spokenMs > 1000, 'a long enough answer');

  client.send({ type: 'conversation.item.truncate', item_id: item.id, content_index: 0, audio_end_ms: spokenMs + 1 });
  assert.is((await client.next('error')).error.param, 'audio_end_ms');
  client.send({ type: 'conversation.item.truncate', item_id: item.id, content_index: 1, audio_end_ms: 10 });
  assert.is((await client.next('error')).error.param, 'content_index');
  const cutMs = Math.floor(spokenMs / 2);
  client.send({ type: 'conversation.item.truncate', item_id: item.id, content_index: 0, audio_end_ms: cutMs });
  const cut = await client.next('conversation.item.truncated');
  assert.equal([cut.item_id, cut.content_index, cut.audio_end_ms], [item.id, 0, cutMs]);
  client.send({ type: 'conversation.item.retrieve', item_id: item.id });
  const heard = (await client.next('conversation.item.retrieved')).item.content[0].transcript as string;
  assert.ok(heard.length > 0 && heard.length < spoken.length, `${heard} is a part of ${spoken}`);
  assert.ok(spoken.startsWith(heard));

  say(client, 'Go on.');
  client.send({ type: 'response.create' });
  const next = await client.next('response.done', 10_000);
  assert.is(
    next.response.usage.input_tokens,
    promptTokensOf([
      { role: 'user', text: 'Tell me about the sea and the ships that sail on it.' },
      { role: 'assistant', text: heard },
      { role: 'user', text: 'Go on.' },
    ]),
  );
  client.close();
});

test('barge-in truncates the interrupted item by itself; the next answer is over the heard part only', async () => {
  const client = await call(slow);
  say(client, 'Tell me a long story.');
  client.send({ type: 'response.create' });
  const first = await client.next('response.created');
  await client.next('response.output_audio.delta', 10_000);
  appendAudio(client, Buffer.concat([await simSpoken('stop please'), silence(800)]));
  const cancelled = await client.next('response.done', 10_000);
  assert.is(cancelled.response.id, first.response.id);
  assert.is(cancelled.response.status_details.reason, 'turn_detected');
  const item = cancelled.response.output[0];
  const produced = Math.round(cancelled.response.usage.svc.audio_out_seconds * 1000);
  const truncatedEvent = await client.next('conversation.item.truncated', 5000);
  assert.is(truncatedEvent.item_id, item.id);
  assert.ok(truncatedEvent.audio_end_ms < produced, 'cut before the end of what was sent');
  client.send({ type: 'conversation.item.retrieve', item_id: item.id });
  const heard = (await client.next('conversation.item.retrieved')).item.content[0].transcript as string;
  assert.ok(item.content[0].transcript.startsWith(heard));
  assert.ok(heard.length < item.content[0].transcript.length);

  const answer = await client.next('response.done', 10_000);
  const context = [{ role: 'user' as const, text: 'Tell me a long story.' }];
  if (heard) context.push({ role: 'assistant' as const, text: heard } as never);
  context.push({ role: 'user', text: 'stop please' });
  assert.is(answer.response.usage.input_tokens, promptTokensOf(context));
  // The client may still send its own truncate at its played position: within what was sent, it is taken.
  client.send({
    type: 'conversation.item.truncate',
    item_id: item.id,
    content_index: 0,
    audio_end_ms: truncatedEvent.audio_end_ms,
  });
  assert.is((await client.next('conversation.item.truncated')).item_id, item.id);
  client.close();
});

test.run();
