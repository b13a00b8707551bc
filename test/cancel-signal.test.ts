import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { abortSignalOf, CancelSource } from '../runtime/cancel-signal.js';

const test = suite('cancel signal: a light AbortController');

test('abort calls each listener once, in order, and later aborts do nothing', () => {
  const source = new CancelSource();
  const calls: string[] = [];
  source.addEventListener('abort', () => calls.push('a'));
  source.addEventListener('abort', () => calls.push('b'));
  source.addEventListener('abort', () => calls.push('c'));
  assert.is(source.aborted, false);
  source.abort();
  source.abort();
  assert.is(source.aborted, true);
  assert.equal(calls, ['a', 'b', 'c']);
});

test('a removed listener is not called; the others are', () => {
  const source = new CancelSource();
  const calls: string[] = [];
  const first = () => calls.push('first');
  const second = () => calls.push('second');
  source.addEventListener('abort', first);
  source.addEventListener('abort', second);
  source.removeEventListener('abort', first);
  source.removeEventListener('abort', () => calls.push('never added'));
  source.abort();
  assert.equal(calls, ['second']);
});

test('listeners added after a removal are still called in the order they were added', () => {
  const source = new CancelSource();
  const calls: string[] = [];
  const first = () => calls.push('first');
  source.addEventListener('abort', first);
  source.addEventListener('abort', () => calls.push('second'));
  source.removeEventListener('abort', first);
  source.addEventListener('abort', () => calls.push('third'));
  source.abort();
  assert.equal(calls, ['second', 'third']);
});

test('a listener added after the abort is not called, as with an AbortSignal', () => {
  const source = new CancelSource();
  source.abort();
  let called = false;
  source.addEventListener('abort', () => (called = true));
  assert.is(called, false);
});

test('its AbortSignal is made on first read and aborts with it, or is already aborted', () => {
  const before = new CancelSource();
  const signal = abortSignalOf(before);
  assert.is(signal, before.signal);
  let heard = false;
  signal.addEventListener('abort', () => (heard = true));
  before.abort();
  assert.is(heard, true);
  assert.is(signal.aborted, true);
  const after = new CancelSource();
  after.abort();
  assert.is(after.signal.aborted, true);
});

test('the reason is kept, thrown by throwIfAborted and passed to its AbortSignal', () => {
  const source = new CancelSource();
  source.throwIfAborted();
  const reason = new Error('cancelled');
  source.abort(reason);
  assert.is(source.reason, reason);
  assert.throws(
    () => source.throwIfAborted(),
    (err: unknown) => err === reason,
  );
  assert.is(source.signal.reason, reason);
  const plain = new CancelSource();
  plain.abort();
  assert.instance(plain.reason, DOMException);
  assert.is((plain.reason as DOMException).name, 'AbortError');
});

test('a listener object is called through handleEvent, as an EventTarget calls it', () => {
  const source = new CancelSource();
  let handled = 0;
  const listener = { handleEvent: () => handled++ };
  source.addEventListener('abort', () => {});
  source.addEventListener('abort', listener);
  source.abort();
  assert.is(handled, 1);
  const removed = new CancelSource();
  removed.addEventListener('abort', listener);
  removed.removeEventListener('abort', listener);
  removed.abort();
  assert.is(handled, 1);
});

test('an AbortSignal is its own AbortSignal', () => {
  const controller = new AbortController();
  assert.is(abortSignalOf(controller.signal), controller.signal);
});

test.run();
