import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChatBackend, ChatBackendEvent, ChatBackendRequest } from '../../backends/chat-backend.js';

/** A backend under test and how to stop what it needs. */
export interface BackendUnderTest {
  backend: ChatBackend;
  close(): Promise<void>;
}

/** A valid backend request with defaults; `overrides` replace fields. */
export function chatBackendRequest(overrides: Partial<ChatBackendRequest> = {}): ChatBackendRequest {
  return {
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Tell me about queues and streams' }],
    maxTokens: 64,
    temperature: null,
    stop: [],
    responseFormat: { type: 'text', schema: null },
    tools: [],
    toolChoice: 'auto',
    metadata: null,
    choiceIndex: 0,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Every event of a stream. */
export async function collect(stream: AsyncIterable<ChatBackendEvent>): Promise<ChatBackendEvent[]> {
  const events: ChatBackendEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Rejects when `promise` takes longer than `ms`: a failing test instead of a hanging one. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function doneOf(events: ChatBackendEvent[]): Extract<ChatBackendEvent, { type: 'done' }> {
  const last = events.at(-1);
  assert.ok(last?.type === 'done', 'the last event is done');
  return last;
}

/** The behaviour every chat backend owes its callers, as one suite run against `create()`. */
export function runBackendContract(name: string, create: () => Promise<BackendUnderTest>): void {
  const test = suite(`backend contract: ${name}`);
  let subject: BackendUnderTest;

  test.before(async () => {
    subject = await create();
  });
  test.after(() => subject.close());

  test('a request yields at least one delta, then exactly one done as the last event', async () => {
    const events = await collect(subject.backend.stream(chatBackendRequest()));
    assert.ok(events.filter((e) => e.type === 'delta').length >= 1);
    assert.is(events.filter((e) => e.type === 'done').length, 1);
    doneOf(events);
  });

  test('the concatenated deltas are non-empty text', async () => {
    const events = await collect(subject.backend.stream(chatBackendRequest()));
    const text = events.map((e) => (e.type === 'delta' ? e.text : '')).join('');
    assert.ok(text.trim().length > 0);
  });

  test('usage counts prompt tokens and stays within maxTokens', async () => {
    for (const maxTokens of [3, 8, 64]) {
      const { usage } = doneOf(await collect(subject.backend.stream(chatBackendRequest({ maxTokens }))));
      assert.ok(usage.promptTokens > 0);
      assert.ok(usage.completionTokens <= maxTokens, `${usage.completionTokens} <= ${maxTokens}`);
    }
  });

  test('a tiny maxTokens ends with finishReason length', async () => {
    const done = doneOf(await collect(subject.backend.stream(chatBackendRequest({ maxTokens: 2 }))));
    assert.is(done.finishReason, 'length');
  });

  test('a roomy maxTokens ends with finishReason stop', async () => {
    const done = doneOf(await collect(subject.backend.stream(chatBackendRequest({ maxTokens: 4096 }))));
    assert.is(done.finishReason, 'stop');
  });

  test('aborting the signal mid-stream ends the iteration promptly, without a done', async () => {
    const controller = new AbortController();
    const iterator = subject.backend
      .stream(chatBackendRequest({ maxTokens: 4096, signal: controller.signal }))
      [Symbol.asyncIterator]();
    const first = await within(iterator.next(), 2000, 'first event');
    assert.is(first.value?.type, 'delta');
    controller.abort();
    const after: ChatBackendEvent[] = [];
    const ending = (async () => {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return 'ended';
        after.push(next.value);
      }
    })().catch(() => 'threw');
    const how = await within(ending, 2000, 'the aborted stream');
    assert.ok(how === 'ended' || how === 'threw');
    assert.not.ok(
      after.some((e) => e.type === 'done'),
      'no done after an abort',
    );
  });

  test.run();
}
