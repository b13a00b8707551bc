// Opens realtime calls the way a client does: a ticket from POST /v1/realtime/ticket (API token,
// undici keep-alive pool), then the WebSocket upgrade with `?ticket=…&svc_timing=1`, then
// `session.created`. A fixed number of lanes each open one call after another, so at most
// `concurrency` opens are in flight and each ticket is fetched just before its socket opens (a
// ticket lives 60 s; opening 10,000 calls can take longer than that).
import { Pool } from 'undici';
import WebSocket from 'ws';
import { Histogram, type HistogramData } from '../load/histogram.js';
import type { ErrorTally } from './error-tally.js';

/** Where calls go: the gateway with its API token, or a bare baseline (no ticket). */
export interface CallTarget {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  url: string;
  token: string | null;
}

/** How many calls to open, and how patiently. */
export interface OpenSettings {
  target: CallTarget;
  count: number;
  concurrency: number;
  /** Ticket, upgrade and session.created of one call within this. */
  callTimeoutMs: number;
  /** No call is started after this many ms (those left count as `not-started:open-deadline`). */
  deadlineMs: number;
}

/** What opening produced: a socket per call (null when it failed) and how long it took. */
export interface OpenedCalls {
  sockets: (WebSocket | null)[];
  opened: number;
  /** `new WebSocket` to `session.created` received, per opened call. */
  connectMs: HistogramData;
  /** POST /v1/realtime/ticket round trip, per ticket. */
  ticketMs: HistogramData;
  /** From the first ticket to the last call settled. */
  windowMs: number;
}

const REALTIME_PATH = '/v1/realtime';

function socketUrl(target: CallTarget, ticket: string | null): string {
  const query = ticket === null ? 'svc_timing=1' : `ticket=${encodeURIComponent(ticket)}&svc_timing=1`;
  return `${target.url.replace(/^http/, 'ws')}${REALTIME_PATH}?${query}`;
}

async function fetchTicket(
  pool: Pool,
  token: string,
  timeoutMs: number,
): Promise<{ ticket: string } | { kind: string; detail: string }> {
  try {
    const res = await pool.request({
      method: 'POST',
      path: '/v1/realtime/ticket',
      headers: { authorization: `Bearer ${token}` },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) return { kind: `ticket:status:${res.statusCode}`, detail: text };
    return { ticket: (JSON.parse(text) as { ticket: string }).ticket };
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'unknown';
    return { kind: `ticket:network:${code}`, detail: String((err as Error).message ?? err) };
  }
}

/** Kind of an error the `ws` client emits before the socket opened. */
function upgradeErrorKind(err: Error & { code?: string }): string {
  const status = /Unexpected server response: (\d+)/.exec(err.message)?.[1];
  if (status) return `upgrade:status:${status}`;
  return err.message.includes('Opening handshake has timed out')
    ? 'timeout:upgrade'
    : `network:${err.code ?? 'unknown'}`;
}

/** Opens one socket and resolves once `session.created` arrived (or with why not). */
function openSocket(url: string, timeoutMs: number): Promise<{ ws: WebSocket } | { kind: string; detail: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: timeoutMs });
    let settled = false;
    const settle = (result: { ws: WebSocket } | { kind: string; detail: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ws.removeAllListeners('close');
      if (!('ws' in result)) {
        ws.removeAllListeners('message');
        ws.terminate();
      }
      resolve(result);
    };
    const timer = setTimeout(
      () => settle({ kind: 'timeout:session.created', detail: `no session.created within ${timeoutMs} ms` }),
      timeoutMs,
    );
    // An error after the call opened is the scenario's to count: keep a listener so it never throws.
    ws.on('error', (err) => settle({ kind: upgradeErrorKind(err), detail: err.message }));
    ws.once('close', (code, reason) => settle({ kind: `closed-before-session:${code}`, detail: reason.toString() }));
    ws.once('message', (data: Buffer) => {
      const text = data.toString();
      const type = /"type":"([^"]+)"/.exec(text)?.[1] ?? 'unparsed';
      if (type === 'session.created') settle({ ws });
      else
        settle({
          kind: `first-event:${type === 'error' ? `error:${/"code":"([^"]+)"/.exec(text)?.[1] ?? '?'}` : type}`,
          detail: text,
        });
    });
  });
}

/**
 * Opens `count` calls with `concurrency` lanes. `attach` gets each socket right after its
 * `session.created`, to install the scenario's own handlers; failures are counted in `errors`.
 * `onProgress` is told the count opened and failed about once a second.
 */
export async function openCalls(
  settings: OpenSettings,
  errors: ErrorTally,
  attach: (ws: WebSocket, index: number) => void,
  onProgress?: (opened: number, failed: number) => void,
): Promise<OpenedCalls> {
  const { target, count, callTimeoutMs } = settings;
  const pool = target.token
    ? new Pool(target.url, { connections: Math.min(32, settings.concurrency), pipelining: 1, keepAliveTimeout: 30_000 })
    : null;
  const sockets: (WebSocket | null)[] = new Array<WebSocket | null>(count).fill(null);
  const connect = new Histogram();
  const tickets = new Histogram();
  const started = performance.now();
  const deadline = started + settings.deadlineMs;
  let next = 0;
  let opened = 0;
  let failed = 0;
  const progress = setInterval(() => onProgress?.(opened, failed), 1000);
  const lane = async () => {
    while (next < count && performance.now() < deadline) {
      const index = next++;
      let ticket: string | null = null;
      if (pool) {
        const t0 = performance.now();
        const got = await fetchTicket(pool, target.token!, callTimeoutMs);
        tickets.record(performance.now() - t0);
        if (!('ticket' in got)) {
          errors.count(got.kind, got.detail);
          failed++;
          continue;
        }
        ticket = got.ticket;
      }
      const t0 = performance.now();
      const result = await openSocket(socketUrl(target, ticket), callTimeoutMs);
      if (!('ws' in result)) {
        errors.count(result.kind, result.detail);
        failed++;
        continue;
      }
      connect.record(performance.now() - t0);
      sockets[index] = result.ws;
      opened++;
      attach(result.ws, index);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(settings.concurrency, count) }, lane));
  } finally {
    clearInterval(progress);
    await pool?.close();
  }
  if (next < count)
    for (let i = next; i < count; i++)
      errors.count('not-started:open-deadline', `opening stopped after ${settings.deadlineMs} ms`);
  return {
    sockets,
    opened,
    connectMs: connect.data,
    ticketMs: tickets.data,
    windowMs: Math.round(performance.now() - started),
  };
}

/** Closes every open socket with 1000 and waits up to `timeoutMs` for the closes, then drops the rest. */
export async function closeCalls(sockets: (WebSocket | null)[], timeoutMs: number): Promise<void> {
  const open = sockets.filter((ws): ws is WebSocket => ws !== null && ws.readyState !== WebSocket.CLOSED);
  const closed = open.map((ws) => new Promise<void>((resolve) => ws.once('close', () => resolve())));
  for (const ws of open) ws.close(1000, 'bench done');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(closed), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  for (const ws of open) if (ws.readyState !== WebSocket.CLOSED) ws.terminate();
}
