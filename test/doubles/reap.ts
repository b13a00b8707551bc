import type { ChildProcess } from 'node:child_process';

const children = new Set<ChildProcess>();
let installed = false;

function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * Kills `child` when this test process ends, however it ends short of SIGKILL (a failed `before`,
 * an uncaught error, a timeout's SIGTERM), so servers a test started never outlive it.
 */
export function reapOnExit(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (installed) return;
  installed = true;
  process.once('exit', killAll);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : signal === 'SIGINT' ? 2 : 1));
    });
  }
}
