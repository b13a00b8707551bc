import type { PointProgress } from './run-point.js';

/**
 * A live progress line on stderr (point, done / total, current rate, errors): rewritten in place
 * at most 10 times a second on a terminal, one line every 5 s otherwise.
 */
export function createServeProgress(stream: NodeJS.WriteStream = process.stderr): {
  update: (progress: PointProgress) => void;
  end: () => void;
} {
  const tty = Boolean(stream.isTTY);
  const every = tty ? 100 : 5000;
  let printedAt = -Infinity;
  let window = { label: '', at: 0, done: 0, rate: 0 };
  return {
    update: (progress) => {
      if (progress.label !== window.label) {
        window = { label: progress.label, at: 0, done: 0, rate: 0 };
        printedAt = tty ? -Infinity : performance.now();
      }
      if (progress.elapsedMs - window.at >= 1000)
        window = {
          ...window,
          rate: ((progress.done - window.done) * 1000) / (progress.elapsedMs - window.at),
          at: progress.elapsedMs,
          done: progress.done,
        };
      const now = performance.now();
      if (now - printedAt < every) return;
      printedAt = now;
      const total = progress.total === null ? '' : ` / ${progress.total}`;
      const text = `serve ${progress.label}: ${progress.done}${total} done · ${window.rate.toFixed(1)} req/s · ${progress.errors} errors · ${(progress.elapsedMs / 1000).toFixed(0)} s`;
      stream.write(tty ? `\r\x1b[2K${text}` : `${text}\n`);
    },
    end: () => {
      if (tty) stream.write('\r\x1b[2K');
    },
  };
}
