// The session-fanout baseline: a bare uWS server doing the least possible same work as the
// gateway's session event stream. GET /events opens an SSE stream (no auth, no history, no actor);
// POST /publish {events: [{type, data}], end?} numbers the events, stamps `ts`, encodes them once
// and writes the same bytes to every open stream in one cork each (ending them with `end`).
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { uws } from '../../http/uws.js';
import { listenUws } from './listen-uws.js';
import type { RunningServer } from './bare-servers.js';

interface Published {
  events: { type: string; data: Record<string, unknown> }[];
  end?: boolean;
}

/** Starts the bare fan-out server on an ephemeral port of `host`. */
export function startBareFanout(host: string): Promise<RunningServer> {
  const streams = new Set<HttpResponse>();
  let seq = 0;
  const app = uws.App();
  app.get('/events', (res) => {
    res.onAborted(() => streams.delete(res));
    res.cork(() => {
      res
        .writeStatus('200 OK')
        .writeHeader('content-type', 'text/event-stream; charset=utf-8')
        .writeHeader('cache-control', 'no-cache');
      res.write(': hello\n\n');
    });
    streams.add(res);
  });
  app.post('/publish', (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const parts: Buffer[] = [];
    res.onData((chunk, isLast) => {
      parts.push(Buffer.from(chunk.slice(0))); // the ArrayBuffer is only valid during this call
      if (!isLast || aborted) return;
      const published = JSON.parse(Buffer.concat(parts).toString('utf8')) as Published;
      const ts = Date.now();
      let text = '';
      for (const event of published.events) {
        seq++;
        text += `id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ seq, type: event.type, ts, data: event.data })}\n\n`;
      }
      const followers = streams.size;
      for (const stream of streams) {
        stream.cork(() => {
          if (text) stream.write(text);
          if (published.end) stream.end();
        });
      }
      if (published.end) streams.clear();
      res.cork(
        () =>
          void res
            .writeStatus('200 OK')
            .writeHeader('content-type', 'application/json')
            .end(JSON.stringify({ seq, followers })),
      );
    });
  });
  app.any('/*', (res) => void res.writeStatus('404 Not Found').end());
  return listenUws(app, host, 'bare uWS fan-out');
}
