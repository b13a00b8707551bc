import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** One request as the fuzzer sends it: raw path (not normalised by a URL parser) and raw body bytes. */
export interface WireRequest {
  method: string;
  /** The request target exactly as sent, query included. */
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** Send the body with chunked transfer encoding, in two writes, instead of Content-Length. */
  chunked?: boolean;
  /** A `text/event-stream` 200 may stay open by design: stop reading after its headers. */
  openEnded?: boolean;
  /** Ask for a WebSocket upgrade; a 101 is recorded and the socket closed at once. */
  upgrade?: boolean;
  /** Use a new connection instead of the keep-alive pool. */
  fresh?: boolean;
  /** A caller's label (the request index), remembered per socket to blame stale keep-alive sockets. */
  tag?: number;
}

/** What came back, or why nothing did. */
export interface WireResponse {
  status: number | null;
  headers: IncomingHttpHeaders;
  /** The body, cut at `maxBodyBytes`. */
  body: Buffer;
  bodyBytes: number;
  /** Set when no complete response arrived: timeout, reset, hang-up. */
  error: string | null;
  /** True when the socket was reused from an earlier request (keep-alive). */
  reusedSocket: boolean;
  /** The tag of the request that used this socket before, when it was reused. */
  previousTag: number | null;
}

/** Options of {@link createSender}. */
export interface SenderOptions {
  host: string;
  port: number;
  /** Per-request bound; past it the request is destroyed and reported (not a timing assertion). */
  timeoutMs: number;
  maxSockets: number;
  maxBodyBytes?: number;
}

/** Sends raw requests over a keep-alive agent; the socket of each request is reported for blame. */
export interface Sender {
  send(request: WireRequest): Promise<WireResponse>;
  close(): void;
}

/** A node:http sender with keep-alive, a per-request timeout and bounded response capture. */
export function createSender(options: SenderOptions): Sender {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets });
  const keep = options.maxBodyBytes ?? 256 * 1024;
  const lastTag = new WeakMap<object, number>();

  const send = (wire: WireRequest): Promise<WireResponse> =>
    new Promise((resolve) => {
      let settled = false;
      const result: WireResponse = {
        status: null,
        headers: {},
        body: Buffer.alloc(0),
        bodyBytes: 0,
        error: null,
        reusedSocket: false,
        previousTag: null,
      };
      const done = (error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error && result.error === null) result.error = error;
        resolve(result);
      };
      const headers: Record<string, string | string[]> = { ...wire.headers };
      if (wire.body && !wire.chunked) headers['content-length'] = String(wire.body.length);
      if (wire.chunked) headers['transfer-encoding'] = 'chunked';
      let req: ReturnType<typeof httpRequest>;
      try {
        req = httpRequest({
          host: options.host,
          port: options.port,
          method: wire.method,
          path: wire.path,
          headers,
          agent: wire.upgrade || wire.fresh ? false : agent,
        });
      } catch (err) {
        // The client library refused to send it (an invalid header character): a generator bug, not a server failure.
        resolve({ ...result, error: `client refused: ${(err as Error).message}` });
        return;
      }
      const timer = setTimeout(() => {
        req.destroy(new Error(`no complete response within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      req.on('socket', (socket) => {
        result.reusedSocket = req.reusedSocket;
        if (req.reusedSocket) result.previousTag = lastTag.get(socket) ?? null;
        if (wire.tag !== undefined) lastTag.set(socket, wire.tag);
      });
      req.on('upgrade', (res, socket) => {
        result.status = res.statusCode ?? 101;
        result.headers = res.headers;
        socket.destroy();
        done(null);
      });
      req.on('response', (res) => {
        result.status = res.statusCode ?? null;
        result.headers = res.headers;
        const chunks: Buffer[] = [];
        let kept = 0;
        if (
          wire.openEnded &&
          res.statusCode === 200 &&
          String(res.headers['content-type']).startsWith('text/event-stream')
        ) {
          res.destroy();
          done(null);
          return;
        }
        res.on('data', (chunk: Buffer) => {
          result.bodyBytes += chunk.length;
          if (kept < keep) {
            chunks.push(chunk.subarray(0, keep - kept));
            kept += Math.min(chunk.length, keep - kept);
          }
        });
        res.on('end', () => {
          result.body = Buffer.concat(chunks);
          done(null);
        });
        res.on('error', (err) => {
          result.body = Buffer.concat(chunks);
          done(`response aborted: ${err.message}`);
        });
        res.on('close', () => {
          if (res.complete) return;
          result.body = Buffer.concat(chunks);
          done('the connection closed before the response was complete');
        });
      });
      req.on('error', (err) => done(`${(err as NodeJS.ErrnoException).code ?? 'error'}: ${err.message}`));
      if (wire.chunked && wire.body) {
        const half = Math.floor(wire.body.length / 2);
        req.write(wire.body.subarray(0, half));
        req.end(wire.body.subarray(half));
      } else {
        req.end(wire.body);
      }
    });

  return { send, close: () => agent.destroy() };
}
