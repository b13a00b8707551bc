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
    logger.error('uWebSockets.js native build did not load: running on the slow JS fallback. Use Node 20 (see package.json engines).');
  }
  const app = buildApp(config, { logger });
  const port = await app.listen();
  logger.info('listening', { url: `http://${config.HOST}:${port}`, data_dir: config.SVC_DATA_DIR, backend: app.deps.chat.name, admin_api: Boolean(config.SVC_ADMIN_KEY) });
  // Machine-readable line for harnesses that start the server on PORT=0.
  process.stdout.write(`svc listening on ${port}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error('close failed', { err });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
