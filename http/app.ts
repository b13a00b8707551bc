import { randomBytes } from 'node:crypto';
import { createChatBackend } from '../backends/create-chat-backend.js';
import type { ChatBackend } from '../backends/chat-backend.js';
import { AccountServices } from '../actors/accounts/account-services.js';
import { createAccountFacades, type AccountFacades } from '../actors/accounts/account-facades.js';
import { ActorHost } from '../runtime/host/actor-host.js';
import { ActorRegistry } from '../runtime/host/actor-registry.js';
import { ActorRetention } from '../runtime/host/actor-retention.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import type { Config } from '../runtime/config.js';
import { createLogger, type Logger } from '../runtime/logger.js';
import type { Store } from '../runtime/store/store.js';
import { LmdbStore } from '../runtime/store/lmdb-store.js';
import { ChatService } from '../actors/chat/chat-service.js';
import { ResponseCache } from '../actors/chat/response-cache.js';
import { SessionService } from '../actors/sessions/session-service.js';
import { createLocalTextExtractor } from '../backends/text-extraction/local-text-extractor.js';
import { BlobStore } from '../runtime/blobs/blob-store.js';
import { FileLibrary } from '../actors/files/file-library.js';
import { FileService } from '../actors/files/file-service.js';
import { UploadRuntime } from '../actors/uploads/upload-runtime.js';
import { UploadService } from '../actors/uploads/upload-service.js';
import { createSpeechBackend, createTranscriptionBackend } from '../backends/create-voice-backends.js';
import { CallRuntime } from '../actors/realtime/call-runtime.js';
import { serveRealtime } from './realtime/realtime-socket.js';
import { RealtimeRelay } from './realtime/realtime-relay.js';
import { TicketBook } from '../actors/accounts/ticket-book.js';
import { Authenticator } from '../actors/accounts/authenticator.js';
import { MediaEstimates } from '../actors/billing/media-estimates.js';
import { createPartResolverOptions } from '../actors/chat/parts/part-context.js';
import { createMediaAnalysisBackends } from '../backends/create-media-analysis.js';
import { ImageService } from '../actors/images/image-service.js';
import { imageEstimator } from '../actors/images/image-estimates.js';
import { MediaLinks } from '../actors/images/media-links.js';
import { VideoJobService } from '../actors/video/video-job-service.js';
import { videoEstimator } from '../actors/video/video-job-plan.js';
import { VideoProjectService } from '../actors/video/video-project-service.js';
import { createMediaGenerationBackends } from '../backends/create-media-generation.js';
import { AudioFeature } from '../actors/audio/audio-feature.js';
import { createAudioEngines, upstreamVoiceOptions } from '../backends/create-audio-backends.js';
import { BackgroundTasks } from '../actors/accounts/background-tasks.js';
import { SecondFactor } from '../actors/accounts/second-factor.js';
import { createPaymentFacades, type PaymentFacades } from '../actors/payments/payment-facades.js';
import { WaitlistRepo } from '../actors/waitlist/waitlist-repo.js';
import { WaitlistService } from '../actors/waitlist/waitlist-service.js';
import type { Mailer } from '../backends/mailer.js';
import { createMailer } from '../backends/mail/create-mailer.js';
import { StripePaymentProvider } from '../backends/payments/stripe-payment-provider.js';
import type { SmsSender } from '../backends/sms-sender.js';
import { RecordingSmsSender } from '../backends/sms-recording-sender.js';
import { SecretBox } from '../runtime/secret-box.js';
import { fileURLToPath } from 'node:url';
import { OrderService } from '../actors/marketplace/order-service.js';
import { DocsLibrary } from '../actors/mcp/docs-library.js';
import { docsTools } from '../actors/mcp/docs-tools.js';
import { McpAccess } from '../actors/mcp/mcp-access.js';
import { productTools } from '../actors/mcp/product-tools.js';
import { BenchmarkService } from '../actors/benchmarks/benchmark-service.js';
import { directoryEvidenceSource } from '../actors/benchmarks/evidence-directory.js';
import { parsePublicKey } from '../actors/benchmarks/evidence-package.js';
import { JoseOidcIssuer } from '../backends/oidc/jose-oidc-issuer.js';
import { listFiles, readTextFiles } from '../runtime/blobs/file-tree.js';
import { ClientCapabilities } from './mcp/client-capabilities.js';
import type { McpWiring } from './mcp/mcp-wiring.js';
import { ServerRequests } from './mcp/server-requests.js';
import { ApiContract } from './openapi/openapi-document.js';
import { MODEL_VERSION } from '../protocols/models.js';
import { meterChatBackend } from '../actors/chat/metered-chat-backend.js';
import { createInspection, type Inspection } from './inspection.js';
import { dispatch } from './dispatch.js';
import { Perimeter } from './perimeter.js';
import type { RouteDef } from './route.js';
import { Router } from './router.js';
import { allRoutes } from './routes/index.js';
import { uws } from './uws.js';
import { createUwsApp } from './uws-app.js';
import type { Cluster } from '../runtime/cluster/start-cluster.js';
import { ClusterForwarder, forwardedRequestId, forwardOrDispatch } from './cluster-forward.js';
import { placeActors, servedHere } from '../runtime/cluster/actor-placement.js';
import { UwsExchange } from './uws-exchange.js';

/** What route modules may use. */
export interface AppDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  store: Store;
  services: AccountServices;
  /** Accounts as routes call them: sign-in, overview and usage, API tokens, the operator's side. */
  accounts: AccountFacades;
  /** The one authentication path (API tokens, login sessions, realtime tickets). */
  auth: Authenticator;
  chat: ChatBackend;
  /** Every live actor (hosted ones and running completions) by id. */
  actors: ActorRegistry;
  /** Chat completions: run or stream (cached answers included), live input, cancel, status. */
  completions: ChatService;
  /** The durable actor host (sessions and, later, uploads, calls and jobs). */
  host: ActorHost;
  /** Chat sessions: create, read, events, follow, approve, live input, cancel, acknowledge, delete. */
  sessions: SessionService;
  /** Stored files: upload, list, read, download, delete, search. */
  files: FileService;
  /** Resumable uploads: reserve, parts, complete, cancel. */
  uploads: UploadService;
  /** Estimators of the media features, by modality (`POST /v1/estimate` with `modality`). */
  media: MediaEstimates;
  /** Realtime calls: tickets and the money behind open calls. */
  realtime: { tickets: TicketBook; calls: CallRuntime };
  /** Images: generations and edits, text policies checked by OCR, billed per attempt. */
  images: ImageService;
  /** Video jobs (durable actors): create, read, list, cancel, follow, download, delete. */
  videos: VideoJobService;
  /** Video projects: node graphs, approval node by node, jobs attached to nodes. */
  videoProjects: VideoProjectService;
  /** Generated images and clips on disk behind signed, expiring URLs. */
  mediaLinks: MediaLinks;
  /** Payments: top-up checkout, subscriptions, verified provider webhooks (provider off: 503). */
  payments: PaymentFacades;
  /** The public waitlist of the work-in-progress products. */
  waitlist: WaitlistService;
  /** Mail delivery: SMTP when SVC_SMTP_URL is set, else recorded in memory. */
  mailer: Mailer;
  /** Text messages (recorded in memory until a carrier is configured). */
  sms: SmsSender;
  /** Audio: speech, transcriptions, music, sound effects (and their manifests), cloned voices, and their rates. */
  audio: AudioFeature;
  /** MCP: the public docs tools, the product tools, OAuth access, marketplace orders. */
  mcp: McpWiring;
  /** Public benchmark views from a verified evidence package (503 without one). */
  benchmarks: BenchmarkService;
  /** The OpenAPI document of the served routes. */
  contract: ApiContract;
  /** The operator's tools: the actor inspector (API and page) and the Prometheus metrics. */
  inspection: Inspection;
  /** Cluster mode's parts (null on one node): membership, placement by account, the replicated store. */
  cluster: Cluster | null;
}

/** The repository root: the public docs the docs tools read live there. */
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The public docs pages: the README, docs/*.md and the bench method. */
async function loadDocPages(): Promise<{ path: string; text: string }[]> {
  const paths = ['README.md', ...(await listFiles(REPO_ROOT, 'docs', '.md')), 'bench/README.md'];
  return readTextFiles(REPO_ROOT, paths);
}

/** MCP: docs and product tools over the feature facades, OAuth access when an issuer is configured. */
function createMcp(
  config: Config,
  parts: { clock: Clock; logger: Logger; orders: OrderService; contract: ApiContract } & Pick<
    AppDeps,
    'completions' | 'chat' | 'media' | 'services' | 'auth'
  >,
): McpWiring {
  const { clock, logger, orders, contract } = parts;
  const issuer =
    config.SVC_OIDC_ISSUER && config.SVC_OIDC_AUDIENCE
      ? new JoseOidcIssuer({ issuer: config.SVC_OIDC_ISSUER, audience: config.SVC_OIDC_AUDIENCE, clock })
      : null;
  const access = new McpAccess({
    auth: parts.auth,
    accounts: parts.services.accounts,
    issuer,
    accountClaim: config.SVC_OIDC_ACCOUNT_CLAIM,
    clock,
    logger,
    checkIntervalMs: config.SVC_OIDC_CHECK_INTERVAL_S * 1000,
    retryMs: config.SVC_OIDC_RETRY_S * 1000,
  });
  return {
    docsTools: docsTools({ library: new DocsLibrary(loadDocPages), contract: () => contract.document() }),
    productTools: productTools({
      completions: parts.completions,
      latency: parts.chat.latency,
      media: parts.media,
      orders,
      earlyAccess: parts.services.earlyAccess,
    }),
    access,
    orders,
    capabilities: new ClientCapabilities(clock, { maxEntries: 10_000, ttlMs: 24 * 3600 * 1000 }),
    serverRequests: new ServerRequests(),
    elicitTimeoutMs: 120_000,
  };
}

/** A built server: listen, then close. */
export interface App {
  readonly deps: AppDeps;
  /** The background sweep of ended actors' history (running once listening). */
  readonly retention: ActorRetention;
  /** Starts listening; resolves with the bound port (useful with PORT=0). */
  listen(): Promise<number>;
  /** Stops accepting, writes pending counters and closes the store. */
  close(): Promise<void>;
}

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

/** Builds the server for `config` without listening: one router, one perimeter, one store. */
export function buildApp(config: Config, options: { clock?: Clock; logger?: Logger; cluster?: Cluster } = {}): App {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.SVC_LOG_LEVEL);
  const cluster = options.cluster ?? null;
  const store: Store = cluster?.store ?? LmdbStore.open(config.SVC_DATA_DIR);
  const services = new AccountServices(store, clock, { sessionTtlMs: config.SVC_SESSION_TTL_S * 1000 });
  services.ledger.meter = (op, micros) => inspection.metrics.billing(op, micros);
  // The step history behind the inspector's time travel is kept while the inspector is on.
  // Cluster mode: parked actors are this node's only while it is their account's home.
  const host = new ActorHost(store, clock, logger, {
    history: Boolean(config.SVC_ADMIN_KEY),
    ...(cluster && { serves: servedHere(cluster.node) }),
  });
  const inspection = createInspection(host, clock, { withPage: Boolean(config.SVC_ADMIN_KEY) });
  const retention = new ActorRetention(host, clock, logger, {
    retentionMs: config.SVC_ACTOR_RETENTION_S * 1000,
    everyMs: config.SVC_ACTOR_RETENTION_SWEEP_S * 1000,
  });
  const chat = meterChatBackend(createChatBackend(config), (backend, kind, failed) =>
    inspection.metrics.upstream(backend, kind, failed),
  );
  // Cluster mode keeps blobs on a path every node shares (SVC_BLOB_DIR).
  const blobs = new BlobStore(config.SVC_BLOB_DIR ?? config.SVC_DATA_DIR);
  blobs.openSync();
  const extractor = createLocalTextExtractor({
    maxSourceBytes: config.SVC_EXTRACT_MAX_SOURCE_BYTES,
    maxTextChars: config.SVC_EXTRACT_MAX_CHARS,
    timeoutMs: config.SVC_EXTRACT_TIMEOUT_MS,
  });
  const library = new FileLibrary(store, blobs, extractor, clock, logger);
  host.register(new UploadRuntime(library).hosted());
  const files = new FileService(library, { maxFileBytes: config.SVC_FILE_MAX_BYTES });
  const uploads = new UploadService({ host, library, clock, ttlMs: config.SVC_UPLOAD_TTL_S * 1000 });
  const calls = new CallRuntime({
    host,
    billing: services.ledger,
    chat,
    speech: createSpeechBackend(config.SVC_SPEECH_BACKEND, {
      simRealTime: config.SVC_SIM_SPEECH_REALTIME,
      upstream: upstreamVoiceOptions(config, config.SVC_UPSTREAM_SPEECH_MODEL),
    }),
    transcription: createTranscriptionBackend(config.SVC_TRANSCRIPTION_BACKEND, {
      upstream: upstreamVoiceOptions(config, config.SVC_UPSTREAM_TRANSCRIPTION_MODEL),
    }),
    clock,
    logger,
    holdStepMicros: config.SVC_REALTIME_HOLD_MICROS,
    endGraceMs: config.SVC_REALTIME_END_GRACE_MS,
  });
  host.register(calls.hosted());
  const tickets = new TicketBook(clock, config.SVC_REALTIME_TICKET_TTL_S * 1000, cluster?.node.id ?? null);
  // Accounts that can pay and recover: sealed 2FA secrets, mail and texts, the waitlist, payments.
  const secrets = SecretBox.open(config.SVC_DATA_DIR, config.SVC_SECRETS_KEY);
  const secondFactor = new SecondFactor(store, secrets, clock);
  const auth = new Authenticator(services, tickets, secondFactor);
  const mailer = createMailer(config);
  const sms = new RecordingSmsSender();
  const background = new BackgroundTasks(logger);
  const publicUrl = config.SVC_PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`;
  const waitlistRepo = new WaitlistRepo(store);
  const accounts = createAccountFacades(services, {
    auth,
    secondFactor,
    mailer,
    background,
    waitlist: waitlistRepo,
    clock,
    publicUrl,
    resetTtlMs: config.SVC_PASSWORD_RESET_TTL_S * 1000,
    verificationTtlMs: config.SVC_EMAIL_VERIFICATION_TTL_S * 1000,
  });
  const waitlist = new WaitlistService({
    repo: waitlistRepo,
    mailer,
    sms,
    box: secrets,
    background,
    clock,
    codeTtlMs: config.SVC_WAITLIST_CODE_TTL_S * 1000,
  });
  const provider =
    config.SVC_STRIPE_SECRET_KEY && config.SVC_STRIPE_WEBHOOK_SECRET
      ? new StripePaymentProvider({
          secretKey: config.SVC_STRIPE_SECRET_KEY,
          webhookSecret: config.SVC_STRIPE_WEBHOOK_SECRET,
          apiUrl: config.SVC_STRIPE_API_URL,
        })
      : null;
  const payments = createPaymentFacades({ services, host, provider, clock, logger, publicUrl });
  const parts = createPartResolverOptions(config, createMediaAnalysisBackends(), { files });
  const sessions = new SessionService({
    host,
    billing: services.ledger,
    backend: chat,
    store,
    clock,
    parts,
    approvalTtlMs: config.SVC_SESSION_APPROVAL_TTL_S * 1000,
    idleTtlMs: config.SVC_SESSION_IDLE_TTL_S * 1000,
  });
  host.register(sessions.hosted());
  const chatCache = new ResponseCache(store, clock, config.SVC_CHAT_CACHE_TTL_S * 1000);
  const completions = new ChatService({
    billing: services.ledger,
    backend: chat,
    registry: host.registry,
    cache: chatCache,
    parts,
    clock,
    logger,
    linked: sessions,
  });
  const media = new MediaEstimates();
  // Images and video: backends, media behind signed URLs, the job actors and projects, estimates.
  const generation = createMediaGenerationBackends(config, clock);
  const mediaLinks = new MediaLinks(store, blobs, clock, logger);
  const images = new ImageService({
    backend: generation.images,
    ocr: generation.ocr,
    billing: services.ledger,
    links: mediaLinks,
    clock,
    files,
    fetch: parts.fetch,
    urlTtlMs: config.SVC_MEDIA_URL_TTL_S * 1000,
  });
  const videos = new VideoJobService({
    host,
    billing: services.ledger,
    backend: generation.video,
    links: mediaLinks,
    store,
    clock,
    logger,
    pollMs: config.SVC_VIDEO_POLL_MS,
    maxRunning: config.SVC_VIDEO_MAX_RUNNING,
  });
  host.register(videos.hosted());
  const videoProjects = new VideoProjectService({ store, clock, jobs: videos });
  media.register('image', imageEstimator(generation.images, 'image'));
  media.register('image_edit', imageEstimator(generation.images, 'image_edit'));
  media.register('video', videoEstimator(generation.video));
  const audio = new AudioFeature({
    engines: createAudioEngines(config),
    billing: services.ledger,
    store,
    blobs,
    clock,
    logger,
  });
  audio.registerEstimates(media);
  // MCP and the marketplace orders its tools place; the API contract; the benchmark views.
  const orders = new OrderService({
    host,
    billing: services.ledger,
    store,
    clock,
    approvalTtlMs: config.SVC_ORDER_APPROVAL_TTL_S * 1000,
  });
  orders.listings.seedSync();
  host.register(orders.hosted());
  const contract = new ApiContract({ version: MODEL_VERSION, serverUrl: config.SVC_PUBLIC_URL ?? '/' });
  const mcp = createMcp(config, { clock, logger, orders, contract, completions, chat, media, services, auth });
  const evidence =
    config.SVC_BENCH_EVIDENCE_DIR && config.SVC_BENCH_EVIDENCE_PUBLIC_KEY
      ? {
          source: directoryEvidenceSource(config.SVC_BENCH_EVIDENCE_DIR),
          publicKey: parsePublicKey(config.SVC_BENCH_EVIDENCE_PUBLIC_KEY),
        }
      : { source: null, publicKey: null };
  const benchmarks = new BenchmarkService({
    ...evidence,
    clock,
    logger,
    reverifyMs: config.SVC_BENCH_REVERIFY_S * 1000,
  });
  const deps: AppDeps = {
    images,
    videos,
    videoProjects,
    mediaLinks,
    payments,
    waitlist,
    mailer,
    sms,
    media,
    config,
    clock,
    logger,
    store,
    services,
    accounts,
    auth,
    chat,
    actors: host.registry,
    completions,
    host,
    sessions,
    files,
    uploads,
    realtime: { tickets, calls },
    audio,
    mcp,
    benchmarks,
    contract,
    inspection,
    cluster,
  };
  const bootedAt = Date.now();
  const rehydrated = host.rehydrate(cluster ? servedHere(cluster.node) : undefined);
  if (cluster) {
    // Realtime calls that were open on a node taken over are closed and charged by the new home.
    placeActors(
      cluster.node,
      host,
      logger,
      () =>
        void calls
          .closeOrphans(clock.now())
          .catch((err: unknown) => logger.error('closing taken-over realtime calls failed', { err })),
    );
  }
  if (rehydrated > 0) logger.info('actors rehydrated', { count: rehydrated });
  // Calls open at the stop lost their sockets: close and charge them before serving, so a
  // client's first look at its account after a restart already shows the charge.
  const orphansClosed = calls.closeOrphans(clock.now()).then(
    (count) => void (count > 0 && logger.info('realtime calls closed after restart', { count })),
    (err: unknown) => logger.error('closing orphaned realtime calls failed', { err }),
  );

  const router = new Router<RouteDef>();
  const routes = allRoutes(deps);
  for (const route of routes) router.add(route.method, route.path, route);
  contract.setRoutes(routes);
  const perimeter = new Perimeter(auth, config.SVC_ADMIN_KEY);
  const dispatchDeps = { router, perimeter, logger, maxBodyBytes: config.SVC_MAX_BODY_BYTES };
  const forwarder = cluster
    ? new ClusterForwarder(cluster.node, auth, {
        logger,
        leaseMs: cluster.leaseMs,
        adminKey: config.SVC_ADMIN_KEY,
        maxBodyBytes: Math.max(config.SVC_MAX_BODY_BYTES, config.SVC_FILE_MAX_BYTES),
      })
    : null;
  let inFlight = 0;

  // Request ids: a per-boot random prefix and a counter, unique across restarts and cheap.
  const bootId = randomBytes(6).toString('base64url');
  let counter = 0;

  const newRequestId = () => `req_${bootId}${(++counter).toString(36)}`;
  const app = createUwsApp(config).any('/*', (res, req) => {
    const ex = new UwsExchange(res, req, (cluster && forwardedRequestId(req)) || newRequestId());
    // Each request gets its own perimeter: it holds the request's slot under the tier's cap until the answer ends.
    const gate = perimeter.forRequest(ex, Buffer.from(res.getRemoteAddressAsText()).toString());
    const started = performance.now();
    inFlight++;
    const answered = forwarder
      ? forwardOrDispatch(ex, forwarder, { ...dispatchDeps, perimeter: gate })
      : dispatch(ex, { ...dispatchDeps, perimeter: gate });
    void answered
      .then((route) =>
        inspection.metrics.request(route ?? '(unmatched)', ex.method, ex.status, (performance.now() - started) / 1000),
      )
      .finally(() => {
        inFlight--;
        gate.finish();
      });
  });
  const realtimeSockets = serveRealtime(app, {
    calls,
    auth,
    logger,
    idleTimeoutS: config.SVC_REALTIME_IDLE_TIMEOUT_S,
    newRequestId,
    limits: { dropAudioBytes: config.SVC_REALTIME_DROP_AUDIO_BYTES, closeBytes: config.SVC_REALTIME_CLOSE_BYTES },
    relay: cluster ? new RealtimeRelay(cluster.node, auth, logger) : undefined,
  });

  let listenSocket: unknown;
  return {
    deps,
    retention,
    listen: async () => {
      await orphansClosed;
      const port = await new Promise<number>((resolve, reject) => {
        app.listen(config.HOST, config.PORT, (socket) => {
          if (!socket) return reject(new Error(`cannot listen on ${config.HOST}:${config.PORT}`));
          listenSocket = socket;
          mcp.access.start();
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
      return port;
    },
    close: async () => {
      if (listenSocket) uws.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
      if (cluster) {
        // Drain: stop taking requests, let those in flight end (bounded), then hand the accounts over.
        await cluster.node.drain();
        const until = performance.now() + config.SVC_DRAIN_MS;
        while (inFlight > 0 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      realtimeSockets.closeAll(cluster ? 1012 : 1001);
      mcp.access.stop();
      await retention.stop();
      await forwarder?.close();
      await host.close();
      await cluster?.node.leave();
      inspection.metrics.close();
      await extractor.close();
      await background.settled();
      await mailer.close();
      await services.close();
      await store.close();
    },
  };
}
