// The sse-hold scenario: N streaming chat completions held open at once, each delivering about one
// event a second (a slow scripted sim), against the gateway and a bare uWS SSE server, with the
// same client. What an open stream costs the server (RSS per stream), whether every stream still
// delivers at the end of the hold, and whether the server copes when all of them abort at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { assertFilesFor } from '../realtime/open-files-limit.js';
import { mb, serverRss, serverSampler } from '../realtime/server-readings.js';
import type { ThreadLoad } from '../realtime/thread-meter.js';
import { Histogram, type LatencySummary } from './histogram.js';
import { UNIQUE_MARKER } from './load-client.js';
import type { ServerResources } from './process-sampler.js';
import { runSseHoldInWorker } from './run-sse-hold-in-worker.js';
import { measureOursThenBaseline, type ServerUnderTest } from './servers.js';

/** The scenario's name on the command line. */
export const HOLD_SCENARIO = 'sse-hold';

/** Settings of sse-hold. */
export interface HoldSettings {
  streams: number;
  /** How long every stream is held once all are open. */
  holdMs: number;
  /** Streams being opened (waiting for their first byte) at once. */
  concurrency: number;
  openTimeoutMs: number;
  inProcess: boolean;
  target: { url: string; token: string } | null;
  /** Also run the bare uWS baseline (default true). */
  baseline?: boolean;
  /** Told what is happening (phases, progress while opening). */
  onStep?: (text: string) => void;
}

/** One target's held streams. */
export interface HoldRow {
  name: string;
  role: 'ours' | 'baseline';
  streams: number;
  opened: number;
  failed: number;
  /** Request sent → first body byte. */
  openMs: LatencySummary;
  openSeconds: number;
  holdSeconds: number;
  /** Streams that got an event in the hold's last LAST_WINDOW_MS. */
  delivering: number;
  eventsPerSecond: number;
  endedEarly: number;
  abortMs: number;
  /** After the abort: time to the first byte of one new stream (null: it did not answer). */
  answersAfterAbortMs: number | null;
  server: {
    rssMbBefore: number;
    rssMbHeldMax: number;
    rssKbPerStream: number;
    /** 2 s after the abort: what was given back. */
    rssMbAfterAbort: number | null;
    whileOpening: ServerResources | null;
    whileHeld: ServerResources | null;
  } | null;
  errors: Record<string, number>;
  errorSamples: Record<string, string>;
  clientWhileOpening: ThreadLoad;
  clientWhileHeld: ThreadLoad;
}

/** What sse-hold measured. */
export interface HoldReport {
  scenario: typeof HOLD_SCENARIO;
  settings: Omit<HoldSettings, 'target' | 'onStep'> & {
    target: string | null;
    lastWindowMs: number;
    replyWords: number;
  };
  rows: HoldRow[];
}

/** A stream still delivers if it got an event this close to the hold's end (events come every second). */
const LAST_WINDOW_MS = 3000;

/** Words in the scripted reply at one a second: the hold, plus the opening at a pessimistic 100 streams/s, plus a minute. */
function replyWords(s: HoldSettings): number {
  return Math.ceil(s.holdMs / 1000 + s.streams / 100 + 60);
}

/** The request: a unique prompt (the response cache never answers) and a sim slow enough to outlast the hold. */
function holdBody(words: number): string {
  return JSON.stringify({
    model: 'pro-1',
    messages: [{ role: 'user', content: `Hold this stream open, request ${UNIQUE_MARKER}.` }],
    max_tokens: 4 * words,
    stream: true,
    metadata: { sim: { ttft_ms: 0, tokens_per_s: 1, reply: Array.from({ length: words }, () => 'tick').join(' ') } },
  });
}

/** Time to the first body byte of one new stream, or null if none came within 30 s. */
async function firstByteMs(server: ServerUnderTest, body: string): Promise<number | null> {
  const started = performance.now();
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 30_000);
  try {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(server.token ? { authorization: `Bearer ${server.token}` } : {}),
    };
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: body.replace(UNIQUE_MARKER, 'after-abort'),
      signal: abort.signal,
    });
    const first = await res.body?.getReader().read();
    return res.status === 200 && first && !first.done ? Math.round((performance.now() - started) * 10) / 10 : null;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** Opens the streams on `server`, holds them, aborts them, and reads the server's memory on the way. */
async function measure(
  server: ServerUnderTest,
  name: string,
  role: HoldRow['role'],
  s: HoldSettings,
): Promise<HoldRow> {
  const step = (text: string) => s.onStep?.(`${HOLD_SCENARIO}: ${name}: ${text}`);
  const body = holdBody(replyWords(s));
  const before = serverRss(server);
  const opening = serverSampler(server);
  opening?.start();
  let lastPrint = performance.now();
  const run = runSseHoldInWorker(
    {
      origin: server.url,
      headers: server.token ? { authorization: `Bearer ${server.token}` } : {},
      body,
      streams: s.streams,
      concurrency: s.concurrency,
      holdMs: s.holdMs,
      lastWindowMs: LAST_WINDOW_MS,
      openTimeoutMs: s.openTimeoutMs,
    },
    Math.max(120_000, s.streams * 20) + s.holdMs + 60_000,
    (opened, failed) => {
      if (performance.now() - lastPrint < 5000) return;
      lastPrint = performance.now();
      step(`${opened.toLocaleString('en-US')} / ${s.streams.toLocaleString('en-US')} streams open, ${failed} failed`);
    },
  );
  try {
    const opened = await run.opened;
    const whileOpening = opening?.stop() ?? null;
    step(`${opened.opened.toLocaleString('en-US')} streams open; holding ${s.holdMs / 1000} s`);
    const holding = serverSampler(server);
    holding?.start();
    await run.held;
    const whileHeld = holding?.stop() ?? null;
    const stats = await run.result;
    await sleep(2000); // let the server finish the cancellations before reading what it gave back
    const afterAbort = serverRss(server);
    const answersAfterAbortMs = await firstByteMs(server, body);
    const heldMax = (whileHeld?.rssMbMax ?? 0) * 1024 ** 2;
    return {
      name,
      role,
      streams: s.streams,
      opened: stats.opened,
      failed: stats.failed,
      openMs: new Histogram(stats.openMs).summary(),
      openSeconds: Math.round(stats.openWindowMs / 100) / 10,
      holdSeconds: Math.round(stats.holdMs / 100) / 10,
      delivering: stats.delivering,
      eventsPerSecond: stats.eventsPerSecond,
      endedEarly: stats.endedEarly,
      abortMs: stats.abortMs,
      answersAfterAbortMs,
      server:
        before === null
          ? null
          : {
              rssMbBefore: mb(before),
              rssMbHeldMax: mb(heldMax),
              rssKbPerStream: stats.opened ? Math.round(((heldMax - before) / 1024 / stats.opened) * 10) / 10 : 0,
              rssMbAfterAbort: afterAbort === null ? null : mb(afterAbort),
              whileOpening,
              whileHeld,
            },
      errors: stats.errors.counts,
      errorSamples: stats.errors.samples,
      clientWhileOpening: stats.clientWhileOpening,
      clientWhileHeld: stats.clientWhileHeld,
    };
  } finally {
    run.stop();
  }
}

/** Runs sse-hold on the gateway (or --target), then on the bare uWS baseline. */
export async function runSseHold(s: HoldSettings): Promise<HoldReport> {
  assertFilesFor(s.streams, HOLD_SCENARIO);
  const rows = await measureOursThenBaseline(
    {
      target: s.target,
      inProcess: s.inProcess,
      baseline: s.baseline !== false ? { server: { kind: 'uws-sse-hold' }, name: 'bare uWS SSE hold' } : null,
    },
    (server, rowName, role) => measure(server, rowName, role, s),
  );
  const settings = {
    streams: s.streams,
    holdMs: s.holdMs,
    concurrency: s.concurrency,
    openTimeoutMs: s.openTimeoutMs,
    inProcess: s.inProcess,
    baseline: s.baseline !== false,
  };
  return {
    scenario: HOLD_SCENARIO,
    settings: { ...settings, target: s.target?.url ?? null, lastWindowMs: LAST_WINDOW_MS, replyWords: replyWords(s) },
    rows,
  };
}
