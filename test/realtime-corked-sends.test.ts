import type { WebSocket } from '@trufflesuite/uws-js-unofficial';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CorkedSends, type OutgoingTexts } from '../http/realtime/corked-sends.js';

const test = suite('realtime sockets: a task’s messages written under one cork, in order, counted as buffered');

/** A uWS socket as far as CorkedSends uses it: writes are recorded by cork. */
function fakeSocket(buffered = 0) {
  const data: OutgoingTexts = { outgoing: [], outgoingChars: 0, closed: false };
  const corks: string[][] = [];
  let corked: string[] | null = null;
  const ws = {
    getUserData: () => data,
    getBufferedAmount: () => buffered,
    cork: (write: () => void) => {
      corked = [];
      write();
      corks.push(corked);
      corked = null;
    },
    send: (text: string) => {
      if (!corked) throw new Error('a send outside cork');
      corked.push(text);
      return 1;
    },
  } as unknown as WebSocket<OutgoingTexts>;
  return { ws, data, corks };
}

const nextTask = () => new Promise((resolve) => setImmediate(resolve));

test('the messages of one task go out together, in order; the next task’s in their own write', async () => {
  const sends = new CorkedSends<OutgoingTexts>();
  const a = fakeSocket();
  const b = fakeSocket();
  sends.send(a.ws, 'a1');
  sends.send(b.ws, 'b1');
  sends.send(a.ws, 'a2');
  assert.equal(a.corks, [], 'nothing written before the task ends');
  await Promise.resolve();
  await nextTask();
  assert.equal(a.corks, [['a1', 'a2']]);
  assert.equal(b.corks, [['b1']]);
  sends.send(a.ws, 'a3');
  await nextTask();
  assert.equal(a.corks, [['a1', 'a2'], ['a3']]);
});

test('text still waiting counts in the buffered amount, so the slow-client limits see it', async () => {
  const sends = new CorkedSends<OutgoingTexts>();
  const { ws } = fakeSocket(100);
  assert.is(sends.bufferedAmount(ws), 100);
  sends.send(ws, 'x'.repeat(40));
  assert.is(sends.bufferedAmount(ws), 140);
  await nextTask();
  assert.is(sends.bufferedAmount(ws), 100);
});

test('a flush (before a close) writes what waits at once; a closed socket gets nothing', async () => {
  const sends = new CorkedSends<OutgoingTexts>();
  const { ws, data, corks } = fakeSocket();
  sends.send(ws, 'last words');
  sends.flush(ws);
  assert.equal(corks, [['last words']]);
  await nextTask();
  assert.equal(corks, [['last words']], 'not written twice');
  sends.send(ws, 'dropped');
  data.closed = true;
  await nextTask();
  sends.send(ws, 'after close');
  await nextTask();
  assert.equal(corks, [['last words']]);
  assert.is(sends.bufferedAmount(ws), 0);
});

test.run();
