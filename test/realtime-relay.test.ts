import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CallEmitted } from '../actors/realtime/call-events.js';
import { CallRelay } from '../actors/realtime/call-relay.js';
import { defaultCallSession } from '../actors/realtime/call-session.js';

const test = suite(
  'realtime relay: signals at once, recorded turns and billed responses once durable, in order but for speech signals',
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
const rows: { name: string; steps: (CallEmitted | number)[]; delivered: CallEmitted['type'][] }[] = [
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
    delivered: ['audioCommitted', 'responseDone', 'responseStarted'],
  },
  {
    name: 'a commit covering several durable events releases them all',
    steps: [responseDone, started, itemDone, 3],
    delivered: ['responseDone', 'sessionUpdated', 'itemDone'],
  },
  {
    name: 'a partial commit releases up to the next waiting one',
    steps: [responseDone, started, itemDone, 2],
    delivered: ['responseDone', 'sessionUpdated'],
  },
  { name: 'an event already committed when emitted passes', steps: [5, itemDone], delivered: ['itemDone'] },
];

test('delivery order and timing, row by row', () => {
  for (const row of rows) {
    const delivered: CallEmitted['type'][] = [];
    const relay = new CallRelay((event) => delivered.push(event.type));
    for (const step of row.steps) {
      if (typeof step === 'number') relay.committed(step);
      else relay.emitted(step);
    }
    assert.equal(delivered, row.delivered, row.name);
  }
});

test.run();
