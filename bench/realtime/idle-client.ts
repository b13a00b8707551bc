// The client of realtime-idle, run in a worker: opens its share of the calls, reports `opened`,
// holds them doing nothing until told `ping`, then sends every call one `session.update` and
// counts the `session.updated` answers: each call must still be alive and served.
import type WebSocket from 'ws';
import { Histogram, type HistogramData } from '../load/histogram.js';
import { closeCalls, openCalls, type CallTarget } from './call-opener.js';
import type { Conductor } from './conductor.js';
import { ErrorTally, type ErrorCounts } from './error-tally.js';
import { meterThread, type ThreadLoad } from './thread-meter.js';

/** One idle client's share of the run. */
export interface IdleClientOptions {
  target: CallTarget;
  calls: number;
  concurrency: number;
  callTimeoutMs: number;
  openDeadlineMs: number;
  /** Every `session.updated` must arrive within this after the pings were sent. */
  pingTimeoutMs: number;
}

/** What one idle client saw. */
export interface IdleStats {
  calls: number;
  opened: number;
  connectMs: HistogramData;
  ticketMs: HistogramData;
  openWindowMs: number;
  /** Calls whose socket was still open when the pings went out. */
  stillOpen: number;
  /** Calls that answered the ping with `session.updated`. */
  answered: number;
  /** session.update sent to session.updated received. */
  pingMs: HistogramData;
  errors: ErrorCounts;
  /** This thread while opening the calls (near saturation: the client limited the opening rate). */
  clientWhileOpening: ThreadLoad;
}

/** The message every call gets at the end: a real session change the server must apply and answer. */
const PING = JSON.stringify({ type: 'session.update', session: { instructions: 'ping' } });

/** Opens the calls, holds them, pings each once, closes them. */
export async function runIdleClient(options: IdleClientOptions, conductor: Conductor): Promise<IdleStats> {
  const errors = new ErrorTally();
  const pingSentAt = new Float64Array(options.calls);
  const ping = new Histogram();
  let answered = 0;
  let closing = false;
  let onAnswer = () => undefined as void;
  const attach = (ws: WebSocket, index: number) => {
    ws.on('message', (data: Buffer) => {
      const text = data.toString();
      const type = /"type":"([^"]+)"/.exec(text)?.[1];
      if (type === 'session.updated' && pingSentAt[index]! > 0) {
        ping.record(performance.now() - pingSentAt[index]!);
        pingSentAt[index] = 0;
        answered++;
        onAnswer();
      } else if (type === 'error') errors.count(`event:error:${/"code":"([^"]+)"/.exec(text)?.[1] ?? '?'}`, text);
    });
    ws.on('close', (code, reason) => {
      if (!closing) errors.count(`closed:${code}`, reason.toString());
    });
    ws.on('error', (err: Error & { code?: string }) => errors.count(`socket:${err.code ?? 'error'}`, err.message));
  };

  const meter = meterThread();
  const opened = await openCalls(
    {
      target: options.target,
      count: options.calls,
      concurrency: options.concurrency,
      callTimeoutMs: options.callTimeoutMs,
      deadlineMs: options.openDeadlineMs,
    },
    errors,
    attach,
    (count, failed) => conductor.report('opening', { opened: count, failed }),
  );
  const clientWhileOpening = meter();
  conductor.report('opened', { opened: opened.opened, failed: options.calls - opened.opened });

  await conductor.wait('ping');
  const live = opened.sockets.filter((ws): ws is WebSocket => ws?.readyState === 1);
  const allAnswered = new Promise<void>((resolve) => {
    onAnswer = () => {
      if (answered >= live.length) resolve();
    };
    onAnswer();
  });
  for (const [index, ws] of opened.sockets.entries()) {
    if (ws?.readyState !== 1) continue;
    pingSentAt[index] = performance.now();
    ws.send(PING);
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([allAnswered, new Promise((resolve) => (timer = setTimeout(resolve, options.pingTimeoutMs)))]);
  clearTimeout(timer);
  const unanswered = live.length - answered;
  if (unanswered > 0)
    for (let i = 0; i < unanswered; i++)
      errors.count('timeout:session.updated', `no session.updated within ${options.pingTimeoutMs} ms of the ping`);

  closing = true;
  await closeCalls(opened.sockets, 5000);
  return {
    calls: options.calls,
    opened: opened.opened,
    connectMs: opened.connectMs,
    ticketMs: opened.ticketMs,
    openWindowMs: opened.windowMs,
    stillOpen: live.length,
    answered,
    pingMs: ping.data,
    errors: errors.data,
    clientWhileOpening,
  };
}
