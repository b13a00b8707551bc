// A realtime test client on the `ws` package: asks for a ticket, connects, records every server
// event, and waits for the next event of a type.
import WebSocket from 'ws';
import type { TestServer } from './harness.js';

/** A server event as received. */
export type ServerEvent = { type: string; event_id: string } & Record<string, any>;

/** One connected call. */
export interface RealtimeClient {
  ws: WebSocket;
  /** Every event received so far, in order. */
  events: ServerEvent[];
  send(event: Record<string, unknown>): void;
  /** The next event of `type` not yet taken by an earlier `next` (waits up to `timeoutMs`). */
  next(type: string, timeoutMs?: number): Promise<ServerEvent>;
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** A fresh ticket for `token`; fails the test unless 200. */
export async function ticketFor(server: TestServer, token: string): Promise<string> {
  const res = await server.request('POST', '/v1/realtime/ticket', { token });
  if (res.status !== 200) throw new Error(`ticket: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.ticket as string;
}

/** The ws URL of the realtime endpoint with `ticket`. */
export function realtimeUrl(server: TestServer, ticket: string | null): string {
  const base = server.url.replace(/^http/, 'ws') + '/v1/realtime';
  return ticket === null ? base : `${base}?ticket=${encodeURIComponent(ticket)}`;
}

/** Tries an upgrade and reports the HTTP refusal (status and JSON body), or `opened`. */
export function tryUpgrade(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any } | 'opened'> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('opened');
    });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || 'null') }));
    });
    ws.on('error', (err) => reject(err));
  });
}

/** Connects a call for `token` (a new ticket each time). */
export async function connectCall(
  server: TestServer,
  token: string,
  protocols: string[] = [],
): Promise<RealtimeClient> {
  const ws = new WebSocket(realtimeUrl(server, await ticketFor(server, token)), protocols);
  const events: ServerEvent[] = [];
  const taken = new Set<number>();
  let waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    events.push(JSON.parse((data as Buffer).toString('utf8')) as ServerEvent);
    const current = waiters;
    waiters = [];
    for (const wake of current) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    events,
    send: (event) => ws.send(JSON.stringify(event)),
    async next(type, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = events.findIndex((event, i) => event.type === type && !taken.has(i));
        if (index >= 0) {
          taken.add(index);
          return events[index]!;
        }
        if (ws.readyState === WebSocket.CLOSED)
          throw new Error(`socket closed while waiting for ${type}; got ${events.map((e) => e.type).join(', ')}`);
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`no ${type} within ${timeoutMs} ms; got ${events.map((e) => e.type).join(', ')}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    closed,
    close: () => ws.close(),
  };
}

/** `audio` sent as input_audio_buffer.append messages of `chunkMs`. */
export function appendAudio(client: RealtimeClient, audio: Buffer, chunkMs = 40): void {
  const step = 48 * chunkMs;
  for (let at = 0; at < audio.length; at += step)
    client.send({ type: 'input_audio_buffer.append', audio: audio.subarray(at, at + step).toString('base64') });
}

/** `ms` of digital silence as PCM16 at 24 kHz. */
export function silence(ms: number): Buffer {
  return Buffer.alloc(48 * ms);
}
