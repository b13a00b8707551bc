import { randomBytes } from 'node:crypto';
import { createChatBackend } from '../backends/create-chat-backend.js';
import type { ChatBackend } from '../backends/chat-backend.js';
import { AccountServices } from '../runtime/accounts/account-services.js';
import { ActorHost } from '../runtime/actor-host.js';
import { ActorRegistry } from '../runtime/actor-registry.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import type { Config } from '../runtime/config.js';
import { createLogger, type Logger } from '../runtime/logger.js';
import { Store } from '../runtime/store.js';
import type { CompletionHandle } from './chat/completion-run.js';
import { ResponseCache } from './chat/response-cache.js';
import { SessionRuntime } from './sessions/session-runtime.js';
import { createLocalTextExtractor } from '../backends/text-extraction/local-text-extractor.js';
import { BlobStore } from '../runtime/files/blob-store.js';
import { FileLibrary } from '../runtime/files/file-library.js';
import { UploadRuntime } from './files/upload-runtime.js';
import { createSpeechBackend, createTranscriptionBackend } from '../backends/create-voice-backends.js';
import { CallRuntime } from './realtime/call-runtime.js';
import { serveRealtime } from './realtime/realtime-socket.js';
import { TicketBook } from './realtime/ticket-book.js';
import { dispatch } from './dispatch.js';
import { Perimeter } from './perimeter.js';
import type { RouteDef } from './route.js';
import { Router } from './router.js';
import { allRoutes } from './routes/index.js';
import { uws } from './uws.js';
import { UwsExchange } from './uws-exchange.js';

/** What route modules may use. */
export interface AppDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  store: Store;
  services: AccountServices;
  chat: ChatBackend;
  /** Running (and recently finished) completions by id. */
  completions: ActorRegistry<CompletionHandle>;
  /** Answers to identical deterministic chat requests. */
  chatCache: ResponseCache;
  /** The durable actor host (sessions and, later, uploads, calls and jobs). */
  host: ActorHost;
  /** Holds and backend steps of chat sessions. */
  sessions: SessionRuntime;
  /** Stored files: bytes on disk, metadata and search index in LMDB. */
  files: FileLibrary;
  /** Realtime calls: tickets and the money behind open calls. */
  realtime: { tickets: TicketBook; calls: CallRuntime };
}

/** A built server: listen, then close. */
export interface App {
  readonly deps: AppDeps;
  /** Starts listening; resolves with the bound port (useful with PORT=0). */
  listen(): Promise<number>;
  /** Stops accepting, writes pending counters and closes the store. */
  close(): Promise<void>;
}

/** Deletes what a crash left on disk: stored bytes without metadata, parts of finished uploads. */
async function sweepDisk({ files, host, logger }: AppDeps, bootedAt: number): Promise<void> {
  try {
    const orphans = await files.sweepOrphans(bootedAt);
    let uploads = 0;
    for (const id of await files.blobs.uploadIds()) {
      if (host.isLive(id)) continue;
      await files.blobs.removeUpload(id);
      uploads++;
    }
    if (orphans + uploads > 0) logger.info('disk swept', { orphan_files: orphans, stale_uploads: uploads });
  } catch (err) {
    logger.warn('disk sweep failed', { err });
  }
}

/** Builds the server for `config` without listening: one router, one perimeter, one store. */
export function buildApp(config: Config, options: { clock?: Clock; logger?: Logger } = {}): App {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.SVC_LOG_LEVEL);
  const store = Store.open(config.SVC_DATA_DIR);
  const services = new AccountServices(store, clock, { sessionTtlMs: config.SVC_SESSION_TTL_S * 1000 });
  const chat = createChatBackend(config);
  const completions = new ActorRegistry<CompletionHandle>(5 * 60_000);
  const chatCache = new ResponseCache(store, clock, config.SVC_CHAT_CACHE_TTL_S * 1000);
  const host = new ActorHost(store, clock, logger);
  const sessions = new SessionRuntime(services, chat, store, clock);
  host.register(sessions.hosted());
  const blobs = new BlobStore(config.SVC_DATA_DIR);
  blobs.openSync();
  const extractor = createLocalTextExtractor({ maxSourceBytes: config.SVC_EXTRACT_MAX_SOURCE_BYTES, maxTextChars: config.SVC_EXTRACT_MAX_CHARS, timeoutMs: config.SVC_EXTRACT_TIMEOUT_MS });
  const files = new FileLibrary(store, blobs, extractor, clock, logger);
  host.register(new UploadRuntime(files).hosted());
  const calls = new CallRuntime(services, config.SVC_REALTIME_HOLD_MICROS);
  host.register(calls.hosted());
  const tickets = new TicketBook(clock, config.SVC_REALTIME_TICKET_TTL_S * 1000);
  const deps: AppDeps = { config, clock, logger, store, services, chat, completions, chatCache, host, sessions, files, realtime: { tickets, calls } };
  const bootedAt = Date.now();
  const rehydrated = host.rehydrate();
  if (rehydrated > 0) logger.info('actors rehydrated', { count: rehydrated });
  // Calls open at the stop lost their sockets: close and charge them now.
  void calls.closeOrphans(host, clock.now()).then((count) => count > 0 && logger.info('realtime calls closed after restart', { count }));

  const router = new Router<RouteDef>();
  for (const route of allRoutes(deps)) router.add(route.method, route.path, route);
  const perimeter = new Perimeter(services, config.SVC_ADMIN_KEY);
  const dispatchDeps = { router, perimeter, logger, maxBodyBytes: config.SVC_MAX_BODY_BYTES };

  // Request ids: a per-boot random prefix and a counter, unique across restarts and cheap.
  const bootId = randomBytes(6).toString('base64url');
  let counter = 0;

  const newRequestId = () => `req_${bootId}${(++counter).toString(36)}`;
  const app = uws.App().any('/*', (res, req) => {
    const ex = new UwsExchange(res, req, newRequestId());
    void dispatch(ex, dispatchDeps);
  });
  const realtimeSockets = serveRealtime(app, {
    host,
    calls,
    chat,
    speech: createSpeechBackend(config.SVC_SPEECH_BACKEND, { simRealTime: config.SVC_SIM_SPEECH_REALTIME }),
    transcription: createTranscriptionBackend(config.SVC_TRANSCRIPTION_BACKEND),
    clock,
    logger,
    services,
    tickets,
    idleTimeoutS: config.SVC_REALTIME_IDLE_TIMEOUT_S,
    newRequestId,
    limits: { dropAudioBytes: config.SVC_REALTIME_DROP_AUDIO_BYTES, closeBytes: config.SVC_REALTIME_CLOSE_BYTES, endGraceMs: config.SVC_REALTIME_END_GRACE_MS },
  });

  let listenSocket: unknown;
  return {
    deps,
    listen: () =>
      new Promise<number>((resolve, reject) => {
        app.listen(config.HOST, config.PORT, (socket) => {
          if (!socket) return reject(new Error(`cannot listen on ${config.HOST}:${config.PORT}`));
          listenSocket = socket;
          resolve(uws.us_socket_local_port(socket));
          void sweepDisk(deps, bootedAt);
        });
      }),
    close: async () => {
      if (listenSocket) uws.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
      realtimeSockets.closeAll();
      await host.close();
      await extractor.close();
      await services.close();
      await store.close();
    },
  };
}
