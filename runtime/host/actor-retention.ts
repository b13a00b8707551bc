import type { Clock, TimerHandle } from '../clock.js';
import type { Logger } from '../logger.js';

/** What the retention expires: the host's history of actors that ended before a time. */
export interface EndedHistory {
  /** Expires at most `limit` actors that ended before `before`, in one transaction; how many. */
  expireEnded(before: number, limit: number): Promise<number>;
}

/** How long ended actors' history is kept and how the sweep runs. */
export interface RetentionOptions {
  /** History of an actor is kept this long after it ended. */
  retentionMs: number;
  /** A sweep runs this often. */
  everyMs: number;
  /** Actors expired per transaction (the sweep yields to the event loop between batches). */
  batch?: number;
}

/**
 * Bounds what ended actors leave on disk: `retentionMs` after an actor ended, its event log and
 * step history go (and, for machines that ask, its record). A sweep runs on the injected clock
 * every `everyMs` in the background: small transactions with a turn of the event loop between
 * them, so requests never wait behind it; a failed sweep is logged and tried again next time.
 */
export class ActorRetention {
  private timer: TimerHandle | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly history: EndedHistory,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: RetentionOptions,
  ) {}

  /** Arms the first sweep (one period from now). */
  start(): void {
    this.arm();
  }

  /** Stops the schedule and waits for a sweep in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Runs one sweep now (or joins the one running); resolves with how many actors it expired. */
  sweep(): Promise<number> {
    this.running ??= this.expireAll().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async expireAll(): Promise<number> {
    const before = this.clock.now() - this.options.retentionMs;
    const batch = this.options.batch ?? 200;
    let total = 0;
    for (;;) {
      const expired = await this.history.expireEnded(before, batch);
      total += expired;
      if (expired < batch || this.stopped) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (total > 0)
      this.logger.info('ended actors expired', {
        count: total,
        retention_s: Math.round(this.options.retentionMs / 1000),
      });
    return total;
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(() => {
      this.timer = null;
      this.sweep()
        .catch((err: unknown) => this.logger.warn('actor retention sweep failed', { err }))
        .finally(() => this.arm());
    }, this.options.everyMs);
  }
}
