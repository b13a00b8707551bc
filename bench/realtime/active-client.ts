// The client of realtime-active, run in a worker: opens its share of the calls, configures each
// (`session.update`, answered by `session.updated`), then streams the speech loop into every call
// at real time (input-pacer.ts) and measures what comes back (call-events.ts) in the window after
// the ramp.
import type WebSocket from 'ws';
import type { HistogramData } from '../load/histogram.js';
import { closeCalls, openCalls, type CallTarget } from './call-opener.js';
import { CallEvents, type CallState, type TurnCounts } from './call-events.js';
import type { Conductor } from './conductor.js';
import { ErrorTally, type ErrorCounts } from './error-tally.js';
import { InputPacer, type PacedCall } from './input-pacer.js';
import type { SpeechLoop } from './speech-loop.js';
import { meterThread, type ThreadLoad } from './thread-meter.js';
import { createWallClock } from './wall-clock.js';

/** One active client's share of the run. */
export interface ActiveClientOptions {
  target: CallTarget;
  calls: number;
  /** This client's first call among all clients' calls, and how many there are: turns are spread over all of them. */
  firstIndex: number;
  totalCalls: number;
  concurrency: number;
  callTimeoutMs: number;
  openDeadlineMs: number;
  /** Sent on every call once it is open; the call counts as configured at `session.updated`. */
  sessionUpdate: Record<string, unknown>;
  loop: SpeechLoop;
  /** Streaming before the window (every call's first turns happen here). */
  rampMs: number;
  durationMs: number;
}

/** What one active client measured in its window. */
export interface ActiveStats {
  calls: number;
  opened: number;
  configured: number;
  connectMs: HistogramData;
  windowMs: number;
  /** Appends sent and sentences finished inside the window. */
  framesIn: number;
  utterances: number;
  /** How late each append left against its 20 ms schedule: the client's own pacing. */
  sendLagMs: HistogramData;
  framesOut: number;
  bytesOut: number;
  relayMs: HistogramData;
  relayMinMs: number | null;
  turnAfterStopMs: HistogramData;
  turnAfterSpeechMs: HistogramData;
  turns: TurnCounts;
  droppedFrames: number;
  errors: ErrorCounts;
  clockOffsetMs: number;
  /** This thread over the window. */
  client: ThreadLoad;
}

type Call = CallState & PacedCall;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until every open call is configured, at most `timeoutMs`. */
async function configured(calls: Call[], timeoutMs: number): Promise<void> {
  for (const end = performance.now() + timeoutMs; performance.now() < end;) {
    if (calls.every((call) => call.configured || call.ws.readyState !== 1)) return;
    await sleep(20);
  }
}

/** Opens, configures and streams into the calls, then closes them. */
export async function runActiveClient(options: ActiveClientOptions, conductor: Conductor): Promise<ActiveStats> {
  const errors = new ErrorTally();
  const events = new CallEvents(errors, options.loop.sentence);
  const clock = createWallClock();
  const calls: Call[] = [];
  const window = { start: Infinity, end: Infinity };
  const pacer = new InputPacer(calls, options.loop, window, clock.now);
  let closing = false;

  const attach = (ws: WebSocket, index: number) => {
    const placement = pacer.placement(options.firstIndex + index, options.totalCalls);
    const call: Call = {
      ws,
      sent: 0,
      ...placement,
      speechEndSentAt: 0,
      pendingTurn: null,
      audioResponse: null,
      audioBytes: 0,
      configured: false,
    };
    calls.push(call);
    ws.on('message', (data: Buffer) => {
      const mono = performance.now();
      events.handle(call, data, clock.now(), mono >= window.start && mono < window.end);
    });
    ws.on('close', (code, reason) => {
      if (!closing) errors.count(`closed:${code}`, reason.toString());
    });
    ws.on('error', (err: Error & { code?: string }) => errors.count(`socket:${err.code ?? 'error'}`, err.message));
    ws.send(JSON.stringify({ type: 'session.update', session: options.sessionUpdate }));
  };
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
  await configured(calls, options.callTimeoutMs);
  for (const call of calls)
    if (!call.configured)
      errors.count('timeout:session.updated', `no session.updated within ${options.callTimeoutMs} ms`);
  conductor.report('opened', { opened: opened.opened, configured: calls.filter((call) => call.configured).length });

  await conductor.wait('start');
  window.start = performance.now() + options.rampMs;
  window.end = window.start + options.durationMs;
  pacer.start();
  await sleep(options.rampMs);
  conductor.report('measuring');
  const meter = meterThread();
  await sleep(Math.max(0, window.end - performance.now()));
  const client = meter();
  pacer.stop();
  const windowMs = Math.round(Math.min(performance.now(), window.end) - window.start);
  conductor.report('measured', { framesIn: pacer.framesIn, framesOut: events.framesOut });

  closing = true;
  await closeCalls(opened.sockets, 5000);
  return {
    calls: options.calls,
    opened: opened.opened,
    configured: calls.filter((call) => call.configured).length,
    connectMs: opened.connectMs,
    windowMs,
    framesIn: pacer.framesIn,
    utterances: pacer.utterances,
    sendLagMs: pacer.sendLag.data,
    framesOut: events.framesOut,
    bytesOut: events.bytesOut,
    relayMs: events.relay.data,
    relayMinMs: Number.isFinite(events.relayMinMs) ? Math.round(events.relayMinMs * 1000) / 1000 : null,
    turnAfterStopMs: events.turnAfterStop.data,
    turnAfterSpeechMs: events.turnAfterSpeech.data,
    turns: events.turns,
    droppedFrames: events.droppedFrames,
    errors: errors.data,
    clockOffsetMs: clock.offsetMs,
    client,
  };
}
