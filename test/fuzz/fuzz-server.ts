import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIVE_SESSION_STATES } from '../../actors/sessions/session-states.js';
import { buildApp, type App } from '../../http/app.js';
import { loadConfig } from '../../runtime/config.js';
import { createLogger, type LogLevel } from '../../runtime/logger.js';
import type { ServerLog } from './fuzz-report.js';
import type { SessionSettler } from './health-after.js';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** An in-process server for a fuzz run: loopback, ephemeral port, temporary data directory. */
export interface FuzzServer {
  app: App;
  port: number;
  adminKey: string;
  /** Errors and warnings the server logged, by request id, for the failure report. */
  log: ServerLog;
  close(): Promise<void>;
}

/** A settler that waits in-process until a session holds no money (its state is final or awaits approval). */
export function sessionSettler(app: App): SessionSettler {
  return (sessionId) =>
    app.deps.host.waitFor(sessionId, (snapshot) => {
      const value = snapshot.value;
      const state = typeof value === 'string' ? value : (Object.keys(value ?? {})[0] ?? '');
      return state === 'awaiting_approval' || !LIVE_SESSION_STATES.includes(state);
    });
}

/**
 * Starts the real server in this process, as the tests do, with a logger that keeps what was
 * logged per request id (and echoes lines at `echoLevel` and above to stderr).
 */
export async function startFuzzServer(
  options: { echoLevel?: LogLevel; env?: Record<string, string> } = {},
): Promise<FuzzServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-fuzz-'));
  const adminKey = `fuzz-admin-key-${process.pid}-0123456789`;
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_KEY: adminKey,
    SVC_LOG_LEVEL: 'warn',
    ...options.env,
  });
  const log: ServerLog = new Map();
  const echoRank = RANK[options.echoLevel ?? 'silent'];
  const logger = createLogger('warn', (line) => {
    const entry = JSON.parse(line) as {
      level: LogLevel;
      msg: string;
      request_id?: string;
      err?: { message?: string; stack?: string };
    };
    // The first error about a request is the one that explains it.
    if (entry.request_id && !(log.get(entry.request_id)?.startsWith('error') && entry.level !== 'error'))
      log.set(entry.request_id, `${entry.level} ${entry.msg}: ${entry.err?.stack ?? entry.err?.message ?? ''}`);
    if (RANK[entry.level] >= echoRank) process.stderr.write(line);
  });
  const app = buildApp(config, { logger });
  const port = await app.listen();
  return {
    app,
    port,
    adminKey,
    log,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
