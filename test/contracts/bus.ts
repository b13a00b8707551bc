import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { BusRequestError, type Bus } from '../../runtime/bus/bus.js';

/** A fresh bus, and a way to wait until what was published has been delivered. */
export interface BusUnderTest {
  open(): Promise<Bus>;
  /** Resolves once messages published so far have reached their subscribers (a no-op in process). */
  settle(bus: Bus): Promise<void>;
}

/** The behaviour every `Bus` must have; registered on `test` for one implementation. */
export function busContract(test: Test, impl: BusUnderTest): void {
  const withBus = (name: string, body: (bus: Bus) => Promise<void>) =>
    test(name, async () => {
      const bus = await impl.open();
      try {
        await body(bus);
      } finally {
        await bus.close();
      }
    });

  withBus('a published message reaches every subscriber of its subject, in order', async (bus) => {
    const a: unknown[] = [];
    const b: unknown[] = [];
    bus.subscribe('actor.x.events', (m) => a.push(m));
    bus.subscribe('actor.x.events', (m) => b.push(m));
    bus.subscribe('actor.y.events', () => assert.unreachable('another subject'));
    for (let i = 0; i < 5; i++) bus.publish('actor.x.events', { i });
    await impl.settle(bus);
    assert.equal(
      a,
      [0, 1, 2, 3, 4].map((i) => ({ i })),
    );
    assert.equal(b, a);
  });

  withBus('wildcards: * is one token, > is the rest', async (bus) => {
    const star: string[] = [];
    const tail: string[] = [];
    bus.subscribe('actor.*.events', (_, subject) => star.push(subject));
    bus.subscribe('actor.>', (_, subject) => tail.push(subject));
    for (const subject of ['actor.a.events', 'actor.b.events', 'actor.a.state', 'actor', 'actor.a.events.more'])
      bus.publish(subject, 1);
    await impl.settle(bus);
    assert.equal(star, ['actor.a.events', 'actor.b.events']);
    assert.equal(tail, ['actor.a.events', 'actor.b.events', 'actor.a.state', 'actor.a.events.more']);
  });

  withBus('after unsubscribing, nothing more arrives', async (bus) => {
    const seen: unknown[] = [];
    const stop = bus.subscribe('s', (m) => seen.push(m));
    bus.publish('s', 1);
    await impl.settle(bus);
    stop();
    bus.publish('s', 2);
    await impl.settle(bus);
    assert.equal(seen, [1]);
  });

  withBus('a failing subscriber does not cost the others the message', async (bus) => {
    const seen: unknown[] = [];
    bus.subscribe('s', () => {
      throw new Error('bad subscriber');
    });
    bus.subscribe('s', (m) => seen.push(m));
    bus.publish('s', 'm');
    await impl.settle(bus);
    assert.equal(seen, ['m']);
  });

  withBus('a request gets its responder answer; async answers and rejections travel back', async (bus) => {
    bus.respond('svc.echo', (m) => ({ echoed: m }));
    bus.respond('svc.slow', async (m) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return m;
    });
    bus.respond('svc.fail', () => {
      throw new Error('refused');
    });
    assert.equal(await bus.request('svc.echo', 'hi', { timeoutMs: 2000 }), { echoed: 'hi' });
    assert.is(await bus.request('svc.slow', 7, { timeoutMs: 2000 }), 7);
    const failed = await bus.request('svc.fail', null, { timeoutMs: 2000 }).then(
      () => null,
      (err: Error) => err.message,
    );
    assert.match(String(failed), /refused/);
  });

  withBus('a request nobody serves fails as no_responders; a slow one as timeout', async (bus) => {
    const none = await bus.request('svc.nobody', 1, { timeoutMs: 500 }).then(
      () => null,
      (err: unknown) => err,
    );
    assert.instance(none, BusRequestError);
    assert.is((none as BusRequestError).reason, 'no_responders');
    bus.respond('svc.never', () => new Promise(() => {}));
    const late = await bus.request('svc.never', 1, { timeoutMs: 20 }).then(
      () => null,
      (err: unknown) => err,
    );
    assert.instance(late, BusRequestError);
    assert.is((late as BusRequestError).reason, 'timeout');
  });
}
