import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountServices } from '../actors/accounts/account-services.js';
import type { Ledger } from '../actors/billing/ledger.js';
import { planChat } from '../actors/chat/chat-plan.js';
import {
  completionBill,
  cutShort,
  liveInputEntry,
  outcomeOf,
  type CompletionOutcome,
} from '../actors/chat/completion.js';
import { COMPLETION_MACHINE, startCompletion, type CompletionHandle } from '../actors/chat/completion-run.js';
import { passMessages } from '../actors/chat/completion-passes.js';
import type { ChatBackend, ChatBackendEvent, ChatBackendRequest } from '../backends/chat-backend.js';
import { TerminalError } from '../backends/errors.js';
import { ChatCompletionRequestSchema } from '../protocols/chat.js';
import { ApiError } from '../protocols/errors.js';
import { chatPriceMicros } from '../protocols/pricing.js';
import { countPromptTokens, countTokens } from '../protocols/tokens.js';
import { SimulatedClock } from '../runtime/clock.js';
import { ActorRegistry } from '../runtime/host/actor-registry.js';
import { MemoryStore } from '../runtime/store/memory-store.js';

const test = suite('chat completions: one run, two ways (direct and machine), one set of rules and one price');

let services: AccountServices;
let ledger: Ledger;
let clock: SimulatedClock;
let registry: ActorRegistry;
let accountId: string;

test.before.each(async () => {
  clock = new SimulatedClock();
  services = new AccountServices(new MemoryStore(), clock, { sessionTtlMs: 60_000, usageFlushMs: 0 });
  const created = await services.createAccount({
    email: 'run@example.com',
    password: null,
    creditMicros: 1_000_000,
    tokenLabel: 't',
  });
  ledger = services.ledger;
  accountId = created!.account.id;
  registry = new ActorRegistry(clock);
});
test.after.each(() => services.close());

/**
 * A backend that says `first` at once, then waits for `finish()` (answering `rest` and stopping)
 * or for its abort; `fail` makes it throw a terminal error instead of answering.
 */
function gatedBackend(script: { first: string; rest?: string; fail?: boolean }) {
  const gates: (() => void)[] = [];
  const requests: ChatBackendRequest[] = [];
  let saidFirst = 0;
  let allSaid: () => void = () => {};
  /** Resolves once `n` streams have had their first text taken by the run. */
  const said = (n: number) =>
    new Promise<void>((resolve) => {
      allSaid = () => saidFirst >= n && resolve();
      allSaid();
    });
  const backend: ChatBackend = {
    name: 'gated',
    latency: { ttftMs: 0, tokensPerSecond: 0 },
    async *stream(request): AsyncIterable<ChatBackendEvent> {
      requests.push(request);
      yield { type: 'delta', text: script.first };
      saidFirst++;
      allSaid();
      await new Promise<void>((resolve, reject) => {
        gates.push(resolve);
        request.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
      if (script.fail) throw new TerminalError('the model refused', 'upstream_error');
      yield { type: 'delta', text: script.rest ?? '' };
      yield { type: 'done', finishReason: 'stop', usage: { promptTokens: 11, completionTokens: 4 } };
    },
  };
  return { backend, requests, said, finish: () => gates.splice(0).forEach((open) => open()) };
}

let runs = 0;

function start(body: Record<string, unknown>, backend: ChatBackend) {
  const request = ChatCompletionRequestSchema.parse({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'hello there' }],
    max_tokens: 50,
    ...body,
  });
  const plan = planChat(request, countPromptTokens(request.messages), 1000);
  const events: string[] = [];
  let produced: () => void = () => {};
  const firstText = new Promise<void>((resolve) => (produced = resolve));
  const id = `chatcmpl-${++runs}`;
  const handle = startCompletion({
    id,
    request,
    conversation: request.messages,
    preprocessed: { promptTokens: 5, completionTokens: 0 },
    plan,
    accountId,
    tokenId: null,
    requestId: 'req_run',
    billing: ledger,
    backend,
    registry,
    signal: new AbortController().signal,
    ready: () => null,
    onEmit: (event) => {
      events.push(event.type === 'phase' ? `phase:${event.phase}` : event.type);
      if (event.type === 'delta') produced();
    },
    streaming: true,
  });
  return { id, handle, plan, events, firstText };
}

const lastCharge = () => [...ledger.all(accountId)].filter((entry) => entry.type === 'charge').at(-1);
const balance = () => ledger.state(accountId).balance;

test('a simple run is direct: charged its processed tokens at the one price, leaving a small finished record', async () => {
  const { backend, finish } = gatedBackend({ first: 'Hello', rest: ' world' });
  const { id, handle, events, firstText } = start({}, backend);
  await firstText;
  assert.is(ledger.state(accountId).held > 0, true, 'the worst case is held while it runs');
  finish();
  const outcome = await handle.done;
  assert.is(outcome.status, 'completed');
  assert.equal(outcome.usage, { promptTokens: 16, completionTokens: 4 });
  assert.is(outcome.priceMicros, chatPriceMicros(outcome.usage));
  assert.is(balance(), 1_000_000 - outcome.priceMicros);
  assert.is(ledger.state(accountId).held, 0);
  assert.is(lastCharge()!.description, 'chat completion (simple)');
  assert.is(lastCharge()!.requestId, 'req_run');
  assert.equal(events, ['phase:answer', 'delta', 'delta']);
  assert.is(registry.list(COMPLETION_MACHINE).length, 0, 'no longer live');
  const finished = registry.get<CompletionHandle>(id, accountId, COMPLETION_MACHINE)!;
  assert.equal(finished.state(), { name: 'completed', active: false, phase: null, liveInputs: [] });
  assert.equal(finished.partial(), []);
  clock.advance(5 * 60_000 + 1);
  assert.is(registry.get(id, accountId, COMPLETION_MACHINE), undefined, 'gone after its grace');
});

for (const [kind, body] of [
  ['direct', {}],
  ['machine', { response_mode: 'complex' }],
] as const) {
  test(`a cancelled ${kind} run bills the prompts of its pass in flight plus what each choice produced`, async () => {
    const { backend, requests, said } = gatedBackend({ first: 'partial words' });
    const { handle } = start({ ...body, n: 2 }, backend);
    await said(2);
    assert.equal(handle.partial(), ['partial words', 'partial words']);
    handle.liveInput({ content: 'also Rome', questionId: null, source: 'api', modality: 'text', at: 1 });
    handle.cancel('enough');
    const outcome = await handle.done;
    assert.is(outcome.status, 'cancelled');
    assert.is(outcome.cancelReason, 'enough');
    // The machine is cut short in its plan pass (internal: no answer shown), the direct run in its answer.
    assert.equal(
      requests.map((request) => request.choiceIndex),
      [0, 1],
    );
    const prompts = requests.reduce((sum, request) => sum + countPromptTokens(request.messages), 0);
    assert.equal(outcome.usage, { promptTokens: 5 + prompts, completionTokens: 2 * countTokens('partial words') });
    assert.equal(
      outcome.choices.map((choice) => choice.text),
      kind === 'direct' ? ['partial words', 'partial words'] : [],
    );
    assert.is(outcome.priceMicros, chatPriceMicros(outcome.usage));
    assert.is(
      lastCharge()!.description,
      kind === 'direct' ? 'chat completion (simple, cancelled)' : 'chat completion (complex, cancelled)',
    );
    assert.is(ledger.state(accountId).held, 0);
    assert.is(handle.state().name, 'cancelled');
    assert.is(handle.state().liveInputs.length, 1, 'live input recorded the same way');
  });

  test(`a failed ${kind} run charges nothing and releases its hold`, async () => {
    const { backend, finish, said } = gatedBackend({ first: 'so far', fail: true });
    const { handle } = start(body, backend);
    await said(1);
    finish();
    const outcome: CompletionOutcome = await handle.done;
    assert.is(outcome.status, 'failed');
    assert.is(outcome.error!.kind, 'upstream_error');
    assert.is(outcome.priceMicros, 0);
    assert.equal(ledger.state(accountId), { balance: 1_000_000, held: 0 });
    assert.is(lastCharge(), undefined);
  });
}

test('a run whose worst case does not fit is 402 before it starts, and is not registered', () => {
  const { backend, requests } = gatedBackend({ first: 'x' });
  const other = ledger.hold({ accountId, tokenId: null, amount: 999_000 });
  assert.throws(
    () => start({}, backend),
    (err: unknown) => err instanceof ApiError && err.code === 'insufficient_balance',
  );
  assert.is(requests.length, 0);
  assert.is(registry.list(COMPLETION_MACHINE).length, 0);
  ledger.release(other);
  assert.is(ledger.state(accountId).held, 0);
});

test('live input to a direct run is recorded, announced and kept by its finished record', async () => {
  const { backend, finish } = gatedBackend({ first: 'a' });
  const { id, handle, events, firstText } = start({}, backend);
  await firstText;
  const event = { content: { note: 1 }, questionId: 'q1', source: 'api', modality: 'text', at: 7 };
  assert.is(handle.liveInput(event), 1);
  assert.is(handle.liveInput(event), 2);
  finish();
  await handle.done;
  assert.ok(events.filter((e) => e === 'live_input').length === 2);
  const finished = registry.get<CompletionHandle>(id, accountId, COMPLETION_MACHINE)!;
  assert.equal(
    finished.state().liveInputs.map((input) => [input.seq, input.questionId, input.usedIn]),
    [
      [1, 'q1', null],
      [2, 'q1', null],
    ],
  );
  assert.throws(() => finished.liveInput(event), /finished/);
});

test('the rules: live input entries, a cut-short pass, the outcome and the one price', () => {
  const entry = liveInputEntry([], { content: 'x', questionId: null, source: 's', modality: 'text', at: 3 });
  assert.equal(entry, {
    seq: 1,
    content: 'x',
    questionId: null,
    source: 's',
    modality: 'text',
    receivedAt: 3,
    usedIn: null,
  });
  assert.is(liveInputEntry([entry], { content: 'y', questionId: null, source: 's', modality: 'text', at: 4 }).seq, 2);

  const messages = passMessages({
    pass: 'answer',
    conversation: [{ role: 'user', content: 'hello there' }],
    liveInputs: [],
    planText: '',
    answerText: '',
  });
  const answer = cutShort('answer', [messages, messages], ['partial words', 'one']);
  assert.equal(answer.usage, { promptTokens: 2 * countPromptTokens(messages), completionTokens: 3 + 1 });
  assert.equal(
    answer.answers!.map((a) => a.text),
    ['partial words', 'one'],
  );
  const plan = cutShort('plan', [messages], ['secret plan']);
  assert.is(plan.answers, null, 'an internal pass shows nothing');
  assert.is(plan.usage.completionTokens, 2);
  assert.equal(cutShort(null, [], []), { usage: { promptTokens: 0, completionTokens: 0 }, answers: null });

  const usage = { promptTokens: 10, completionTokens: 3 };
  const done = outcomeOf('completed', [{ text: 't', toolCalls: [], finishReason: 'stop' }], usage);
  assert.equal(done.choices, [{ text: 't', toolCalls: [], finishReason: 'stop' }]);
  assert.is(done.priceMicros, 0, 'priced at settle');
  assert.equal(completionBill(done, { model: 'pro-1', depth: 'simple' }), {
    charge: 10 * 12 + 3 * 48,
    description: 'chat completion (simple)',
    model: 'pro-1',
    promptTokens: 10,
    completionTokens: 3,
  });
  assert.is(
    completionBill(outcomeOf('cancelled', [], usage), { model: 'pro-1', depth: 'complex' })!.description,
    'chat completion (complex, cancelled)',
  );
  assert.is(
    completionBill(done, { model: 'pro-1', depth: 'simple', cached: true })!.description,
    'chat completion (cached)',
  );
  assert.is(completionBill(outcomeOf('failed', [], usage), { model: 'pro-1', depth: 'simple' }), null);
});

test.run();
