import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, fromPromise } from 'xstate';
import { realtimeCallMachine, type CallInput, type SettleCallInput } from '../actors/realtime-call-machine.js';
import { defaultSession } from '../protocols/realtime.js';

const test = suite('realtime call machine: turns, responses, hang-up, end_ready, close and settle');

const input: CallInput = { id: 'rtc_t', accountId: 'acct_t', tokenId: 'tok_t', session: defaultSession('pro-1'), holdMicros: 500_000, endGraceMs: 3000, at: 1000 };
const usage = { promptTokens: 30, completionTokens: 20, audioOutMs: 1500 };
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function start(options: { settle?: (input: SettleCallInput) => Promise<{ micros: number; entryId: string | null }> } = {}) {
  const settled: SettleCallInput[] = [];
  const machine = realtimeCallMachine.provide({
    actors: {
      settle: fromPromise<{ micros: number; entryId: string | null }, SettleCallInput>(({ input }) => {
        settled.push(input);
        return options.settle ? options.settle(input) : Promise.resolve({ micros: 1234, entryId: 'le_1' });
      }),
    },
  });
  const emitted: { type: string; [key: string]: unknown }[] = [];
  const actor = createActor(machine, { input });
  actor.on('*', (event) => emitted.push(event));
  return { actor: actor.start(), settled, emitted };
}

test('a call connects, takes turns, answers and accumulates usage', () => {
  const { actor, emitted } = start();
  assert.is(actor.getSnapshot().value, 'connecting');
  actor.send({ type: 'OPEN', at: 1100 });
  assert.is(actor.getSnapshot().value, 'active');
  actor.send({ type: 'ITEM', item: { id: 'item_1', role: 'user', text: 'hello', audioMs: 1200 }, at: 1200 });
  actor.send({ type: 'RESPONSE_START', responseId: 'resp_1', at: 1300 });
  assert.is(actor.getSnapshot().value, 'responding');
  actor.send({ type: 'RESPONSE_END', responseId: 'resp_other', item: null, usage, at: 1350 });
  assert.is(actor.getSnapshot().value, 'responding', 'the end of another response is ignored');
  actor.send({ type: 'RESPONSE_END', responseId: 'resp_1', item: { id: 'item_2', role: 'assistant', text: 'hi there', audioMs: 1500 }, usage, at: 1400 });
  const snapshot = actor.getSnapshot();
  assert.is(snapshot.value, 'active');
  assert.equal(snapshot.context.usage, { audioInMs: 1200, audioOutMs: 1500, promptTokens: 30, completionTokens: 20 });
  assert.equal(snapshot.context.items.map((item) => item.text), ['hello', 'hi there']);
  assert.equal(emitted.map((e) => e.type), ['active', 'item', 'response_started', 'response_done', 'active']);
});

test('hang-up: ending, the goodbye response, end_ready with a grace deadline, end_ack closes and settles once', async () => {
  const { actor, settled, emitted } = start();
  actor.send({ type: 'OPEN', at: 1100 });
  actor.send({ type: 'HANG_UP', reason: 'farewell', language: 'fr', at: 2000 });
  assert.is(actor.getSnapshot().value, 'ending');
  assert.equal(actor.getSnapshot().context.ending, { reason: 'farewell', language: 'fr' });
  actor.send({ type: 'RESPONSE_START', responseId: 'resp_bye', at: 2010 });
  actor.send({ type: 'RESPONSE_END', responseId: 'resp_bye', item: { id: 'item_b', role: 'assistant', text: 'Au revoir !', audioMs: 900 }, usage: { promptTokens: 0, completionTokens: 0, audioOutMs: 900 }, at: 2500 });
  assert.is(actor.getSnapshot().value, 'end_ready');
  assert.is(actor.getSnapshot().context.deadlines.endGrace, 2500 + 3000);
  actor.send({ type: 'END_ACK', at: 2600 });
  await settle();
  const snapshot = actor.getSnapshot();
  assert.is(snapshot.value, 'closed');
  assert.is(snapshot.status, 'done');
  assert.is(snapshot.context.closeReason, 'end_ack');
  assert.equal(snapshot.context.charge, { micros: 1234, entryId: 'le_1' });
  assert.is(settled.length, 1);
  assert.equal(settled[0], { callId: 'rtc_t', accountId: 'acct_t', tokenId: 'tok_t', usage: { audioInMs: 0, audioOutMs: 900, promptTokens: 0, completionTokens: 0 }, capMicros: 500_000 });
  assert.equal(emitted.at(-1), { type: 'closed', reason: 'end_ack', price_micros: 1234 });
});

test('the grace timer closes an end_ready call; other timers do not', async () => {
  const { actor } = start();
  actor.send({ type: 'OPEN', at: 1100 });
  actor.send({ type: 'HANG_UP', reason: 'hang_up_request', language: 'en', at: 2000 });
  actor.send({ type: 'RESPONSE_START', responseId: 'r', at: 2000 });
  actor.send({ type: 'RESPONSE_END', responseId: 'r', item: null, usage, at: 2100 });
  actor.send({ type: 'TIMER', name: 'something_else' });
  assert.is(actor.getSnapshot().value, 'end_ready');
  actor.send({ type: 'TIMER', name: 'endGrace' });
  await settle();
  assert.is(actor.getSnapshot().context.closeReason, 'grace');
  assert.is(actor.getSnapshot().value, 'closed');
});

test('transcription path: turns are recorded, HANG_UP and responses are not taken, and it can switch back', () => {
  const { actor } = start();
  actor.send({ type: 'OPEN', at: 1100 });
  actor.send({ type: 'SESSION', session: { ...defaultSession('pro-1'), type: 'transcription' }, at: 1200 });
  assert.is(actor.getSnapshot().value, 'transcribing');
  actor.send({ type: 'ITEM', item: { id: 'item_1', role: 'user', text: 'goodbye', audioMs: 800 }, at: 1300 });
  actor.send({ type: 'HANG_UP', reason: 'farewell', language: 'en', at: 1300 });
  actor.send({ type: 'RESPONSE_START', responseId: 'r', at: 1300 });
  assert.is(actor.getSnapshot().value, 'transcribing');
  assert.is(actor.getSnapshot().context.usage.audioInMs, 800);
  actor.send({ type: 'SESSION', session: defaultSession('pro-1'), at: 1400 });
  assert.is(actor.getSnapshot().value, 'active');
});

test('a disconnect from any open state closes and settles; a second one changes nothing', async () => {
  for (const path of [[], ['RESPONSE_START'], ['HANG_UP']]) {
    const { actor, settled } = start();
    actor.send({ type: 'OPEN', at: 1100 });
    if (path[0] === 'RESPONSE_START') actor.send({ type: 'RESPONSE_START', responseId: 'r', at: 1200 });
    if (path[0] === 'HANG_UP') actor.send({ type: 'HANG_UP', reason: 'farewell', language: null, at: 1200 });
    actor.send({ type: 'DISCONNECT', at: 1300 });
    actor.send({ type: 'DISCONNECT', at: 1301 });
    await settle();
    assert.is(actor.getSnapshot().value, 'closed', path.join());
    assert.is(actor.getSnapshot().context.closeReason, 'disconnected');
    assert.is(settled.length, 1);
  }
});

test('running out of money closes with insufficient_balance; HOLD grows the cap the settlement uses', async () => {
  const { actor, settled } = start();
  actor.send({ type: 'OPEN', at: 1100 });
  actor.send({ type: 'HOLD', holdMicros: 1_500_000 });
  actor.send({ type: 'EXHAUSTED', at: 1200 });
  await settle();
  assert.is(actor.getSnapshot().context.closeReason, 'insufficient_balance');
  assert.is(settled[0]!.capMicros, 1_500_000);
});

test('a failed settlement still closes the call, saying so', async () => {
  const { actor, emitted } = start({ settle: () => Promise.reject(new Error('disk full')) });
  actor.send({ type: 'OPEN', at: 1100 });
  actor.send({ type: 'DISCONNECT', at: 1200 });
  await settle();
  assert.is(actor.getSnapshot().value, 'closed');
  assert.is(actor.getSnapshot().context.charge, null);
  assert.ok(emitted.some((e) => e.type === 'settle_failed' && e.message === 'disk full'));
});

test('a persisted end_ready call restores with its grace deadline and closes on the timer', async () => {
  const { actor } = start();
  actor.send({ type: 'OPEN', at: 1100 });
  actor.send({ type: 'HANG_UP', reason: 'farewell', language: 'de', at: 2000 });
  actor.send({ type: 'RESPONSE_START', responseId: 'r', at: 2000 });
  actor.send({ type: 'RESPONSE_END', responseId: 'r', item: null, usage, at: 2100 });
  const persisted = actor.getPersistedSnapshot();
  actor.stop();
  const machine = realtimeCallMachine.provide({ actors: { settle: fromPromise<{ micros: number; entryId: string | null }, SettleCallInput>(() => Promise.resolve({ micros: 1, entryId: null })) } });
  const restored = createActor(machine, { snapshot: persisted, input }).start();
  assert.is(restored.getSnapshot().value, 'end_ready');
  assert.is(restored.getSnapshot().context.deadlines.endGrace, 5100);
  restored.send({ type: 'TIMER', name: 'endGrace' });
  await settle();
  assert.is(restored.getSnapshot().value, 'closed');
});

test.run();
