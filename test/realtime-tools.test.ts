import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeSimVoice } from '../backends/sim/sim-voice-codec.js';
import { startServer, type TestServer } from './harness.js';
import { appendAudio, connectCall, silence, type RealtimeClient, type ServerEvent } from './realtime-client.js';
import { simSpoken } from './speech-fixture.js';

// An agent-style client over the raw protocol: tools in the session, the model's function call
// streamed as an output item, the client's output sent back, and the answer spoken after it.

let server: TestServer;
const test = suite('realtime function calling: tools, function_call items, outputs, spoken answers');

const WEATHER = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

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

/** The events of one response, in order. */
const ofResponse = (client: RealtimeClient, responseId: string): ServerEvent[] =>
  client.events.filter((e) => e.response_id === responseId || e.response?.id === responseId);

function spokenText(client: RealtimeClient, responseId: string): string | null {
  const pcm = Buffer.concat(
    client.events
      .filter((e) => e.type === 'response.output_audio.delta' && e.response_id === responseId)
      .map((e) => Buffer.from(e.delta as string, 'base64')),
  );
  return decodeSimVoice(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2));
}

test('a voice turn naming a tool calls it; the output sent back is answered in speech', async () => {
  const client = await call();
  client.send({ type: 'session.update', session: { tools: [WEATHER], tool_choice: 'auto' } });
  const updated = (await client.next('session.updated')).session;
  assert.equal(updated.tools, [WEATHER]);
  assert.is(updated.tool_choice, 'auto');

  appendAudio(
    client,
    Buffer.concat([silence(300), await simSpoken('Please use get_weather for Paris today.'), silence(900)]),
  );
  const transcript = await client.next('conversation.item.input_audio_transcription.completed', 10_000);
  assert.is(transcript.transcript, 'Please use get_weather for Paris today.');
  assert.is((await client.next('conversation.item.added')).item.role, 'user');
  const created = await client.next('response.created', 10_000);
  const done = await client.next('response.done', 10_000);
  assert.is(done.response.status, 'completed');
  // Argument fragments come as one or more deltas: runs are shown once.
  const events = ofResponse(client, created.response.id)
    .map((e) => e.type)
    .filter((type, i, all) => type !== all[i - 1]);
  assert.equal(events, [
    'response.created',
    'response.output_item.added',
    'response.function_call_arguments.delta',
    'response.function_call_arguments.done',
    'response.output_item.done',
    'response.done',
  ]);
  assert.is(done.response.output.length, 1, 'no empty message beside the call');
  const fc = done.response.output[0];
  assert.is(fc.type, 'function_call');
  assert.is(fc.status, 'completed');
  assert.is(fc.name, 'get_weather');
  assert.equal(JSON.parse(fc.arguments), { city: 'Paris' });
  const argsDone = await client.next('response.function_call_arguments.done');
  assert.is(argsDone.call_id, fc.call_id);
  assert.is(argsDone.item_id, fc.id);
  const deltas = client.events
    .filter((e) => e.type === 'response.function_call_arguments.delta' && e.item_id === fc.id)
    .map((e) => e.delta as string)
    .join('');
  assert.is(deltas, fc.arguments);

  client.send({
    type: 'conversation.item.create',
    event_id: 'evt_out',
    item: { type: 'function_call_output', call_id: fc.call_id, output: '{"sky":"sunny","temp_c":21}' },
  });
  const added = await client.next('conversation.item.added');
  assert.is(added.item.type, 'function_call_output');
  assert.is(added.item.call_id, fc.call_id);
  assert.is(added.client_event_id, 'evt_out');
  client.send({ type: 'response.create' });
  const answer = await client.next('response.created', 10_000);
  const answered = await client.next('response.done', 10_000);
  assert.is(answered.response.id, answer.response.id);
  assert.is(answered.response.status, 'completed');
  assert.is(answered.response.output[0].type, 'message');
  const heard = answered.response.output[0].content[0].transcript as string;
  assert.is(heard, 'get_weather returned {"sky":"sunny","temp_c":21}.');
  assert.is(spokenText(client, answer.response.id), heard, 'the audio says the transcript');
  client.close();
});

test('per-response tools and tool_choice: a forced function in a text response; none calls nothing', async () => {
  const client = await call();
  client.send({ type: 'session.update', session: { output_modalities: ['text'] } });
  await client.next('session.updated');
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'How is it in Rome?' }] },
  });
  client.send({
    type: 'response.create',
    response: { tools: [WEATHER], tool_choice: { type: 'function', name: 'get_weather' } },
  });
  const forced = await client.next('response.done');
  assert.equal(
    forced.response.output.map((item: { type: string }) => item.type),
    ['function_call'],
  );
  assert.equal(JSON.parse(forced.response.output[0].arguments), { city: 'Rome' });

  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Use get_weather for Oslo.' }] },
  });
  client.send({ type: 'response.create', response: { tools: [WEATHER], tool_choice: 'none' } });
  const none = await client.next('response.done');
  assert.equal(
    none.response.output.map((item: { type: string }) => item.type),
    ['message'],
  );
  client.close();
});

test('a client replays a function call and its output as history; the answer quotes the output', async () => {
  const client = await call();
  client.send({ type: 'session.update', session: { output_modalities: ['text'], tools: [WEATHER] } });
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Lima?' }] },
  });
  client.send({
    type: 'conversation.item.create',
    item: { type: 'function_call', call_id: 'call_a', name: 'get_weather', arguments: '{"city":"Lima"}' },
  });
  client.send({
    type: 'conversation.item.create',
    item: { type: 'function_call_output', call_id: 'call_a', output: 'fog' },
  });
  client.send({ type: 'response.create' });
  const done = await client.next('response.done');
  assert.is(done.response.output[0].content[0].text, 'get_weather returned fog.');
  client.close();
});

test('bad tools and items are refused with invalid_value naming the field; the call stays up', async () => {
  const client = await call();
  client.send({
    type: 'session.update',
    event_id: 'e1',
    session: { tools: [{ type: 'mcp', server_label: 'x', server_url: 'https://x' }] },
  });
  const mcp = await client.next('error');
  assert.is(mcp.error.code, 'invalid_value');
  assert.is(mcp.error.param, 'session.tools.0.type');
  client.send({ type: 'session.update', session: { tools: [{ type: 'function', name: 'bad name!' }] } });
  assert.is((await client.next('error')).error.param, 'session.tools.0.name');
  client.send({ type: 'session.update', session: { tool_choice: 'sometimes' } });
  assert.is((await client.next('error')).error.param, 'session.tool_choice');
  client.send({ type: 'conversation.item.create', item: { type: 'function_call_output', output: 'x' } });
  assert.is((await client.next('error')).error.param, 'item.call_id');
  client.send({ type: 'conversation.item.create', item: { type: 'reasoning', summary: [] } });
  assert.is((await client.next('error')).error.param, 'item.type');
  client.send({ type: 'session.update', session: { instructions: 'still here' } });
  assert.is((await client.next('session.updated')).session.instructions, 'still here');
  client.close();
});

test.run();
