// Closed-loop session load: each lane creates a session (POST /v1/chat/sessions) and follows its
// events (GET …/events from seq 0) until the stream ends, then starts the next one. A session
// counts when its stream ends with `completed`; its latency is create sent → last event received.
import { Client } from 'undici';
import { SseDecoder } from '../../protocols/sse-decoder.js';
import { Histogram, type HistogramData } from '../load/histogram.js';

export interface SessionLoadOptions {
  origin: string;
  token: string;
  /** Sessions in flight (one keep-alive connection each). */
  connections: number;
  durationMs: number;
  warmupMs: number;
  timeoutMs: number;
  /** The request body of session `n` (make each distinct). */
  body: (n: number) => unknown;
}

/** What a session load run measured (only sessions that ended inside the measured window count). */
export interface SessionLoadStats {
  sessions: number;
  errors: Record<string, number>;
  errorSamples: Record<string, string>;
  windowMs: number;
  latency: HistogramData;
}

type Outcome = { ok: true } | { ok: false; kind: string; detail: string };

async function oneSession(client: Client, options: SessionLoadOptions, n: number): Promise<Outcome> {
  const headers = { authorization: `Bearer ${options.token}` };
  const created = await client.request({
    path: '/v1/chat/sessions',
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(options.body(n)),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const text = await created.body.text();
  if (created.statusCode !== 201)
    return { ok: false, kind: `create:${created.statusCode}`, detail: text.slice(0, 300) };
  const id = (JSON.parse(text) as { id: string }).id;
  const events = await client.request({
    path: `/v1/chat/sessions/${id}/events`,
    method: 'GET',
    headers: { ...headers, 'last-event-id': '0' },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  if (events.statusCode !== 200)
    return { ok: false, kind: `events:${events.statusCode}`, detail: (await events.body.text()).slice(0, 300) };
  let last = '';
  const decoder = new SseDecoder((event) => {
    if (event.event) last = event.event;
  });
  for await (const chunk of events.body as AsyncIterable<Buffer>) decoder.push(chunk);
  decoder.end();
  return last === 'completed'
    ? { ok: true }
    : {
        ok: false,
        kind: `ended:${last || 'empty'}`,
        detail: `session ${id} ended its stream after ${last || 'no event'}`,
      };
}

/** Runs `connections` lanes of sessions for `warmupMs + durationMs`, then waits (up to `timeoutMs`) for those in flight. */
export async function runSessionLoad(options: SessionLoadOptions): Promise<SessionLoadStats> {
  const latency = new Histogram();
  const errors: Record<string, number> = {};
  const errorSamples: Record<string, string> = {};
  let sessions = 0;
  let counter = 0;
  const t0 = performance.now();
  const measureStart = t0 + options.warmupMs;
  const measureEnd = measureStart + options.durationMs;
  const clients = Array.from(
    { length: options.connections },
    () => new Client(options.origin, { pipelining: 1, keepAliveTimeout: 60_000, connectTimeout: options.timeoutMs }),
  );
  const lane = async (client: Client) => {
    while (performance.now() < measureEnd) {
      const sent = performance.now();
      let outcome: Outcome;
      try {
        outcome = await oneSession(client, options, ++counter);
      } catch (err) {
        const e = err as { code?: string; message?: string };
        outcome = { ok: false, kind: `network:${e.code ?? 'unknown'}`, detail: String(e.message ?? err).slice(0, 200) };
      }
      const end = performance.now();
      if (end < measureStart || end > measureEnd) continue;
      if (outcome.ok) {
        sessions++;
        latency.record(end - sent);
      } else {
        errors[outcome.kind] = (errors[outcome.kind] ?? 0) + 1;
        errorSamples[outcome.kind] ??= outcome.detail;
        if (outcome.kind.startsWith('network:')) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  try {
    await Promise.all(clients.map(lane));
  } finally {
    await Promise.all(clients.map((client) => client.destroy().catch(() => undefined)));
  }
  return { sessions, errors, errorSamples, windowMs: Math.round(options.durationMs), latency: latency.data };
}
