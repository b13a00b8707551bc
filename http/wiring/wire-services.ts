import { AccountServices } from '../../actors/accounts/account-services.js';
import type { BackgroundTasks } from '../../actors/accounts/background-tasks.js';
import { BenchmarkService } from '../../actors/benchmarks/benchmark-service.js';
import { directoryEvidenceSource } from '../../actors/benchmarks/evidence-directory.js';
import { parsePublicKey } from '../../actors/benchmarks/evidence-package.js';
import { ChatService } from '../../actors/chat/chat-service.js';
import { meterChatBackend } from '../../actors/chat/metered-chat-backend.js';
import { createPartResolverOptions } from '../../actors/chat/parts/part-context.js';
import { ResponseCache } from '../../actors/chat/response-cache.js';
import { FileLibrary } from '../../actors/files/file-library.js';
import { FileService } from '../../actors/files/file-service.js';
import { BackgroundResponses } from '../../actors/responses/background-responses.js';
import { ResponseService } from '../../actors/responses/response-service.js';
import { ResponseStore } from '../../actors/responses/response-store.js';
import { OrderService } from '../../actors/marketplace/order-service.js';
import { CallRuntime } from '../../actors/realtime/call-runtime.js';
import { SessionService } from '../../actors/sessions/session-service.js';
import { UploadRuntime } from '../../actors/uploads/upload-runtime.js';
import { UploadService } from '../../actors/uploads/upload-service.js';
import { upstreamVoiceOptions } from '../../backends/create-audio-backends.js';
import { createChatBackend } from '../../backends/create-chat-backend.js';
import type { Tracer } from '@opentelemetry/api';
import { traceChatBackend } from '../../actors/chat/traced-chat-backend.js';
import { createMediaAnalysisBackends } from '../../backends/create-media-analysis.js';
import { createSpeechBackend, createTranscriptionBackend } from '../../backends/create-voice-backends.js';
import { traceVoice } from './traced-backends.js';
import { createSimVoicePool, type SimVoicePool } from '../../backends/sim/sim-voice-pool.js';
import { createLocalTextExtractor } from '../../backends/text-extraction/local-text-extractor.js';
import type { TextExtractor } from '../../backends/text-extraction/text-extractor.js';
import { MODEL_VERSION } from '../../protocols/models.js';
import { BlobStore } from '../../runtime/blobs/blob-store.js';
import type { Clock } from '../../runtime/clock.js';
import { servedHere } from '../../runtime/cluster/actor-placement.js';
import type { Cluster } from '../../runtime/cluster/start-cluster.js';
import { Readiness } from '../../runtime/readiness.js';
import type { Config } from '../../runtime/config.js';
import { ActorHost } from '../../runtime/host/actor-host.js';
import { ActorRetention } from '../../runtime/host/actor-retention.js';
import type { Logger } from '../../runtime/logger.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';
import type { Store } from '../../runtime/store/store.js';
import type { AppDeps } from '../app-deps.js';
import { createInspection } from '../inspection.js';
import { ApiContract } from '../openapi/openapi-document.js';
import { wireAccounts } from './wire-accounts.js';
import { wireMedia } from './wire-media.js';
import { createMcp } from './wire-mcp.js';

/** Every service of one server, and what closing it must stop beyond the route deps. */
export interface WiredServices {
  deps: AppDeps;
  /** The background sweep of ended actors' history. */
  retention: ActorRetention;
  extractor: TextExtractor;
  background: BackgroundTasks;
  /** The sim voice's worker threads (null: none, or no sim voice engine). */
  voicePool: SimVoicePool | null;
}

/**
 * Builds every service over one store and one actor host, and registers each durable machine
 * with the host (before anything is rehydrated): storage and files, realtime calls, accounts,
 * chat sessions and completions, media, marketplace orders with MCP, the contract, benchmarks.
 */
export function wireServices(
  config: Config,
  options: { clock: Clock; logger: Logger; cluster: Cluster | null; tracer?: Tracer | null },
): WiredServices {
  const { clock, logger, cluster } = options;
  const store: Store =
    cluster?.store ??
    LmdbStore.open(config.SVC_DATA_DIR, { releasePagesEveryMs: config.SVC_STORE_RELEASE_PAGES_S * 1000 });
  const services = new AccountServices(store, clock, { sessionTtlMs: config.SVC_SESSION_TTL_S * 1000 });
  // The step history behind the inspector's time travel is kept while the inspector is on.
  // Cluster mode: parked actors are this node's only while it is their account's home.
  const host = new ActorHost(store, clock, logger, {
    history: Boolean(config.SVC_ADMIN_KEY),
    ...(cluster && { serves: servedHere(cluster.node) }),
    tracer: options.tracer ?? null,
  });
  const inspection = createInspection(host, clock, { withPage: Boolean(config.SVC_ADMIN_KEY) });
  services.ledger.meter = (op, micros) => inspection.metrics.billing(op, micros);
  const retention = new ActorRetention(host, clock, logger, {
    retentionMs: config.SVC_ACTOR_RETENTION_S * 1000,
    everyMs: config.SVC_ACTOR_RETENTION_SWEEP_S * 1000,
  });
  const backend = createChatBackend(config);
  // Tracing on: each backend call is a client span (GenAI conventions) under the request's span.
  const traced = options.tracer
    ? traceChatBackend(
        backend,
        options.tracer,
        config.SVC_BACKEND === 'sim' ? null : (config.SVC_UPSTREAM_MODEL ?? null),
      )
    : backend;
  const chat = meterChatBackend(traced, (backend, kind, failed) => inspection.metrics.upstream(backend, kind, failed));
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
  // The sim voice's CPU work (reading a turn, rendering speech) runs in the loop unless
  // SVC_SIM_VOICE_THREADS asks for worker threads: a turn's reading costs less than the hop.
  const simVoice = config.SVC_SPEECH_BACKEND === 'sim' || config.SVC_TRANSCRIPTION_BACKEND === 'sim';
  const voicePool =
    simVoice && config.SVC_SIM_VOICE_THREADS > 0 ? createSimVoicePool({ threads: config.SVC_SIM_VOICE_THREADS }) : null;
  const voice = traceVoice(config, options.tracer ?? null, {
    speech: createSpeechBackend(config.SVC_SPEECH_BACKEND, {
      simRealTime: config.SVC_SIM_SPEECH_REALTIME,
      simPool: voicePool,
      upstream: upstreamVoiceOptions(config, config.SVC_UPSTREAM_SPEECH_MODEL),
    }),
    transcription: createTranscriptionBackend(config.SVC_TRANSCRIPTION_BACKEND, {
      simPool: voicePool,
      upstream: upstreamVoiceOptions(config, config.SVC_UPSTREAM_TRANSCRIPTION_MODEL),
    }),
  });
  const calls = new CallRuntime({
    host,
    billing: services.ledger,
    chat,
    ...voice,
    clock,
    logger,
    holdStepMicros: config.SVC_REALTIME_HOLD_MICROS,
    endGraceMs: config.SVC_REALTIME_END_GRACE_MS,
  });
  host.register(calls.hosted());
  const wired = wireAccounts(config, { services, host, clock, logger, cluster });
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
  const completions = new ChatService({
    billing: services.ledger,
    backend: chat,
    registry: host.registry,
    cache: new ResponseCache(store, clock, config.SVC_CHAT_CACHE_TTL_S * 1000),
    parts,
    clock,
    logger,
    linked: sessions,
  });
  const responseStore = new ResponseStore(store);
  const responses = new ResponseService({
    completions,
    store: responseStore,
    search: (accountId, query, maxHits) => files.search(accountId, { query, file_id: null, max_hits: maxHits }),
    clock,
  });
  const backgroundResponses = new BackgroundResponses({ host, responses, store: responseStore, logger });
  host.register(backgroundResponses.hosted());
  const media = wireMedia(config, {
    store,
    blobs,
    host,
    billing: services.ledger,
    files,
    fetch: parts.fetch,
    clock,
    logger,
    tracer: options.tracer ?? null,
  });
  // The marketplace orders MCP tools place; the API contract; the benchmark views.
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
  const mcp = createMcp(config, {
    clock,
    logger,
    orders,
    contract,
    completions,
    chat,
    media: media.media,
    services,
    auth: wired.auth,
  });
  const benchmarks = createBenchmarks(config, clock, logger);
  const { tickets, background, ...accounts } = wired;
  const deps: AppDeps = {
    ...accounts,
    ...media,
    config,
    clock,
    logger,
    store,
    services,
    chat,
    actors: host.registry,
    completions,
    responses,
    backgroundResponses,
    host,
    sessions,
    files,
    uploads,
    realtime: { tickets, calls },
    mcp,
    benchmarks,
    contract,
    inspection,
    cluster,
    readiness: new Readiness(cluster ? () => cluster.isConnected() : undefined),
  };
  return { deps, retention, extractor, background, voicePool };
}

/** The public benchmark views, from a verified evidence package when one is configured. */
function createBenchmarks(config: Config, clock: Clock, logger: Logger): BenchmarkService {
  const evidence =
    config.SVC_BENCH_EVIDENCE_DIR && config.SVC_BENCH_EVIDENCE_PUBLIC_KEY
      ? {
          source: directoryEvidenceSource(config.SVC_BENCH_EVIDENCE_DIR),
          publicKey: parsePublicKey(config.SVC_BENCH_EVIDENCE_PUBLIC_KEY),
        }
      : { source: null, publicKey: null };
  return new BenchmarkService({ ...evidence, clock, logger, reverifyMs: config.SVC_BENCH_REVERIFY_S * 1000 });
}
