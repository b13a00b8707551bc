/** A timer armed through a {@link Clock}; only the clock that made it can clear it. */
export interface TimerHandle {
  readonly __timer: unique symbol;
}

/**
 * Time as the runtime sees it: the current time and timers. Injected everywhere, so tests run
 * deadlines on a {@link SimulatedClock} instead of sleeping, and no timer keeps the process alive.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fire` once, `ms` from now. */
  setTimer(fire: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** The longest delay `setTimeout` honours (about 24.8 days); longer ones are re-armed in steps. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

interface SystemTimer {
  timeout: NodeJS.Timeout;
}

/** The wall clock, with unref'd Node timers (delays past 24.8 days are re-armed, not fired early). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fire, ms) {
    const at = Date.now() + Math.max(0, ms);
    const timer: SystemTimer = { timeout: undefined as unknown as NodeJS.Timeout };
    const arm = () => {
      const left = at - Date.now();
      timer.timeout = setTimeout(left > MAX_TIMEOUT_MS ? arm : fire, Math.min(Math.max(0, left), MAX_TIMEOUT_MS));
      timer.timeout.unref();
    };
    arm();
    return timer as unknown as TimerHandle;
  },
  clearTimer(handle) {
    clearTimeout((handle as unknown as SystemTimer).timeout);
  },
};

interface SimulatedTimer {
  at: number;
  seq: number;
  fire: () => void;
}

/**
 * A clock tests move by hand: `advance(ms)` fires every timer that falls due, in time order, with
 * `now()` reading each timer's own time while it fires.
 */
export class SimulatedClock implements Clock {
  private readonly timers = new Set<SimulatedTimer>();
  private seq = 0;

  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  setTimer(fire: () => void, ms: number): TimerHandle {
    const timer: SimulatedTimer = { at: this.current + Math.max(0, ms), seq: this.seq++, fire };
    this.timers.add(timer);
    return timer as unknown as TimerHandle;
  }

  clearTimer(handle: TimerHandle): void {
    this.timers.delete(handle as unknown as SimulatedTimer);
  }

  /** Timers armed and not yet fired. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time forward by `ms`, firing what falls due (timers armed while firing included). */
  advance(ms: number): void {
    const until = this.current + ms;
    for (;;) {
      let next: SimulatedTimer | undefined;
      for (const timer of this.timers)
        if (timer.at <= until && (!next || timer.at < next.at || (timer.at === next.at && timer.seq < next.seq)))
          next = timer;
      if (!next) break;
      this.timers.delete(next);
      this.current = Math.max(this.current, next.at);
      next.fire();
    }
    this.current = until;
  }
}
