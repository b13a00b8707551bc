// Baselines of the realtime scenarios: bare uWS WebSocket servers doing the least possible same
// work as the gateway's /v1/realtime, with no ticket, actor, VAD, billing or backend.
//  - `uws-ws-idle`: sends `{"type":"session.created"}` on open and answers every text message with
//    `{"type":"session.updated"}`.
//  - `uws-ws-audio`: the same greeting; drops input frames and answers only `session.update`; and
//    streams to every socket one 50 ms audio frame (2,400 bytes of PCM in base64, in the gateway's
//    `response.output_audio.delta` shape, stamped with `svc_ts` as the gateway stamps it) every
//    50 ms, from one timer for all sockets, each send corked.
import type { WebSocket } from '@trufflesuite/uws-js-unofficial';
import { uws } from '../../http/uws.js';
import { listenUws } from '../load/listen-uws.js';
import type { RunningServer } from '../load/bare-servers.js';

/** Which realtime baseline. */
export type BareRealtimeKind = 'uws-ws-idle' | 'uws-ws-audio';

const CREATED = '{"type":"session.created"}';
const UPDATED = '{"type":"session.updated"}';
const FRAME_MS = 50;

/** A 440 Hz tone, 50 ms of PCM16 at 24 kHz, in base64: the payload every frame carries. */
function toneFrame(): string {
  const pcm = Buffer.alloc(2400);
  for (let i = 0; i < 1200; i++) pcm.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 440 * i) / 24_000)), i * 2);
  return pcm.toString('base64');
}

/** Starts a realtime baseline on an ephemeral port of `host`. */
export function startBareRealtime(kind: BareRealtimeKind, host: string): Promise<RunningServer> {
  const sockets = new Set<WebSocket<unknown>>();
  const streams = kind === 'uws-ws-audio';
  const app = uws.App().ws('/*', {
    maxPayloadLength: 4 * 1024 * 1024,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    maxBackpressure: 8 * 1024 * 1024,
    open: (ws) => {
      ws.send(CREATED, false);
      if (streams) sockets.add(ws);
    },
    message: (ws, message) => {
      // Input audio is dropped unread, as cheaply as possible: only a session.update is answered.
      if (
        !streams ||
        Buffer.from(message, 0, Math.min(64, message.byteLength)).toString('latin1').includes('"session.update"')
      )
        ws.send(UPDATED, false);
    },
    close: (ws) => void sockets.delete(ws),
  });
  let timer: NodeJS.Timeout | undefined;
  if (streams) {
    const prefix = `{"event_id":"event_bare","type":"response.output_audio.delta","response_id":"resp_bare","item_id":"item_bare","output_index":0,"content_index":0,"delta":"${toneFrame()}","svc_ts":`;
    timer = setInterval(() => {
      for (const ws of sockets)
        ws.cork(() => ws.send(`${prefix}${performance.timeOrigin + performance.now()}}`, false));
    }, FRAME_MS);
  }
  return listenUws(app, host, `bare uWS ${kind}`).then((server) => ({
    port: server.port,
    close: () => {
      clearInterval(timer);
      return server.close();
    },
  }));
}
