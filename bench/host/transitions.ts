// Host throughput: spawn + transition + persist, and events appended, each beside an actor with
// no host (no persistence) and the bare LMDB writes of the same values (the storage floor).
import { createActor } from 'xstate';
import { BENCH_MACHINE, benchMachine, type BenchEvent } from './bench-machine.js';
import { openBenchHost, StorageFloor, type BenchHost } from './bench-host.js';
import { measure, type FigureSpec, type HostFigure, type Operation } from './measure.js';

/** Settings of the host throughput figures. */
export interface TransitionSettings {
  timeMs: number;
  /** Concurrent loops of the parallel rows (one actor each). */
  parallel: number;
  /** Events emitted by one transition in the events-appended group. */
  burst: number;
}

const spawnInput = (id: string) => ({ id, ownerId: 'bench', input: { start: 0 } });

/** Runs `op` against a fresh host (or storage floor) and closes it afterwards. */
async function withHost(
  spec: FigureSpec,
  settings: TransitionSettings,
  concurrency: number,
  build: (bench: BenchHost) => Promise<Operation> | Operation,
): Promise<HostFigure> {
  const bench = openBenchHost();
  try {
    const op = await build(bench);
    return await measure(spec, op, {
      timeMs: settings.timeMs,
      warmupMs: Math.min(200, settings.timeMs / 4),
      concurrency,
    });
  } finally {
    await bench.close();
  }
}

/** Spawns one live bench actor per loop, for rows that send to existing actors. */
async function spawnLoops(bench: BenchHost, loops: number, prefix: string): Promise<string[]> {
  const ids = Array.from({ length: loops }, (_, i) => `${prefix}${i}`);
  await Promise.all(ids.map((id) => bench.host.spawn(BENCH_MACHINE, spawnInput(id))));
  return ids;
}

async function spawnGroup(settings: TransitionSettings): Promise<HostFigure[]> {
  const group = 'spawn + transition + persist';
  const unit = 'actors';
  const p = settings.parallel;
  let next = 0;
  const id = () => `a${next++}`;
  const hostOp =
    (bench: BenchHost): Operation =>
    async () => {
      const actorId = id();
      await bench.host.spawn(BENCH_MACHINE, spawnInput(actorId));
      await bench.host.send(actorId, { type: 'INC' });
      return 1;
    };
  const floorOp = (bench: BenchHost): Operation => {
    const floor = new StorageFloor(bench.store);
    return async () => {
      const actorId = id();
      await floor.spawn(actorId);
      await floor.transition(actorId, 1);
      return 1;
    };
  };
  return [
    await withHost(
      { group, unit, name: 'host.spawn + send INC (2 commits, 1 event), awaited one at a time' },
      settings,
      1,
      hostOp,
    ),
    await withHost(
      { group, unit, name: `the same, ${p.toLocaleString('en-US')} loops in parallel` },
      settings,
      p,
      hostOp,
    ),
    await withHost(
      {
        group,
        unit,
        baseline: true,
        short: 'no host',
        everyRow: true,
        name: 'baseline: createActor + start + send INC, no host (no persistence)',
      },
      settings,
      1,
      () => () => {
        const actor = createActor(benchMachine, { input: { start: 0 }, id: id() });
        actor.start();
        actor.send({ type: 'INC' });
        actor.stop();
        return 1;
      },
    ),
    await withHost(
      {
        group,
        unit,
        baseline: true,
        short: 'bare LMDB',
        name: 'baseline: bare LMDB, the same 2 transactions, awaited one at a time',
      },
      settings,
      1,
      floorOp,
    ),
    await withHost(
      {
        group,
        unit,
        baseline: true,
        short: 'bare LMDB',
        name: `baseline: bare LMDB, the same 2 transactions, ${p.toLocaleString('en-US')} loops in parallel`,
      },
      settings,
      p,
      floorOp,
    ),
  ];
}

async function transitionGroup(settings: TransitionSettings, n: number): Promise<HostFigure[]> {
  const one = n === 1;
  const group = one ? 'transition + persist (1 event each)' : `events appended (${n} per transition)`;
  const unit = one ? 'transitions' : 'events';
  const event: BenchEvent = one ? { type: 'INC' } : { type: 'BURST', n };
  const p = one ? settings.parallel : Math.min(settings.parallel, 100);
  const hostRow = async (bench: BenchHost, loops: number): Promise<Operation> => {
    const ids = await spawnLoops(bench, loops, 't');
    return async (loop) => {
      await bench.host.send(ids[loop]!, event);
      return n;
    };
  };
  const floorRow = (bench: BenchHost): Operation => {
    const floor = new StorageFloor(bench.store);
    return async (loop) => {
      await floor.transition(`t${loop}`, n);
      return n;
    };
  };
  const what = one ? 'send INC' : `send BURST (${n} events)`;
  const writes = one ? 'record + 1 event' : `record + ${n} events`;
  return [
    await withHost({ group, unit, name: `host.${what}, awaited one at a time` }, settings, 1, (bench) =>
      hostRow(bench, 1),
    ),
    await withHost(
      { group, unit, name: `host.${what}, ${p.toLocaleString('en-US')} actors in parallel` },
      settings,
      p,
      (bench) => hostRow(bench, p),
    ),
    await withHost(
      {
        group,
        unit,
        baseline: true,
        short: 'no host',
        everyRow: true,
        name: `baseline: actor.${what}, no host (no persistence)`,
      },
      settings,
      1,
      () => {
        const actor = createActor(benchMachine, { input: { start: 0 } }).start();
        return () => {
          actor.send(event);
          return n;
        };
      },
    ),
    await withHost(
      {
        group,
        unit,
        baseline: true,
        short: 'bare LMDB',
        name: `baseline: bare LMDB, ${writes} in one transaction, awaited`,
      },
      settings,
      1,
      floorRow,
    ),
    await withHost(
      {
        group,
        unit,
        baseline: true,
        short: 'bare LMDB',
        name: `baseline: bare LMDB, ${writes} in one transaction, ${p.toLocaleString('en-US')} in parallel`,
      },
      settings,
      p,
      floorRow,
    ),
  ];
}

/** Spawn, transition and append figures, each group with its baselines. */
export async function runTransitionFigures(settings: TransitionSettings): Promise<HostFigure[]> {
  return [
    ...(await spawnGroup(settings)),
    ...(await transitionGroup(settings, 1)),
    ...(await transitionGroup(settings, settings.burst)),
  ];
}
