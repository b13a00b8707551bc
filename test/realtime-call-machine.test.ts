import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  createActor,
  fromCallback,
  fromPromise,
  initialTransition,
  transition,
  waitFor,
  type AnyEventObject,
  type Snapshot,
} from 'xstate';
import type {
  CallContext,
  CallEvent,
  CallInput,
  RespondInput,
  SettleCallInput,
  TopUpInput,
  TranscribeInput,
  TranscriptionResult,
} from '../actors/realtime/call-context.js';
import type { CallEmitted, CallItem } from '../actors/realtime/call-events.js';
import { realtimeCallMachine, type CallSnapshot } from '../actors/realtime/call-machine.js';
import { defaultCallSession } from '../actors/realtime/call-session.js';
import { upgradeCallSnapshot } from '../actors/realtime/call-snapshot-upgrade.js';
import { realtimePriceMicros } from '../protocols/pricing.js';
import { SimulatedClock } from '../runtime/clock.js';
import { ActorHost } from '../runtime/host/actor-host.js';
import { createLogger } from '../runtime/logger.js';
import { MemoryStore } from '../runtime/store/memory-store.js';

const test = suite(
  'realtime call machine: every decision of a call, step by step (pure transitions, stubbed effects, simulated clock)',
);

const input: CallInput = {
  id: 'rtc_t',
  accountId: 'acct_t',
  tokenId: 'tok_t',
  session: defaultCallSession('pro-1'),
  holdMicros: 1_000_000,
  endGraceMs: 3000,
  idSeed: 'abcdefghijklmn',
  at: 1000,
};

// ---- Pure transitions: events in, next snapshot and emitted domain events out, no effect runs. ----

type Step = CallEvent | AnyEventObject;
const done = (id: 'transcribe' | 'topUp' | 'settle', output: unknown): Step => ({
  type: `xstate.done.actor.${id}`,
  output,
});
const failed = (id: 'transcribe' | 'topUp' | 'settle', error: unknown): Step => ({
  type: `xstate.error.actor.${id}`,
  error,
});
const at = 2000;
const open: Step = { type: 'OPEN', at };
const say = (text: string, role: 'user' | 'assistant' | 'system' = 'user'): Step => ({
  type: 'ITEM_CREATE',
  item: { id: null, role, content: [{ type: 'input_text', text }] },
  clientEventId: 'evt_item',
  at,
});
const respond: Step = {
  type: 'RESPONSE_CREATE',
  request: { outputModalities: ['text'], instructions: null, maxOutputTokens: 20, metadata: null },
  clientEventId: 'evt_resp',
  at,
};
const finished = (
  responseId: string,
  status: 'completed' | 'cancelled' | 'failed' = 'completed',
  text = 'Paris.',
): Step => ({
  type: 'RESPONSE_FINISHED',
  responseId,
  status,
  text,
  toolCalls: [],
  usage: { promptTokens: 12, completionTokens: 3, audioOutMs: 0 },
  failure: status === 'failed' ? 'backend down' : null,
  at: at + 500,
});

interface Played {
  snapshot: CallSnapshot;
  /** Domain events emitted by the last step. */
  emitted: CallEmitted[];
  /** Every domain event emitted, in order. */
  all: CallEmitted[];
  /** Actions of the last step other than emits (effects started, messages to children). */
  actions: string[];
}

function emittedOf(actions: readonly { type: string; params?: unknown }[]): CallEmitted[] {
  return actions
    .filter((action) => action.type === 'xstate.emit')
    .map((action) => (action.params as { event: CallEmitted }).event);
}

/** Plays `steps` from a fresh call with XState's pure `transition()`. */
function play(steps: Step[], from: CallInput = input): Played {
  let [snapshot, actions] = initialTransition(realtimeCallMachine, from);
  const all: CallEmitted[] = [];
  let emitted: CallEmitted[] = [];
  for (const step of steps) {
    [snapshot, actions] = transition(realtimeCallMachine, snapshot, step as CallEvent);
    emitted = emittedOf(actions);
    all.push(...emitted);
  }
  return {
    snapshot,
    emitted,
    all,
    actions: actions.map((action) => action.type as string).filter((type) => type !== 'xstate.emit'),
  };
}

const types = (events: readonly CallEmitted[]) => events.map((event) => event.type);
/** The job state of a live call (`idle`, `transcribing`, `streaming`, …). */
const turns = (snapshot: CallSnapshot) => (snapshot.value as { live?: unknown }).live;
/** Where the call is in ending: open, ending (the goodbye is said), endReady (waiting for the acknowledgement). */
/** An item's text (a message's), or '' for a function call or output. */
const textOf = (item: CallItem): string => ('text' in item ? item.text : '');
const phase = (snapshot: CallSnapshot) =>
  snapshot.context.ending === null ? 'open' : snapshot.context.ending.ready ? 'endReady' : 'ending';
const responseId = (snapshot: CallSnapshot) => snapshot.context.response!.id;

test('OPEN announces the session; a typed item is recorded and announced at once', () => {
  const { snapshot, all } = play([open, say('What is the capital of France?')]);
  assert.equal(types(all), ['sessionCreated', 'itemAdded', 'itemDone']);
  const added = all[1] as Extract<CallEmitted, { type: 'itemAdded' }>;
  assert.equal('content' in added.item && added.item.content, [
    { type: 'input_text', text: 'What is the capital of France?' },
  ]);
  assert.is(added.clientEventId, 'evt_item');
  assert.is(added.previousItemId, null);
  assert.equal(
    snapshot.context.items.map((item) => textOf(item)),
    ['What is the capital of France?'],
  );
  assert.is(turns(snapshot), 'idle');
});

test('response.create: planned at its worst case, started (responseStarted), finished with its usage', () => {
  const started = play([open, say('Hi'), respond]);
  assert.equal(turns(started.snapshot), 'streaming');
  assert.equal(types(started.emitted), ['responseStarted']);
  assert.ok(started.actions.includes('xstate.spawnChild'), 'the respond effect is started');
  const response = started.snapshot.context.response!;
  assert.equal(response.modalities, ['text']);
  assert.is(response.maxTokens, 20);
  assert.ok(
    response.worstMicros >=
      realtimePriceMicros({ audioInMs: 0, audioOutMs: 0, promptTokens: response.promptTokens, completionTokens: 20 }),
  );

  const ended = play([open, say('Hi'), respond, finished(response.id)]);
  assert.equal(types(ended.emitted), ['responseDone']);
  assert.is(turns(ended.snapshot), 'idle');
  assert.equal(ended.snapshot.context.usage, { audioInMs: 0, audioOutMs: 0, promptTokens: 12, completionTokens: 3 });
  assert.equal(
    ended.snapshot.context.items.map((item) => `${'role' in item ? item.role : item.type}:${textOf(item)}`),
    ['user:Hi', 'assistant:Paris.'],
  );
  assert.is(ended.snapshot.context.response, null);
});

// state (steps to reach it) × client event → the refusal the machine emits, state unchanged.
const refusals: { name: string; steps: Step[]; event: Step; code: string; param?: string }[] = [
  {
    name: 'cancel with nothing in flight',
    steps: [open],
    event: { type: 'RESPONSE_CANCEL', responseId: null, clientEventId: 'e', at },
    code: 'response_cancel_not_active',
  },
  {
    name: 'cancel of another response',
    steps: [open, say('Hi'), respond],
    event: { type: 'RESPONSE_CANCEL', responseId: 'resp_other', clientEventId: 'e', at },
    code: 'response_cancel_not_active',
  },
  {
    name: 'end_ack while open',
    steps: [open],
    event: { type: 'END_ACK', clientEventId: 'e', at },
    code: 'end_ack_unexpected',
  },
  {
    name: 'end_ack while the goodbye is said',
    steps: [open, say('Goodbye!')],
    event: { type: 'END_ACK', clientEventId: 'e', at },
    code: 'end_ack_unexpected',
  },
  {
    name: 'a second response.create',
    steps: [open, say('Hi'), respond],
    event: respond,
    code: 'conversation_already_has_active_response',
  },
  { name: 'response.create once ending', steps: [open, say('Goodbye!')], event: respond, code: 'call_ending' },
  {
    name: 'response.create in a transcription session',
    steps: [open, { type: 'SESSION_UPDATE', change: { type: 'transcription' }, clientEventId: null, at }],
    event: respond,
    code: 'transcription_session',
  },
  {
    name: 'session type change during a response',
    steps: [open, say('Hi'), respond],
    event: { type: 'SESSION_UPDATE', change: { type: 'transcription' }, clientEventId: 'e', at },
    code: 'session_type_locked',
    param: 'session.type',
  },
  {
    name: 'an unknown model',
    steps: [open],
    event: { type: 'SESSION_UPDATE', change: { model: 'gpt-realtime' }, clientEventId: 'e', at },
    code: 'model_not_found',
    param: 'session.model',
  },
];

test('refusals: each misplaced client message gets its catalogue code and changes nothing', () => {
  for (const row of refusals) {
    const before = play(row.steps);
    const after = play([...row.steps, row.event]);
    assert.equal(types(after.emitted), ['rejected'], row.name);
    const rejected = after.emitted[0] as Extract<CallEmitted, { type: 'rejected' }>;
    assert.is(rejected.code, row.code, row.name);
    assert.is(rejected.param, row.param ?? null, row.name);
    assert.is(rejected.clientEventId, (row.event as { clientEventId?: string }).clientEventId ?? null, row.name);
    assert.equal(after.snapshot.value, before.snapshot.value, row.name);
    assert.equal(after.snapshot.context.session, before.snapshot.context.session, row.name);
  }
});

test('session.update applies the change and announces the new session', () => {
  const { snapshot, emitted } = play([
    open,
    {
      type: 'SESSION_UPDATE',
      change: { outputModalities: ['text', 'text'], turnDetection: { silenceDurationMs: 700 } },
      clientEventId: null,
      at,
    },
  ]);
  assert.equal(types(emitted), ['sessionUpdated']);
  assert.equal(snapshot.context.session.outputModalities, ['text']);
  assert.is(snapshot.context.session.turnDetection?.silenceDurationMs, 700);
  assert.is(snapshot.context.session.turnDetection?.prefixPaddingMs, 300, 'fields not given keep their values');
});

test('an audio turn: committed (speech stopped), transcribed, recorded and answered', () => {
  const speech: Step[] = [
    open,
    { type: 'SPEECH_STOPPED', itemId: 'item_a', audioEndMs: 1600, audioKey: 'a1', audioMs: 1500, at },
  ];
  const heard = play(speech);
  assert.equal(heard.emitted, [{ type: 'audioCommitted', itemId: 'item_a', previousItemId: null, audioEndMs: 1600 }]);
  assert.is(heard.snapshot.context.lastItemId, 'item_a');
  assert.is(turns(heard.snapshot), 'transcribing');
  assert.equal(play([open, { type: 'AUDIO_COMMITTED', itemId: 'item_m', audioKey: 'a1', audioMs: 500, at }]).emitted, [
    { type: 'audioCommitted', itemId: 'item_m', previousItemId: null, audioEndMs: null },
  ]);
  const answered = play([
    ...speech,
    done('transcribe', [{ ok: true, text: 'what time is it?', durationSeconds: 1.5 }] satisfies TranscriptionResult[]),
  ]);
  assert.equal(types(answered.emitted), ['transcriptionCompleted', 'itemDone', 'responseStarted']);
  assert.is(answered.snapshot.context.usage.audioInMs, 1500);
  assert.equal(answered.snapshot.context.response?.modalities, ['audio']);
});

test('a failed transcription drops the turn and says so; nothing is answered', () => {
  const { snapshot, emitted } = play([
    open,
    { type: 'AUDIO_COMMITTED', itemId: 'item_a', audioKey: 'a1', audioMs: 800, at },
    done('transcribe', [{ ok: false, message: 'unreadable' }]),
  ]);
  assert.equal(types(emitted), ['transcriptionFailed']);
  assert.is(turns(snapshot), 'idle');
  assert.equal(snapshot.context.items, []);
});

test('barge-in: speech during a response cuts it (turn_detected); the new turn waits for the response to report', () => {
  const steps: Step[] = [open, say('Tell me a story.'), respond];
  const streaming = play(steps);
  const id = responseId(streaming.snapshot);
  const cut = play([...steps, { type: 'SPEECH_STARTED', itemId: 'item_b', at }]);
  assert.equal(cut.emitted, []);
  assert.ok(cut.actions.includes('xstate.sendTo'), 'CANCEL is sent to the respond effect');
  assert.is(cut.snapshot.context.response?.cancelReason, 'turn_detected');
  const queued = play([
    ...steps,
    { type: 'SPEECH_STARTED', itemId: 'item_b', at },
    { type: 'SPEECH_STOPPED', itemId: 'item_b', audioEndMs: 900, audioKey: 'a1', audioMs: 800, at },
  ]);
  assert.equal(turns(queued.snapshot), 'streaming', 'the turn is queued behind the response');
  assert.is(queued.snapshot.context.queue.length, 1);
  const next = play([
    ...steps,
    { type: 'SPEECH_STARTED', itemId: 'item_b', at },
    { type: 'SPEECH_STOPPED', itemId: 'item_b', audioEndMs: 900, audioKey: 'a1', audioMs: 800, at },
    finished(id, 'cancelled', 'Once'),
  ]);
  const doneEvent = next.emitted[0] as Extract<CallEmitted, { type: 'responseDone' }>;
  assert.is(doneEvent.status, 'cancelled');
  assert.is(doneEvent.cancelReason, 'turn_detected');
  assert.is(turns(next.snapshot), 'transcribing', 'then the queued turn is taken');
});

test('the machine takes SPEECH_STARTED only when it would cut a response (so the line sends no useless event)', () => {
  const speaking: CallEvent = { type: 'SPEECH_STARTED', itemId: 'item_b', at };
  assert.not.ok(play([open]).snapshot.can(speaking), 'nothing to cut');
  assert.ok(play([open, say('Hi'), respond]).snapshot.can(speaking), 'a response to cut');
  const noBargeIn: Step = {
    type: 'SESSION_UPDATE',
    change: { turnDetection: { interruptResponse: false } },
    clientEventId: null,
    at,
  };
  assert.not.ok(play([open, noBargeIn, say('Hi'), respond]).snapshot.can(speaking), 'barge-in off');
});

test('without interrupt_response speech does not cut the response', () => {
  const noBargeIn: Step = {
    type: 'SESSION_UPDATE',
    change: { turnDetection: { interruptResponse: false } },
    clientEventId: null,
    at,
  };
  const { snapshot, actions } = play([
    open,
    noBargeIn,
    say('Hi'),
    respond,
    { type: 'SPEECH_STARTED', itemId: 'item_b', at },
  ]);
  assert.not.ok(actions.includes('xstate.sendTo'));
  assert.is(snapshot.context.response?.cancelReason, null);
});

test('hang-up: a farewell starts ending and the goodbye; when it is said, endReady arms the grace deadline; end_ack closes and settles', () => {
  const bye = play([open, say('Great, thanks. Goodbye!')]);
  assert.equal(types(bye.emitted), ['itemAdded', 'itemDone', 'ending', 'responseStarted']);
  assert.equal(bye.emitted[2], { type: 'ending', reason: 'farewell', language: 'en' });
  assert.is(phase(bye.snapshot), 'ending');
  assert.is(bye.snapshot.context.response?.line, 'Goodbye! Have a great day.');
  assert.is(bye.snapshot.context.response?.promptTokens, 0);
  const id = responseId(bye.snapshot);
  const ready = play([open, say('Great, thanks. Goodbye!'), finished(id, 'completed', 'Goodbye! Have a great day.')]);
  assert.equal(types(ready.emitted), ['responseDone', 'endReady']);
  assert.is(phase(ready.snapshot), 'endReady');
  assert.is(ready.snapshot.context.deadlines.endGrace, at + 500 + 3000);
  const ack = play([
    open,
    say('Great, thanks. Goodbye!'),
    finished(id),
    { type: 'END_ACK', clientEventId: null, at: at + 900 },
  ]);
  assert.is(ack.snapshot.value, 'closing');
  assert.is(ack.snapshot.context.closeReason, 'end_ack');
  assert.equal(ack.snapshot.context.deadlines, {});
  const closed = play([
    open,
    say('Great, thanks. Goodbye!'),
    finished(id),
    { type: 'END_ACK', clientEventId: null, at: at + 900 },
    done('settle', { micros: 1234, entryId: 'le_1' }),
  ]);
  assert.is(closed.snapshot.status, 'done');
  assert.equal(closed.emitted, [
    { type: 'closed', reason: 'end_ack', usage: closed.snapshot.context.usage, priceMicros: 1234 },
  ]);
});

test('once ending, speech and committed turns are not taken; other timers do not close the call', () => {
  const id = responseId(play([open, say('Bye!')]).snapshot);
  const ready: Step[] = [open, say('Bye!'), finished(id)];
  assert.equal(
    play([...ready, { type: 'SPEECH_STOPPED', itemId: 'item_x', audioEndMs: 1, audioKey: 'a1', audioMs: 500, at }])
      .emitted,
    [],
  );
  assert.equal(
    play([...ready, { type: 'AUDIO_COMMITTED', itemId: 'item_x', audioKey: 'a1', audioMs: 500, at }]).emitted,
    [],
  );
  assert.is(phase(play([...ready, { type: 'TIMER', name: 'something_else' }]).snapshot), 'endReady');
  const graced = play([...ready, { type: 'TIMER', name: 'endGrace' }]);
  assert.is(graced.snapshot.value, 'closing');
  assert.is(graced.snapshot.context.closeReason, 'grace');
});

test('a transcription session records turns but answers none, and never ends on a farewell', () => {
  const steps: Step[] = [
    open,
    { type: 'SESSION_UPDATE', change: { type: 'transcription' }, clientEventId: null, at },
    { type: 'SPEECH_STOPPED', itemId: 'item_t', audioEndMs: 800, audioKey: 'a1', audioMs: 800, at },
    done('transcribe', [{ ok: true, text: 'goodbye', durationSeconds: 0.8 }]),
  ];
  const { snapshot, emitted } = play(steps);
  assert.equal(types(emitted), ['transcriptionCompleted', 'itemDone']);
  assert.is(turns(snapshot), 'idle');
  assert.is(phase(snapshot), 'open');
  assert.is(snapshot.context.usage.audioInMs, 800);
});

test('money: a response whose worst case is not held waits for a top-up; a refused top-up ends the call with insufficient_balance', () => {
  const poor: CallInput = { ...input, holdMicros: 15_000 };
  const waiting = play(
    [
      open,
      say('Tell me everything about Rome.'),
      { ...respond, request: { outputModalities: null, instructions: null, maxOutputTokens: null, metadata: null } },
    ],
    poor,
  );
  assert.equal(turns(waiting.snapshot), 'toppingUp');
  const topped = play([open, say('Rome?'), respond, done('topUp', { holdMicros: 2_000_000 })], {
    ...input,
    holdMicros: 100,
  });
  assert.equal(types(topped.emitted), ['holdRaised', 'responseStarted']);
  assert.is(topped.snapshot.context.holdMicros, 2_000_000);
  const refused = play([open, say('Tell me everything about Rome.'), respond, failed('topUp', new Error('402'))], {
    ...input,
    holdMicros: 100,
  });
  assert.equal(types(refused.emitted), ['rejected', 'closing']);
  assert.is((refused.emitted[0] as Extract<CallEmitted, { type: 'rejected' }>).code, 'insufficient_balance');
  assert.is(refused.snapshot.value, 'closing');
  assert.is(refused.snapshot.context.closeReason, 'insufficient_balance');
});

test('money: usage past the hold (a long user turn) is covered before the turn goes on', () => {
  const turn: Step[] = [
    open,
    { type: 'AUDIO_COMMITTED', itemId: 'item_l', audioKey: 'a1', audioMs: 600_000, at },
    done('transcribe', [{ ok: true, text: 'long', durationSeconds: 600 }]),
  ];
  const { snapshot } = play(turn, { ...input, holdMicros: 10_000 });
  assert.is(turns(snapshot), 'coveringTurn');
});

test('disconnect: from idle the call closes at once; a response in flight is cut and reports first; a second one changes nothing', () => {
  const idle = play([open, { type: 'DISCONNECT', at }]);
  assert.is(idle.snapshot.value, 'closing');
  assert.is(idle.snapshot.context.closeReason, 'disconnected');
  const steps: Step[] = [open, say('Hi'), respond];
  const id = responseId(play(steps).snapshot);
  const cut = play([...steps, { type: 'DISCONNECT', at }, { type: 'DISCONNECT', at }]);
  assert.equal(turns(cut.snapshot), 'streaming', 'waits for the response to report its usage');
  assert.is(cut.snapshot.context.response?.cancelReason, 'disconnected');
  const reported = play([...steps, { type: 'DISCONNECT', at }, finished(id, 'cancelled', 'Hel')]);
  assert.equal(types(reported.emitted), ['responseDone', 'closing']);
  assert.is(reported.snapshot.context.usage.completionTokens, 3, 'what it produced is billed');
  const beforeOpen = play([{ type: 'DISCONNECT', at }]);
  assert.is(beforeOpen.snapshot.value, 'closing');
});

test('a failed response is reported, then the error; a failed settlement still closes the call, saying so', () => {
  const steps: Step[] = [open, say('Hi'), respond];
  const id = responseId(play(steps).snapshot);
  const broken = play([...steps, finished(id, 'failed', '')]);
  assert.equal(types(broken.emitted), ['responseDone', 'rejected']);
  assert.is((broken.emitted[1] as Extract<CallEmitted, { type: 'rejected' }>).code, 'upstream_unavailable');
  const unsettled = play([open, { type: 'DISCONNECT', at }, failed('settle', new Error('disk full'))]);
  assert.is(unsettled.snapshot.status, 'done');
  assert.equal(types(unsettled.emitted), ['settleFailed', 'closed']);
  assert.is(unsettled.snapshot.context.charge, null);
});

test('jobs run one at a time in arrival order: an item sent after response.create waits for the response', () => {
  const steps: Step[] = [open, say('First'), respond, say('Second')];
  const { snapshot } = play(steps);
  assert.is(snapshot.context.queue.length, 1);
  const id = responseId(snapshot);
  const after = play([...steps, finished(id)]);
  assert.equal(types(after.emitted), ['responseDone', 'itemAdded', 'itemDone']);
  assert.equal(
    after.snapshot.context.items.map((item) => textOf(item)),
    ['First', 'Paris.', 'Second'],
  );
});

// ---- The machine run as an actor, its effects stubbed through .provide(). ----

function stubbed(options: { topUp?: (input: TopUpInput) => Promise<{ holdMicros: number }> } = {}) {
  const settled: SettleCallInput[] = [];
  const responses: RespondInput[] = [];
  const machine = realtimeCallMachine.provide({
    actors: {
      transcribe: fromPromise<TranscriptionResult[], TranscribeInput>(({ input }) =>
        Promise.resolve(
          input.audioKeys.map((key) => ({ ok: true as const, text: `heard ${key}`, durationSeconds: 1 })),
        ),
      ),
      respond: fromCallback<{ type: 'CANCEL' }, RespondInput>(({ input, sendBack, receive }) => {
        responses.push(input);
        const finish = (status: 'completed' | 'cancelled') =>
          sendBack({
            type: 'RESPONSE_FINISHED',
            responseId: input.responseId,
            status,
            text: input.line ?? 'an answer',
            toolCalls: [],
            usage: { promptTokens: input.promptTokens, completionTokens: 2, audioOutMs: 100 },
            failure: null,
            at: 5000,
          });
        receive(() => finish('cancelled'));
        if (input.line !== null) queueMicrotask(() => finish('completed'));
      }),
      topUp: fromPromise<{ holdMicros: number }, TopUpInput>(({ input }) =>
        options.topUp ? options.topUp(input) : Promise.resolve({ holdMicros: input.neededMicros }),
      ),
      settle: fromPromise<{ micros: number; entryId: string | null }, SettleCallInput>(({ input }) => {
        settled.push(input);
        return Promise.resolve({ micros: realtimePriceMicros(input.usage), entryId: 'le_1' });
      }),
    },
  });
  return { machine, settled, responses };
}

test('as an actor: a spoken turn is transcribed and answered by the provided effects; disconnect settles once', async () => {
  const { machine, settled, responses } = stubbed();
  const emitted: CallEmitted[] = [];
  const actor = createActor(machine, { input });
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  actor.send({ type: 'OPEN', at });
  actor.send({ type: 'SPEECH_STOPPED', itemId: 'item_7', audioEndMs: 900, audioKey: 'a7', audioMs: 900, at });
  await waitFor(actor, (snapshot) => snapshot.context.response?.stage === 'streaming');
  assert.is(responses.length, 1);
  assert.equal(responses[0]!.request, {
    model: 'pro-1',
    instructions: '',
    maxTokens: 4096,
    metadata: null,
    tools: [],
    toolChoice: 'none',
  });
  assert.equal(
    actor.getSnapshot().context.items.map((item) => textOf(item)),
    ['heard a7'],
    'the conversation the effect reads',
  );
  actor.send({ type: 'DISCONNECT', at });
  await waitFor(actor, (snapshot) => snapshot.status === 'done');
  assert.is(settled.length, 1);
  assert.equal(settled[0]!.usage, {
    audioInMs: 900,
    audioOutMs: 100,
    promptTokens: responses[0]!.promptTokens,
    completionTokens: 2,
  });
  assert.is(settled[0]!.capMicros, input.holdMicros);
  const closed = emitted.at(-1) as Extract<CallEmitted, { type: 'closed' }>;
  assert.is(closed.reason, 'disconnected');
  assert.is(closed.priceMicros, realtimePriceMicros(settled[0]!.usage));
});

test('on the host with a simulated clock: the grace deadline closes an end_ready call, also after a restart', async () => {
  const clock = new SimulatedClock(1000);
  const store = new MemoryStore();
  const logger = createLogger('silent');
  const { machine, settled } = stubbed();
  const host = new ActorHost(store, clock, logger);
  host.register({ name: 'realtime-call', logic: machine });
  const callInput: CallInput = { ...input, at: clock.now() };
  await host.spawn('realtime-call', { id: 'rtc_t', ownerId: 'acct_t', input: callInput });
  await host.send('rtc_t', { type: 'OPEN', at: clock.now() });
  await host.send('rtc_t', {
    type: 'ITEM_CREATE',
    item: { id: null, role: 'user', content: [{ type: 'input_text', text: 'Thanks, bye!' }] },
    clientEventId: null,
    at: clock.now(),
  });
  await host.waitFor(
    'rtc_t',
    (snapshot) => (snapshot as unknown as { context: CallContext }).context.deadlines.endGrace != null,
  );
  const deadline = (host.find('rtc_t', 'acct_t')!.snapshot as { context: CallContext }).context.deadlines.endGrace!;
  assert.is(deadline, 5000 + 3000, 'grace counts from the goodbye');
  await host.close();

  // A restart: the persisted end_ready call comes back and its deadline is armed again.
  const restarted = new ActorHost(store, clock, logger);
  restarted.register({ name: 'realtime-call', logic: machine });
  assert.is(restarted.rehydrate(), 1);
  clock.advance(deadline - clock.now() - 1);
  assert.ok(restarted.isLive('rtc_t'), 'not before the deadline');
  clock.advance(1);
  await restarted.waitFor('rtc_t', () => false);
  const record = restarted.find('rtc_t', 'acct_t')!;
  assert.ok(record.done);
  assert.is((record.snapshot as { context: CallContext }).context.closeReason, 'grace');
  assert.is(settled.length, 1);
  await restarted.close();
});

test('a call persisted by the first call machine (socket-side phase) is brought back, closed and charged', async () => {
  const usage = { audioInMs: 1200, audioOutMs: 900, promptTokens: 30, completionTokens: 20 };
  const first = {
    status: 'active',
    value: 'responding',
    historyValue: {},
    children: {},
    context: {
      id: 'rtc_old',
      accountId: 'acct_t',
      tokenId: null,
      session: {
        type: 'realtime',
        model: 'pro-1-2026-03-02',
        output_modalities: ['audio'],
        instructions: '',
        max_output_tokens: 'inf',
        audio: {},
      },
      holdMicros: 700_000,
      endGraceMs: 3000,
      at: 1000,
      items: [{ id: 'item_1', role: 'user', text: 'hello', audioMs: 1200 }],
      usage,
      responseId: 'resp_old',
      ending: null,
      closeReason: null,
      charge: null,
      deadlines: {},
      updatedAt: 1500,
    },
  };
  upgradeCallSnapshot(first);
  const { machine, settled } = stubbed();
  const actor = createActor(machine, { snapshot: first as unknown as Snapshot<unknown>, input }).start();
  assert.equal(actor.getSnapshot().value, { live: 'idle' });
  assert.is(actor.getSnapshot().context.session.model, 'pro-1-2026-03-02');
  actor.send({ type: 'DISCONNECT', at: 2000 });
  await waitFor(actor, (snapshot) => snapshot.status === 'done');
  assert.equal(settled, [{ callId: 'rtc_old', accountId: 'acct_t', tokenId: null, usage, capMicros: 700_000 }]);
  const current = actor.getPersistedSnapshot();
  upgradeCallSnapshot(current);
  assert.equal(current, actor.getPersistedSnapshot(), 'a snapshot of this machine is left alone');
});

test.run();
