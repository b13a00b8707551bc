import type { TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';
import type { Config } from '../runtime/config.js';
import type { AppDeps } from './app-deps.js';
import type { RequestHandler } from './request-handler.js';
import { uws } from './uws.js';
import type { WiredServices } from './wiring/wire-services.js';

/** Deletes what a crash left on disk: stored bytes without metadata, parts of finished uploads. */
async function sweepDisk({ files, uploads, logger }: AppDeps, bootedAt: number): Promise<void> {
  try {
    const orphans = await files.sweepOrphans(bootedAt);
    const stale = await uploads.sweepStale();
    if (orphans + stale > 0) logger.info('disk swept', { orphan_files: orphans, stale_uploads: stale });
  } catch (err) {
    logger.warn('disk sweep failed', { err });
  }
}

/**
 * Listen and close for a built app. Listening waits for the boot (orphaned calls closed), then
 * starts the background work (OAuth issuer checks, history retention, the disk sweep on one node),
 * in cluster mode joins, and only then reports ready. Closing drains first, on one node as in a
 * cluster: /readyz turns 503 and new requests are refused (`server_draining`), the listen socket
 * closes, the requests and streams in flight may end (up to `SVC_DRAIN_MS`; in cluster mode the
 * accounts are handed over too); then sockets, background work, the host and every store close in
 * order.
 */
export function serveApp(
  config: Config,
  parts: {
    app: TemplatedApp;
    services: WiredServices;
    requests: RequestHandler;
    realtimeSockets: { closeAll(code?: 1001 | 1012): void };
    booted: Promise<void>;
  },
): { listen(): Promise<number>; close(): Promise<void> } {
  const { app, services, requests, realtimeSockets, booted } = parts;
  const { deps, retention } = services;
  const { cluster } = deps;
  const bootedAt = Date.now();
  let listenSocket: us_listen_socket | undefined;
  return {
    listen: async () => {
      await booted;
      const port = await new Promise<number>((resolve, reject) => {
        app.listen(config.HOST, config.PORT, (socket) => {
          if (!socket) return reject(new Error(`cannot listen on ${config.HOST}:${config.PORT}`));
          listenSocket = socket;
          deps.mcp.access.start();
          retention.start();
          resolve(uws.us_socket_local_port(socket));
          // A shared blob directory is not one node's to sweep: another node may be mid-write.
          if (!cluster) void sweepDisk(deps, bootedAt);
        });
      });
      if (cluster) {
        await cluster.node.start(config.SVC_NODE_URL ?? `http://${config.HOST}:${port}`);
        cluster.node.onHomesFreed();
      }
      deps.readiness.markBooted();
      return port;
    },
    close: async () => {
      // Drain: not ready, no new requests, those in flight (streams too) end, bounded.
      deps.readiness.markDraining();
      const stopListening = () => {
        if (listenSocket) uws.us_listen_socket_close(listenSocket);
        listenSocket = undefined;
      };
      // A cluster node stops accepting at once (its peers take the accounts over); one node keeps
      // answering while it drains, so probes see 503 and late requests a clear `server_draining`.
      if (cluster) stopListening();
      await cluster?.node.drain();
      await requests.inFlight.drained(config.SVC_DRAIN_MS);
      stopListening();
      realtimeSockets.closeAll(cluster ? 1012 : 1001);
      deps.mcp.access.stop();
      await retention.stop();
      await requests.forwarder?.close();
      await deps.host.close();
      await cluster?.node.leave();
      // A snapshot under way copies the LMDB the store is about to close.
      await cluster?.snapshots.stop();
      deps.inspection.metrics.close();
      await services.extractor.close();
      await services.voicePool?.close();
      await services.background.settled();
      await deps.mailer.close();
      await deps.services.close();
      await deps.store.close();
      deps.readiness.markStoreClosed();
    },
  };
}
