const highRes = () => performance.timeOrigin + performance.now();

/**
 * This thread's reading of the wall clock (epoch ms) with sub-millisecond resolution.
 * `performance.timeOrigin` is taken once per process at start-up and can sit a few ms off the wall
 * clock when the process was descheduled then; Date.now() is sampled over 3 ms and the largest
 * difference (the one taken just after it ticked) is the offset within µs. The server stamps
 * `svc_ts` with its own timeOrigin + now(), uncorrected, so its own start-up error remains.
 */
export function createWallClock(): { now: () => number; offsetMs: number } {
  let offset = -Infinity;
  for (const end = performance.now() + 3; performance.now() < end;) offset = Math.max(offset, Date.now() - highRes());
  return { now: () => highRes() + offset, offsetMs: Math.round(offset * 1000) / 1000 };
}
