import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CallEmitted } from '../actors/realtime/call-events.js';
import { CallOrder } from '../actors/realtime/call-order.js';
import type { CallOutput } from '../actors/realtime/call-output.js';
import { defaultCallSession } from '../actors/realtime/call-session.js';
import { startServer, type TestServer } from './harness.js';
import { appendAudio, connectCall, silence } from './realtime-client.js';
import { simSpoken } from './speech-fixture.js';

const test = suite(
  "realtime call order: one place decides what a client sees when: durable reports after their commit, signals at once, a response's items opened, streamed and closed in order",
);

const usage = { promptTokens: 1, completionTokens: 1, audioOutMs: 0 };
const started: CallEmitted = { type: 'sessionUpdated', callId: 'rtc_1', session: defaultCallSession('pro-1') };
const itemDone: CallEmitted = {
  type: 'itemDone',
  previousItemId: null,
  item: { id: 'item_1', role: 'user', content: [] },
};
const responseStarted: CallEmitted = {
  type: 'responseStarted',
  responseId: 'r',
  itemId: 'item_2',
  modalities: ['text'],
};
const responseDone: CallEmitted = {
  type: 'responseDone',
  responseId: 'r',
  itemId: 'item_2',
  modalities: ['text'],
  status: 'completed',
  cancelReason: null,
  toolCalls: [],
  failure: null,
  text: 'x',
  usage,
};
const stopped: CallEmitted = { type: 'audioCommitted', itemId: 'item_3', previousItemId: 'item_1', audioEndMs: 9 };

// Steps: an event emitted by the machine, or the log committed up to a seq; then what was delivered so far.
const rows: { name: string; steps: (CallEmitted | number)[]; delivered: CallOutput['type'][] }[] = [
  { name: 'signals pass at once', steps: [started, stopped], delivered: ['sessionUpdated', 'audioCommitted'] },
  { name: 'a recorded turn waits for its commit', steps: [started, itemDone], delivered: ['sessionUpdated'] },
  { name: 'and passes once committed', steps: [started, itemDone, 2], delivered: ['sessionUpdated', 'itemDone'] },
  { name: 'what follows a waiting event waits behind it', steps: [itemDone, responseStarted, started], delivered: [] },
  {
    name: 'then all go, in order',
    steps: [itemDone, responseStarted, started, 1],
    delivered: ['itemDone', 'responseStarted', 'sessionUpdated'],
  },
  {
    name: "a new turn's committed audio overtakes what waits",
    steps: [responseDone, responseStarted, stopped],
    delivered: ['audioCommitted'],
  },
  {
    name: 'and the rest follows in order',
    steps: [responseDone, responseStarted, stopped, 1],
    delivered: ['audioCommitted', 'outputItemOpened', 'outputItemClosed', 'responseDone', 'responseStarted'],
  },
  {
    name: 'a commit covering several durable events releases them all',
    steps: [responseDone, started, itemDone, 3],
    delivered: ['outputItemOpened', 'outputItemClosed', 'responseDone', 'sessionUpdated', 'itemDone'],
  },
  {
    name: 'a partial commit releases up to the next waiting one',
    steps: [responseDone, started, itemDone, 2],
    delivered: ['outputItemOpened', 'outputItemClosed', 'responseDone', 'sessionUpdated'],
  },
  { name: 'an event already committed when emitted passes', steps: [5, itemDone], delivered: ['itemDone'] },
];

test('delivery order and timing, row by row', () => {
  for (const row of rows) {
    const delivered: CallOutput['type'][] = [];
    const order = new CallOrder((event) => delivered.push(event.type));
    for (const step of row.steps) {
      if (typeof step === 'number') order.committed(step);
      else order.emitted(step);
    }
    assert.equal(delivered, row.delivered, row.name);
  }
});

test("a response's pieces: those before its opening wait for it; items open on their first piece and close in output order", () => {
  const shown: CallOutput[] = [];
  const order = new CallOrder((event) => shown.push(event));
  const call = { itemId: 'item_fc', callId: 'call_1', name: 'get_weather' };
  const audio = { ...responseStarted, modalities: ['audio' as const] };
  // A function call's first fragment arrives before the response's opening was shown.
  order.stream({ type: 'responseToolCall', responseId: 'r', call, delta: '{"city":' });
  assert.equal(shown, [], 'held until response.created');
  order.emitted(audio);
  order.stream({ type: 'responseToolCall', responseId: 'r', call, delta: '"Paris"}' });
  order.stream({ type: 'responseText', responseId: 'r', itemId: 'item_2', delta: 'Checking.' });
  order.stream({ type: 'responseAudio', responseId: 'r', itemId: 'item_2', audio: Buffer.alloc(4) });
  order.stream({ type: 'speechStarted', itemId: 'item_9', audioStartMs: 10 });
  order.emitted({
    ...responseDone,
    modalities: ['audio'],
    text: 'Checking.',
    toolCalls: [{ ...call, arguments: '{"city":"Paris"}' }],
  });
  assert.is(shown.at(-1)!.type, 'speechStarted', 'the billed report waits for its commit; a signal does not');
  order.committed(2);
  assert.equal(
    shown.map((event) => [event.type, 'outputIndex' in event ? event.outputIndex : null]),
    [
      ['responseStarted', null],
      ['outputItemOpened', 0],
      ['functionArguments', 0],
      ['functionArguments', 0],
      ['outputItemOpened', 1],
      ['responseText', 1],
      ['responseAudio', 1],
      ['speechStarted', null],
      ['outputItemClosed', 0],
      ['outputItemClosed', 1],
      ['responseDone', null],
    ],
  );
  const done = shown.at(-1) as Extract<CallOutput, { type: 'responseDone' }>;
  assert.equal(
    done.output.map((item) => [item.type, item.status]),
    [
      ['function_call', 'completed'],
      ['message', 'completed'],
    ],
  );
  assert.is((done.output[0] as { arguments: string }).arguments, '{"city":"Paris"}');
});

test("a cut response: its calls are shown incomplete (not the client's to run), and nothing empty is opened beside them", () => {
  const shown: CallOutput[] = [];
  const order = new CallOrder((event) => shown.push(event));
  const call = { itemId: 'item_fc', callId: 'call_1', name: 'get_weather' };
  order.emitted(responseStarted);
  order.stream({ type: 'responseToolCall', responseId: 'r', call, delta: '{"ci' });
  order.emitted({ ...responseDone, status: 'cancelled', cancelReason: 'turn_detected', text: '', toolCalls: [] });
  order.committed(2);
  const done = shown.at(-1) as Extract<CallOutput, { type: 'responseDone' }>;
  assert.equal(
    done.output.map((item) => [item.type, item.status]),
    [['function_call', 'incomplete']],
  );
});

let server: TestServer | null = null;
test.after(async () => {
  await server?.close();
});

/** The wire event types, runs of one type shown once (deltas come in any number). */
const runs = (types: string[]) => types.filter((type, i) => type !== types[i - 1]);

test('a full voice turn with a tool call, over the socket: the events in the order OpenAI documents', async () => {
  server = await startServer();
  const account = await server.account();
  const client = await connectCall(server, account.token);
  await client.next('session.created');
  const tool = { type: 'function', name: 'get_weather', parameters: { type: 'object' } };
  client.send({ type: 'session.update', session: { tools: [tool] } });
  await client.next('session.updated');
  const from = client.events.length;
  appendAudio(
    client,
    Buffer.concat([silence(300), await simSpoken('Please use get_weather for Paris.'), silence(900)]),
  );
  const call = (await client.next('response.done', 10_000)).response.output[0];
  assert.is(call.type, 'function_call');
  const turn = client.events.length;
  client.send({
    type: 'conversation.item.create',
    item: { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"clear"}' },
  });
  await client.next('conversation.item.done');
  client.send({ type: 'response.create' });
  await client.next('response.done', 10_000);
  assert.equal(
    runs(client.events.slice(from, turn).map((event) => event.type)),
    [
      'input_audio_buffer.speech_started',
      'input_audio_buffer.speech_stopped',
      'input_audio_buffer.committed',
      'conversation.item.added',
      'conversation.item.input_audio_transcription.delta',
      'conversation.item.input_audio_transcription.completed',
      'conversation.item.done',
      'response.created',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.done',
    ],
    'the turn and its tool call',
  );
  // Transcript and audio deltas alternate sentence by sentence: only their place is checked.
  const answer = runs(
    client.events
      .slice(turn)
      .map((event) => event.type)
      .filter((type) => type !== 'response.output_audio.delta' && type !== 'response.output_audio_transcript.delta'),
  );
  assert.equal(
    answer,
    [
      'conversation.item.added',
      'conversation.item.done',
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_audio.done',
      'response.output_audio_transcript.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.done',
    ],
    'the output sent back, and the spoken answer',
  );
  const types = client.events.slice(turn).map((event) => event.type);
  const firstDelta = types.indexOf('response.output_audio_transcript.delta');
  assert.ok(firstDelta > types.indexOf('response.content_part.added'), 'deltas after the part opened');
  assert.ok(types.lastIndexOf('response.output_audio.delta') < types.indexOf('response.output_audio.done'));
  client.close();
});

test.run();
