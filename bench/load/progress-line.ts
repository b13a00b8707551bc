import type { LoadProgress } from './load-client.js';

/**
 * A live progress line on stderr (elapsed, current rate, errors): rewritten in place on a
 * terminal; otherwise, for runs of 10 s or more, one line every 5 s. Short runs in a pipe stay quiet.
 */
export function createProgressLine(options: {
  durationMs: number;
  warmupMs: number;
}): (label: string, progress: LoadProgress) => void {
  const tty = Boolean(process.stderr.isTTY);
  const total = (options.durationMs + options.warmupMs) / 1000;
  let last = { label: '', at: 0, completed: 0, printedAt: 0, rate: 0 };
  return (label, progress) => {
    if (label !== last.label || progress.elapsedMs < last.at)
      last = { label, at: 0, completed: 0, printedAt: 0, rate: 0 };
    // Phase changes arrive between the regular 500 ms ticks: keep the last rate rather than divide by ~0.
    if (progress.elapsedMs - last.at >= 250) {
      last = {
        ...last,
        rate: ((progress.completed - last.completed) * 1000) / (progress.elapsedMs - last.at),
        at: progress.elapsedMs,
        completed: progress.completed,
      };
    }
    const rate = last.rate;
    const text = `${label}: ${(progress.elapsedMs / 1000).toFixed(1)} / ${total.toFixed(0)} s ${progress.phase} · ${Math.round(rate).toLocaleString('en-US')} req/s · ${progress.errors} errors`;
    if (tty) {
      process.stderr.write(progress.phase === 'done' ? '\r\x1b[2K' : `\r\x1b[2K${text}`);
    } else if (
      options.durationMs >= 10_000 &&
      progress.elapsedMs - last.printedAt >= 5000 &&
      progress.phase !== 'done'
    ) {
      last.printedAt = progress.elapsedMs;
      process.stderr.write(`${text}\n`);
    }
  };
}
