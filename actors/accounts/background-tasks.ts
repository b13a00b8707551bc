import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '../../runtime/logger.js';

/**
 * Work a request starts but does not wait for (mail and text deliveries), so an answer never
 * depends on, nor reveals, what happens next. A task starts on the next turn of the event loop,
 * after the answer that started it has been written: nothing it reads (whether an address has an
 * account, say) runs before that answer leaves. Failures are logged with the task's context (ids,
 * never secrets); `settled()` lets tests and shutdown wait for what is in flight.
 */
export class BackgroundTasks {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /** Starts `task` on the next turn of the event loop, without waiting for it. */
  run(name: string, context: Record<string, unknown>, task: () => Promise<void>): void {
    const promise = nextTurn()
      .then(task)
      .catch((err: unknown) =>
        this.logger.warn(`${name} failed`, {
          ...context,
          err: err instanceof Error ? { name: err.name, message: err.message } : String(err),
        }),
      )
      .finally(() => this.running.delete(promise));
    this.running.add(promise);
  }

  /** Resolves once every task started so far (and those they started) has ended. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
