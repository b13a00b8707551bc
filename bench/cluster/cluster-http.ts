// The cluster scenario's client calls: JSON requests, accounts through the admin API, and a
// session follower on GET /v1/chat/sessions/{id}/events that timestamps every event on arrival.
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { SseDecoder } from '../../protocols/sse-decoder.js';

/** Now as epoch ms with sub-millisecond resolution (comparable with the server's `ts`, same machine clock). */
export const wallNow = () => performance.timeOrigin + performance.now();

/** One JSON request; the body parsed when it is JSON. */
export async function callJson(
  origin: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  timeoutMs = 15_000,
): Promise<{ status: number; body: any }> {
  const res = await request(`${origin}${path}`, {
    method: method as 'GET',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = await res.body.text();
  try {
    return { status: res.statusCode, body: JSON.parse(text) };
  } catch {
    return { status: res.statusCode, body: text };
  }
}

/** An account with `creditUsd` through POST /admin/v1/accounts (no tier caps), and its API token. */
export async function createAccount(
  origin: string,
  adminKey: string,
  creditUsd = 1_000_000,
): Promise<{ id: string; token: string }> {
  const created = await callJson(origin, 'POST', '/admin/v1/accounts', adminKey, {
    email: `bench-cluster-${randomBytes(5).toString('hex')}@example.com`,
    password: 'bench password 123',
    credit_usd: creditUsd,
  });
  if (created.status !== 201 || !created.body?.api_token?.token)
    throw new Error(`account creation failed: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
  return { id: created.body.account.id, token: created.body.api_token.token };
}

/** One session event as a follower received it. */
export interface FollowedEvent {
  seq: number;
  type: string;
  /** The server's `ts` (epoch ms, whole). */
  ts: number;
  data: Record<string, unknown>;
  /** When the chunk that completed it arrived (epoch ms, sub-millisecond). */
  at: number;
}

/** What one follow saw. */
export interface FollowResult {
  /** The answer's status (0: no answer, `error` says why). */
  status: number;
  events: FollowedEvent[];
  /** The stream ended by the server (the run ended, or the connection was cut). */
  ended: boolean;
  /** Stopped by `onEvent` returning `'stop'`. */
  stopped: boolean;
  error: string | null;
}

/**
 * Follows a session's events on `origin` after `after` (sent as Last-Event-ID) until the stream
 * ends, breaks, `timeoutMs` passes without a byte, or `onEvent` returns `'stop'`.
 */
export async function followSession(
  origin: string,
  id: string,
  token: string,
  after: number,
  options: { onEvent?: (event: FollowedEvent) => void | 'stop'; timeoutMs?: number } = {},
): Promise<FollowResult> {
  const events: FollowedEvent[] = [];
  const controller = new AbortController();
  let stopped = false;
  let at = 0;
  const decoder = new SseDecoder((sse) => {
    if (stopped) return;
    let parsed: { seq?: unknown; type?: unknown; ts?: unknown; data?: unknown };
    try {
      parsed = JSON.parse(sse.data) as typeof parsed;
    } catch {
      return;
    }
    if (typeof parsed.seq !== 'number' || typeof parsed.ts !== 'number') return;
    const event: FollowedEvent = {
      seq: parsed.seq,
      type: String(parsed.type),
      ts: parsed.ts,
      data: (parsed.data ?? {}) as Record<string, unknown>,
      at,
    };
    events.push(event);
    if (options.onEvent?.(event) === 'stop') {
      stopped = true;
      controller.abort();
    }
  });
  const timeoutMs = options.timeoutMs ?? 30_000;
  let status = 0;
  try {
    const res = await request(`${origin}/v1/chat/sessions/${id}/events`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': String(after) },
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    status = res.statusCode;
    if (status !== 200) return { status, events, ended: false, stopped, error: (await res.body.text()).slice(0, 300) };
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      at = wallNow();
      decoder.push(chunk);
      if (stopped) break;
    }
    return { status, events, ended: !stopped, stopped, error: null };
  } catch (err) {
    if (stopped) return { status, events, ended: false, stopped, error: null };
    return {
      status,
      events,
      ended: false,
      stopped,
      error: (err as { code?: string; message?: string }).code ?? String((err as Error).message ?? err),
    };
  }
}
