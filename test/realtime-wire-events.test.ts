import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CallEmitted } from '../actors/realtime/call-events.js';
import { CallOrder } from '../actors/realtime/call-order.js';
import type { CallOutput } from '../actors/realtime/call-output.js';
import { applySessionChange, defaultCallSession } from '../actors/realtime/call-session.js';
import {
  audioDelta,
  closedEvent,
  errorEvent,
  renderEmitted,
  speechStartedEvent,
} from '../http/realtime/server-events.js';
import { AudioDeltaWriter } from '../http/realtime/audio-delta.js';
import { renderResponse } from '../http/realtime/response-events.js';
import { ERROR_CATALOGUE } from '../protocols/errors.js';
import { SERVER_EVENT_TYPES, ServerEventSchema, type UnstampedEvent } from '../protocols/realtime-events.js';
import { startServer } from './harness.js';
import { connectCall } from './realtime-client.js';

const test = suite('realtime wire: every server event the renderers make matches its schema');

const session = defaultCallSession('pro-1');
const usage = { promptTokens: 12, completionTokens: 30, audioOutMs: 1500 };
const user = { id: 'item_1', role: 'user' as const, content: [{ type: 'input_audio' as const, transcript: null }] };
const typed = {
  id: 'item_2',
  role: 'user' as const,
  content: [
    { type: 'input_text' as const, text: 'Hi' },
    { type: 'input_audio' as const, transcript: 'Hi' },
  ],
};

/** One or more samples of every domain event, covering the variants the wire distinguishes. */
const SAMPLES: CallEmitted[] = [
  { type: 'sessionCreated', callId: 'rtc_1', session },
  {
    type: 'sessionUpdated',
    callId: 'rtc_1',
    session: applySessionChange(session, {
      type: 'transcription',
      turnDetection: null,
      transcription: { language: 'en' },
      outputModalities: ['text'],
      tools: [{ name: 'get_weather', description: 'Weather by city', parameters: { type: 'object' } }],
      toolChoice: { name: 'get_weather' },
    }),
  },
  {
    type: 'itemAdded',
    previousItemId: null,
    item: { type: 'function_call', id: 'item_7', callId: 'call_1', name: 'get_weather', arguments: '{}' },
    clientEventId: null,
  },
  {
    type: 'itemDone',
    previousItemId: 'item_7',
    item: { type: 'function_call_output', id: 'item_8', callId: 'call_1', output: '{"temp":21}' },
  },
  { type: 'audioCommitted', itemId: 'item_1', previousItemId: null, audioEndMs: 1600 },
  { type: 'audioCommitted', itemId: 'item_1', previousItemId: 'item_0', audioEndMs: null },
  { type: 'itemAdded', previousItemId: null, item: user, clientEventId: null },
  { type: 'itemAdded', previousItemId: 'item_1', item: typed, clientEventId: 'evt_1' },
  { type: 'itemDone', previousItemId: 'item_1', item: typed },
  { type: 'transcriptionCompleted', itemId: 'item_1', transcript: 'hello', durationSeconds: 1.2 },
  { type: 'transcriptionFailed', itemId: 'item_1', message: 'unreadable audio' },
  { type: 'responseStarted', responseId: 'resp_1', itemId: 'item_3', modalities: ['audio'] },
  { type: 'responseStarted', responseId: 'resp_2', itemId: 'item_4', modalities: ['text'] },
  {
    type: 'responseDone',
    responseId: 'resp_1',
    itemId: 'item_3',
    modalities: ['audio'],
    status: 'completed',
    cancelReason: null,
    failure: null,
    text: 'Paris.',
    toolCalls: [],
    usage,
  },
  {
    type: 'responseDone',
    responseId: 'resp_2',
    itemId: 'item_4',
    modalities: ['text'],
    status: 'cancelled',
    cancelReason: 'turn_detected',
    failure: null,
    text: 'Par',
    toolCalls: [],
    usage,
  },
  {
    type: 'responseDone',
    responseId: 'resp_3',
    itemId: 'item_5',
    modalities: ['text'],
    status: 'failed',
    cancelReason: null,
    failure: 'backend down',
    text: '',
    toolCalls: [],
    usage,
  },
  {
    type: 'rejected',
    code: 'conversation_already_has_active_response',
    message: 'busy',
    param: null,
    clientEventId: 'evt_2',
  },
  { type: 'itemTruncated', itemId: 'item_3', contentIndex: 0, audioEndMs: 700 },
  { type: 'itemDeleted', itemId: 'item_2' },
  {
    type: 'itemRetrieved',
    item: { id: 'item_3', role: 'assistant', content: [{ type: 'output_audio', transcript: 'Par' }] },
  },
  { type: 'ending', reason: 'farewell', language: 'es' },
  { type: 'endReady', graceMs: 3000 },
];

/** A response's events as the call's order puts them and the renderers write them: opening, deltas (text, audio, a function call), closing. */
function responseEvents(): UnstampedEvent[] {
  const shown: CallOutput[] = [];
  const order = new CallOrder((event) => shown.push(event));
  for (const event of SAMPLES) {
    if (event.type === 'responseStarted') order.emitted(event);
    if (event.type === 'responseStarted' && event.responseId === 'resp_1') {
      order.stream({ type: 'responseText', responseId: 'resp_1', itemId: 'item_3', delta: 'Paris.' });
      order.stream({ type: 'responseAudio', responseId: 'resp_1', itemId: 'item_3', audio: Buffer.alloc(2400) });
    }
    if (event.type === 'responseStarted' && event.responseId === 'resp_2')
      order.stream({ type: 'responseText', responseId: 'resp_2', itemId: 'item_4', delta: 'Par' });
    if (event.type === 'responseDone') order.emitted(event);
  }
  const call = { itemId: 'item_9', callId: 'call_9', name: 'get_weather' };
  order.emitted({ type: 'responseStarted', responseId: 'resp_9', itemId: 'item_6', modalities: ['audio'] });
  order.stream({ type: 'responseToolCall', responseId: 'resp_9', call, delta: '{"city":' });
  order.stream({ type: 'responseToolCall', responseId: 'resp_9', call, delta: '"Paris"}' });
  order.emitted({
    type: 'responseDone',
    responseId: 'resp_9',
    itemId: 'item_6',
    modalities: ['audio'],
    status: 'completed',
    cancelReason: null,
    failure: null,
    text: '',
    toolCalls: [{ ...call, arguments: '{"city":"Paris"}' }],
    usage,
  });
  order.committed(1_000);
  return shown.flatMap((event): UnstampedEvent[] => {
    switch (event.type) {
      case 'responseAudio':
        return [audioDelta(event, null), audioDelta(event, 1_790_000_000_000.5)];
      case 'responseStarted':
      case 'outputItemOpened':
      case 'responseText':
      case 'functionArguments':
      case 'outputItemClosed':
      case 'responseDone':
        return renderResponse(event);
      default:
        return [];
    }
  });
}

function rendered(): UnstampedEvent[] {
  return [
    ...SAMPLES.flatMap((event) => renderEmitted(event)),
    ...responseEvents(),
    { type: 'input_audio_buffer.cleared' },
    speechStartedEvent('item_1', 400),
    errorEvent('invalid_value', 'Invalid session.update at session.audio', {
      param: 'session.audio',
      eventId: 'evt_3',
    }),
    closedEvent(
      {
        reason: 'end_ack',
        usage: { audioInMs: 2000, audioOutMs: 1500, promptTokens: 12, completionTokens: 30 },
        priceMicros: 1234,
      },
      2,
    ),
  ];
}

test('a sample of every server event type is rendered, and each matches its schema', () => {
  const events = rendered();
  for (const event of events) {
    const result = ServerEventSchema.safeParse({ event_id: 'event_x', ...event });
    assert.ok(result.success, `${event.type}: ${result.success ? '' : JSON.stringify(result.error.issues)}`);
  }
  const covered = new Set(events.map((event) => event.type));
  assert.equal(
    SERVER_EVENT_TYPES.filter((type) => !covered.has(type)),
    [],
    'every type has a sample',
  );
});

test('a response that only calls a function shows no message item; its call opens, streams and closes in order', () => {
  const out = responseEvents();
  const of9 = out.filter((event) => 'response_id' in event && event.response_id === 'resp_9');
  assert.equal(
    of9.map((event) => event.type),
    [
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
    ],
  );
  const done = out.findLast((event) => event.type === 'response.done') as UnstampedEvent<'response.done'>;
  assert.equal(
    done.response.output.map((item) => item.type),
    ['function_call'],
  );
  assert.equal(done.response.output[0], {
    id: 'item_9',
    object: 'realtime.item',
    type: 'function_call',
    status: 'completed',
    call_id: 'call_9',
    name: 'get_weather',
    arguments: '{"city":"Paris"}',
  });
});

test("an output audio frame's wire bytes are the JSON the serializer writes, whichever item it belongs to", () => {
  const frame = {
    responseId: 'resp_9',
    itemId: 'item_6',
    outputIndex: 1,
    audio: Buffer.from([0, 1, 2, 250, 251, 255, 7]),
  };
  const writer = new AudioDeltaWriter();
  const frames = [frame, { ...frame, audio: Buffer.alloc(2400, 7) }, { ...frame, itemId: 'item_"7"', outputIndex: 2 }];
  for (const each of frames) {
    for (const svcTs of [null, 1_790_000_000_000.5, 12]) {
      const text = writer.render(each, svcTs, 'event_abc').toString('utf8');
      assert.is(text, JSON.stringify({ event_id: 'event_abc', ...audioDelta(each, svcTs) }));
      assert.ok(ServerEventSchema.safeParse(JSON.parse(text)).success);
    }
  }
  assert.match(writer.render(frame, null).toString('utf8'), /^\{"event_id":"event_[0-9A-Za-z]{20}",/);
});

test('error events take their type from the error catalogue', () => {
  for (const code of ['insufficient_balance', 'upstream_unavailable', 'call_ending', 'invalid_event'] as const) {
    assert.is(errorEvent(code, 'x').error.type, ERROR_CATALOGUE[code].type);
  }
  assert.is(errorEvent('insufficient_balance', 'x').error.type, 'billing_error');
});

test('bookkeeping events (hold raised, closing, settle failed) stay off the wire', () => {
  assert.equal(renderEmitted({ type: 'holdRaised', holdMicros: 5 }), []);
  assert.equal(renderEmitted({ type: 'closing', reason: 'grace' }), []);
  assert.equal(renderEmitted({ type: 'settleFailed', message: 'x' }), []);
});

test('a live call: every event received over the socket matches its schema', async () => {
  const server = await startServer();
  try {
    const account = await server.account();
    const client = await connectCall(server, account.token);
    client.send({ type: 'session.update', session: { output_modalities: ['text'] } });
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] },
    });
    client.send({ type: 'response.create' });
    await client.next('response.done');
    client.send({ type: 'response.cancel' });
    await client.next('error');
    client.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks, goodbye!' }] },
    });
    await client.next('svc.realtime.end_ready');
    client.send({ type: 'svc.realtime.end_ack' });
    await client.next('svc.realtime.closed');
    await client.closed;
    for (const event of client.events) {
      const result = ServerEventSchema.safeParse(event);
      assert.ok(result.success, `${event.type}: ${result.success ? '' : JSON.stringify(result.error.issues)}`);
    }
    assert.ok(client.events.length > 15);
  } finally {
    await server.close();
  }
});

test.run();
