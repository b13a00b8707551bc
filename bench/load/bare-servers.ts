// Baseline servers doing the least possible same work as the gateway's chat route: read the
// whole request body and answer fixed bytes (a real chat completion or SSE stream captured from
// the gateway), with no parsing, auth, billing or backend.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { uws } from '../../http/uws.js';
import { listenUws } from './listen-uws.js';
import { startBareFanout } from './bare-fanout.js';
import { startBareSseHold } from './bare-sse-hold.js';
import { startBareRealtime } from '../realtime/bare-realtime.js';

/**
 * Which baseline: bare uWS answering JSON, bare node:http answering JSON, bare uWS writing SSE,
 * bare uWS fanning SSE out (bare-fanout.ts), bare uWS taking PUT bodies and dropping them (uploads),
 * bare uWS WebSockets holding idle calls or streaming audio frames (realtime/bare-realtime.ts),
 * bare uWS holding SSE streams open with one event a second each (bare-sse-hold.ts).
 */
export type BareKind =
  | 'uws-json'
  | 'node-http-json'
  | 'uws-sse'
  | 'uws-fanout'
  | 'uws-sink'
  | 'uws-ws-idle'
  | 'uws-ws-audio'
  | 'uws-sse-hold';

/** What a baseline answers on POST /v1/chat/completions. */
export interface BareServerOptions {
  kind: BareKind;
  /** `*-json`: the response body. */
  body?: string;
  /** `uws-sse`: the events, each a complete `data: …\n\n` block, written one `write()` each. */
  events?: string[];
}

/** A listening server that can be closed. */
export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

const PATH = '/v1/chat/completions';

function startUws(options: BareServerOptions, host: string): Promise<RunningServer> {
  const body = options.body ?? '{}';
  const events = options.events ?? ['data: [DONE]\n\n'];
  const app = uws.App().post(PATH, (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const parts: Buffer[] = [];
    res.onData((chunk, isLast) => {
      parts.push(Buffer.from(chunk.slice(0))); // the ArrayBuffer is only valid during this call
      if (!isLast || aborted) return;
      Buffer.concat(parts);
      res.cork(() => {
        if (options.kind === 'uws-json') {
          res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(body);
          return;
        }
        res
          .writeStatus('200 OK')
          .writeHeader('content-type', 'text/event-stream')
          .writeHeader('cache-control', 'no-cache');
        for (const event of events) res.write(event);
        res.end();
      });
    });
  });
  app.any('/*', (res) => void res.writeStatus('404 Not Found').end());
  return listenUws(app, host, 'bare uWS');
}

function startNodeHttp(options: BareServerOptions, host: string): Promise<RunningServer> {
  const body = Buffer.from(options.body ?? '{}');
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      Buffer.concat(parts);
      if (req.method !== 'POST' || req.url !== PATH) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Any PUT: counts the body's bytes (copying each chunk, as a real receiver must) and answers them. */
function startUwsSink(host: string): Promise<RunningServer> {
  const app = uws.App().put('/*', (res) => {
    let aborted = false;
    let bytes = 0;
    res.onAborted(() => (aborted = true));
    res.onData((chunk, isLast) => {
      bytes += Buffer.from(chunk.slice(0)).length;
      if (isLast && !aborted)
        res.cork(() =>
          res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(`{"bytes":${bytes}}`),
        );
    });
  });
  app.any('/*', (res) => void res.writeStatus('404 Not Found').end());
  return listenUws(app, host, 'bare uWS sink');
}

/** Starts one baseline server on an ephemeral loopback port in this process. */
export function startBareServer(options: BareServerOptions, host = '127.0.0.1'): Promise<RunningServer> {
  if (options.kind === 'uws-fanout') return startBareFanout(host);
  if (options.kind === 'uws-sink') return startUwsSink(host);
  if (options.kind === 'uws-sse-hold') return startBareSseHold(host);
  if (options.kind === 'uws-ws-idle' || options.kind === 'uws-ws-audio') return startBareRealtime(options.kind, host);
  return options.kind === 'node-http-json' ? startNodeHttp(options, host) : startUws(options, host);
}
