// The sse-hold client (runs in a worker): opens N streaming chat completions a few hundred at a
// time, holds them all while counting every event, then aborts them all at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'undici';
import { SseDecoder } from '../../protocols/sse-decoder.js';
import { ErrorTally, type ErrorCounts } from '../realtime/error-tally.js';
import { meterThread, type ThreadLoad } from '../realtime/thread-meter.js';
import { Histogram, type HistogramData } from './histogram.js';
import { UNIQUE_MARKER } from './load-client.js';

/** One sse-hold run against one server. */
export interface HoldOptions {
  /** The server's origin, e.g. `http://127.0.0.1:8080`. */
  origin: string;
  headers: Record<string, string>;
  /** The JSON body; UNIQUE_MARKER in it becomes the stream's index, so every prompt is new. */
  body: string;
  streams: number;
  /** Streams being opened at once. */
  concurrency: number;
  /** How long every stream is held once all are open. */
  holdMs: number;
  /** A stream is still delivering if it got an event within this much of the hold's end. */
  lastWindowMs: number;
  /** Time to first body byte allowed per stream. */
  openTimeoutMs: number;
}

/** Where a run is: sent while opening (every second), then once all opened, then at the hold's end. */
export type HoldPhase = { phase: 'opening' | 'opened'; opened: number; failed: number } | { phase: 'held' };

/** What the client saw. */
export interface HoldStats {
  streams: number;
  opened: number;
  failed: number;
  /** Request sent → first body byte, per opened stream. */
  openMs: HistogramData;
  openWindowMs: number;
  holdMs: number;
  /** Streams open at the hold's end that received an event in its last `lastWindowMs`. */
  delivering: number;
  /** Events received (all streams) during the hold, and per second. */
  holdEvents: number;
  eventsPerSecond: number;
  /** Streams that ended or broke before the abort. */
  endedEarly: number;
  /** Time to destroy every client (the abort). */
  abortMs: number;
  errors: ErrorCounts;
  clientWhileOpening: ThreadLoad;
  clientWhileHeld: ThreadLoad;
}

interface Stream {
  decoder: SseDecoder;
  status: number;
  /** performance.now() of the last event, 0 before any. */
  lastEventAt: number;
  done: boolean;
}

function errorKind(err: unknown): string {
  const code = (err as { code?: string }).code ?? 'unknown';
  return code.includes('TIMEOUT') ? `timeout:${code}` : `network:${code}`;
}

/**
 * Opens `streams` SSE requests (one undici Client each, `concurrency` waiting for their first byte
 * at a time), holds them `holdMs`, then destroys every client (the server sees them all abort).
 */
export async function runHold(options: HoldOptions, onPhase: (phase: HoldPhase) => void): Promise<HoldStats> {
  const url = new URL(options.origin);
  const errors = new ErrorTally();
  const openMs = new Histogram();
  const streams: Stream[] = [];
  const clients: Client[] = [];
  let holding = false;
  let holdEvents = 0;
  let opened = 0;
  let failed = 0;

  const fail = (stream: Stream, kind: string, detail: string) => {
    if (stream.done) return;
    stream.done = true;
    errors.count(kind, detail);
  };
  // Resolves once the stream's first body byte arrived or it failed, so the next one may start.
  const open = (index: number) =>
    new Promise<void>((settle) => {
      const client = new Client(url.origin, {
        pipelining: 1,
        connectTimeout: options.openTimeoutMs,
        keepAliveTimeout: 1000,
      });
      clients.push(client);
      const sent = performance.now();
      let first = true;
      const failedBody: Buffer[] = [];
      const stream: Stream = {
        status: 0,
        lastEventAt: 0,
        done: false,
        decoder: new SseDecoder(() => {
          stream.lastEventAt = performance.now();
          if (holding) holdEvents++;
        }),
      };
      streams.push(stream);
      const firstByte = (ok: boolean) => {
        if (!first) return;
        first = false;
        if (ok) {
          opened++;
          openMs.record(performance.now() - sent);
        } else failed++;
        settle();
      };
      client.dispatch(
        {
          path: '/v1/chat/completions',
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...options.headers },
          body: options.body.replace(UNIQUE_MARKER, String(index)),
          headersTimeout: options.openTimeoutMs,
          bodyTimeout: 0,
        },
        {
          onRequestStart() {
            // undici takes a handler as new-style (controller API) only when this is present
          },
          onResponseStart(_controller, statusCode) {
            stream.status = statusCode;
          },
          onResponseData(_controller, chunk) {
            if (stream.status !== 200) return void failedBody.push(chunk);
            firstByte(true);
            stream.decoder.push(chunk);
          },
          onResponseEnd() {
            if (stream.status !== 200)
              fail(stream, `status:${stream.status}`, Buffer.concat(failedBody).toString('utf8'));
            else fail(stream, 'ended-early', `stream ended after ${Math.round(performance.now() - sent)} ms`);
            firstByte(false);
          },
          onResponseError(_controller, err) {
            fail(stream, errorKind(err), err.message);
            firstByte(false);
          },
        },
      );
    });

  const stopOpening = meterThread();
  const openStart = performance.now();
  const progress = setInterval(() => onPhase({ phase: 'opening', opened, failed }), 1000);
  let next = 0;
  const lane = async () => {
    while (next < options.streams) await open(next++);
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.streams) }, lane));
  clearInterval(progress);
  const openWindowMs = performance.now() - openStart;
  const clientWhileOpening = stopOpening();
  onPhase({ phase: 'opened', opened, failed });

  const stopHolding = meterThread();
  const holdStart = performance.now();
  holding = true;
  await sleep(options.holdMs);
  holding = false;
  const holdEnd = performance.now();
  const clientWhileHeld = stopHolding();
  onPhase({ phase: 'held' });
  const delivering = streams.filter((s) => !s.done && s.lastEventAt >= holdEnd - options.lastWindowMs).length;
  const endedEarly = streams.filter((s) => s.done).length - failed;

  // The abort: every stream still open is cut at once, as a crowd of clients leaving would.
  for (const stream of streams) stream.done = true;
  const abortStart = performance.now();
  await Promise.all(clients.map((client) => client.destroy().catch(() => undefined)));
  const abortMs = performance.now() - abortStart;
  const holdMs = holdEnd - holdStart;
  return {
    streams: options.streams,
    opened,
    failed,
    openMs: openMs.data,
    openWindowMs: Math.round(openWindowMs),
    holdMs: Math.round(holdMs),
    delivering,
    holdEvents,
    eventsPerSecond: Math.round((holdEvents * 1000) / Math.max(1, holdMs)),
    endedEarly,
    abortMs: Math.round(abortMs),
    errors: errors.data,
    clientWhileOpening,
    clientWhileHeld,
  };
}
