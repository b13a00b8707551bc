import { buildApp } from './app.js';
import { ConfigError, loadConfig } from '../runtime/config.js';
import { createLogger } from '../runtime/logger.js';
import { isNativeUws } from './uws.js';

/** Starts the server from the environment; stops cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.SVC_LOG_LEVEL);
  if (!isNativeUws) {
    logger.error(
      'uWebSockets.js native build did not load: running on the slow JS fallback. Use Node 20 (see package.json engines).',
    );
  }
  // Cluster mode only: NATS is loaded (and joined) when SVC_NATS_URL is set.
  const cluster = config.SVC_NATS_URL
    ? await (await import('../runtime/cluster/start-cluster.js')).startCluster(config, logger)
    : undefined;
  if (cluster) {
    // A fenced node's writes no longer land, and one that cannot apply the log cannot read right:
    // it stops, and comes back (restarted by its supervisor) as a new incarnation.
    cluster.store.onLost = (why) => {
      logger.error('leaving the cluster: this node cannot go on', { why });
      process.exit(3);
    };
  }
  // Tracing only when an OTLP endpoint is set: off, the SDK is never loaded.
  const tracing = config.OTEL_EXPORTER_OTLP_ENDPOINT
    ? (await import('../runtime/trace-export.js')).startTracing(config)
    : undefined;
  const app = buildApp(config, { logger, cluster, tracing });
  // The signal handlers are in place before the boot ends (a cluster node serves before its join
  // returns): a SIGTERM then waits for the boot and drains, instead of killing the node outright.
  let stopping = false;
  const listening = app.listen();
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const port = await listening;
  logger.info('listening', {
    url: `http://${config.HOST}:${port}`,
    data_dir: config.SVC_DATA_DIR,
    backend: app.deps.chat.name,
    admin_api: Boolean(config.SVC_ADMIN_KEY),
    node: config.SVC_NODE_ID ?? null,
  });
  // Machine-readable line for harnesses that start the server on PORT=0.
  process.stdout.write(`svc listening on ${port}\n`);

  function stop(signal: string): void {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    listening
      .catch(() => undefined)
      .then(() => app.close())
      .then(
        async () => {
          await cluster?.close();
          await tracing?.shutdown().catch((err: unknown) => logger.warn('trace export at exit failed', { err }));
          process.exit(0);
        },
        (err: unknown) => {
          logger.error('close failed', { err });
          process.exit(1);
        },
      );
  }
}

void main();
