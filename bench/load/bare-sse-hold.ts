// The sse-hold baseline: a bare uWS server holding SSE streams open. POST /v1/chat/completions
// reads the body, answers SSE headers and one event, then one timer writes one small chunk per
// second to every open stream (each in its own cork) until the client leaves. No auth, no
// parsing, no backend: the memory floor of an open stream.
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { uws } from '../../http/uws.js';
import { listenUws } from './listen-uws.js';
import type { RunningServer } from './bare-servers.js';

// About the size of one of the gateway's content chunks.
const EVENT = `data: ${JSON.stringify({ id: 'chatcmpl-bare', object: 'chat.completion.chunk', created: 0, model: 'pro-1', choices: [{ index: 0, delta: { content: ' word' }, logprobs: null, finish_reason: null }] })}\n\n`;

/** Starts the bare SSE hold server on an ephemeral port of `host`. */
export async function startBareSseHold(host: string): Promise<RunningServer> {
  const streams = new Set<HttpResponse>();
  const app = uws.App().post('/v1/chat/completions', (res) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
      streams.delete(res);
    });
    res.onData((_chunk, isLast) => {
      if (!isLast || aborted) return;
      res.cork(() => {
        res
          .writeStatus('200 OK')
          .writeHeader('content-type', 'text/event-stream')
          .writeHeader('cache-control', 'no-cache');
        res.write(EVENT);
      });
      streams.add(res);
    });
  });
  app.any('/*', (res) => void res.writeStatus('404 Not Found').end());
  const timer = setInterval(() => {
    for (const res of streams) res.cork(() => void res.write(EVENT));
  }, 1000);
  const server = await listenUws(app, host, 'bare uWS SSE hold');
  return {
    port: server.port,
    close: () => {
      clearInterval(timer);
      return server.close();
    },
  };
}
