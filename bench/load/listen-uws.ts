import type { TemplatedApp } from '@trufflesuite/uws-js-unofficial';
import { uws } from '../../http/uws.js';

/** A listening bare server: its port, and how to stop it. */
export interface ListeningUws {
  port: number;
  close(): Promise<void>;
}

/** Listens on an ephemeral port of `host`; `label` names the server in the error. */
export function listenUws(app: TemplatedApp, host: string, label: string): Promise<ListeningUws> {
  return new Promise((resolve, reject) => {
    app.listen(host, 0, (socket) => {
      if (!socket) return reject(new Error(`${label}: cannot listen`));
      resolve({
        port: uws.us_socket_local_port(socket),
        close: () => {
          uws.us_listen_socket_close(socket);
          return Promise.resolve();
        },
      });
    });
  });
}
