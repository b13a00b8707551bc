import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { initialTransition, transition } from 'xstate';
import { CONTEXT_ITEMS, contextItems, conversationMessages } from '../actors/realtime/call-conversation.js';
import type { CallEvent, CallInput } from '../actors/realtime/call-context.js';
import type { CallEmitted, CallItem } from '../actors/realtime/call-events.js';
import { realtimeCallMachine, type CallSnapshot } from '../actors/realtime/call-machine.js';
import { defaultCallSession } from '../actors/realtime/call-session.js';
import { startServer } from './harness.js';
import { connectCall } from './realtime-client.js';

const test = suite(
  "realtime items in their place: previous_item_id inserts where OpenAI does, and the model's context never splits a call from its output",
);

const input: CallInput = {
  id: 'rtc_p',
  accountId: 'acct_p',
  tokenId: null,
  session: defaultCallSession('pro-1'),
  holdMicros: 1_000_000,
  endGraceMs: 3000,
  idSeed: 'abcdefghijklmn',
  at: 1000,
};

const say = (
  id: string,
  text: string,
  previousItemId: string | null = null,
  clientEventId = `evt_${id}`,
): CallEvent => ({
  type: 'ITEM_CREATE',
  item: { id, role: 'user', content: [{ type: 'input_text', text }] },
  previousItemId,
  clientEventId,
  at: 2000,
});

/** Plays `steps` with XState's pure transitions; the final snapshot and every event emitted. */
function play(steps: CallEvent[]): { snapshot: CallSnapshot; emitted: CallEmitted[] } {
  let [snapshot] = initialTransition(realtimeCallMachine, input);
  const emitted: CallEmitted[] = [];
  for (const step of [{ type: 'OPEN', at: 1500 } as CallEvent, ...steps]) {
    const [next, actions] = transition(realtimeCallMachine, snapshot, step);
    snapshot = next;
    for (const action of actions as readonly { type: string; params?: unknown }[])
      if (action.type === 'xstate.emit') emitted.push((action.params as { event: CallEmitted }).event);
  }
  return { snapshot, emitted };
}

const ids = (snapshot: CallSnapshot) => snapshot.context.items.map((item) => item.id);

test('previous_item_id puts the item after that one; root puts it first; the end stays where it was', () => {
  const { snapshot, emitted } = play([
    say('a', 'One.'),
    say('b', 'Two.'),
    say('c', 'Between one and two.', 'a'),
    say('r', 'Before everything.', 'root'),
    say('d', 'Last.'),
  ]);
  assert.equal(ids(snapshot), ['r', 'a', 'c', 'b', 'd']);
  const added = emitted.filter((event) => event.type === 'itemAdded');
  assert.equal(
    added.map((event) => [event.item.id, event.previousItemId]),
    [
      ['a', null],
      ['b', 'a'],
      ['c', 'a'],
      ['r', null],
      ['d', 'b'],
    ],
    'each announced after the item it follows; a mid insert does not move the end',
  );
  assert.equal(
    conversationMessages('', snapshot.context.items).map((message) => message.content),
    ['Before everything.', 'One.', 'Between one and two.', 'Two.', 'Last.'],
    'the model sees them in that order',
  );
});

test('an unknown previous_item_id is refused (item_not_found, param previous_item_id) and nothing is added', () => {
  const { snapshot, emitted } = play([say('a', 'One.'), say('x', 'Lost.', 'item_nope', 'evt_lost')]);
  assert.equal(ids(snapshot), ['a']);
  const refused = emitted.at(-1) as Extract<CallEmitted, { type: 'rejected' }>;
  assert.is(refused.type, 'rejected');
  assert.is(refused.code, 'item_not_found');
  assert.is(refused.param, 'previous_item_id');
  assert.is(refused.clientEventId, 'evt_lost');
  assert.is(snapshot.context.lastItemId, 'a');
  assert.is((snapshot.value as { live: string }).live, 'idle', 'the call goes on');
});

const message = (id: string): CallItem => ({ id, role: 'user', text: id, audioMs: 0 });
const call = (id: string, callId: string): CallItem => ({
  type: 'function_call',
  id,
  callId,
  name: 'get_weather',
  arguments: '{}',
});
const output = (id: string, callId: string): CallItem => ({ type: 'function_call_output', id, callId, output: '{}' });

test('the context window widens back to a call whose output it holds, also through parallel calls', () => {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => message(`m${i}`));
  // Two parallel calls, then their outputs; the newest CONTEXT_ITEMS start at the second call's output.
  const items = [...filler(5), call('c1', 'k1'), call('c2', 'k2'), output('o1', 'k1'), output('o2', 'k2')];
  items.push(...filler(CONTEXT_ITEMS - 2).map((item) => ({ ...item, id: `n${item.id}` })));
  const window = contextItems(items);
  assert.equal(
    window.slice(0, 4).map((item) => item.id),
    ['c1', 'c2', 'o1', 'o2'],
    'both calls come back with their outputs',
  );
  assert.is(window.length, CONTEXT_ITEMS + 2);
  const messages = conversationMessages('', window);
  assert.equal(messages[0]!.tool_calls?.length, 2, 'one assistant message with both calls');
  assert.equal(
    messages.slice(1, 3).map((m) => m.role),
    ['tool', 'tool'],
  );
});

test('an output whose call is no longer held is left out of the context, the rest kept', () => {
  const items = [output('o1', 'gone'), message('a'), call('c2', 'k2'), output('o2', 'k2')];
  assert.equal(
    contextItems(items).map((item) => item.id),
    ['a', 'c2', 'o2'],
  );
  const small = [message('a'), message('b')];
  assert.equal(contextItems(small), small, 'a short conversation is whole');
});

test('over the socket: previous_item_id is echoed on the added item; an unknown one is an error event', async () => {
  const server = await startServer();
  try {
    const account = await server.account();
    const client = await connectCall(server, account.token);
    await client.next('session.created');
    const create = (text: string, previous?: string, eventId?: string) =>
      client.send({
        type: 'conversation.item.create',
        ...(eventId && { event_id: eventId }),
        ...(previous !== undefined && { previous_item_id: previous }),
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
      });
    create('First.');
    const first = (await client.next('conversation.item.added')).item.id as string;
    create('Second.');
    await client.next('conversation.item.added');
    create('Between.', first);
    const between = await client.next('conversation.item.added');
    assert.is(between.previous_item_id, first);
    create('Nowhere.', 'item_unknown', 'evt_x');
    const error = await client.next('error');
    assert.is(error.error.code, 'item_not_found');
    assert.is(error.error.param, 'previous_item_id');
    assert.is(error.error.event_id, 'evt_x');
    client.close();
  } finally {
    await server.close();
  }
});

test.run();
