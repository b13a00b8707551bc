import type { AccountFacades } from '../actors/accounts/account-facades.js';
import type { AccountServices } from '../actors/accounts/account-services.js';
import type { Authenticator } from '../actors/accounts/authenticator.js';
import type { TicketBook } from '../actors/accounts/ticket-book.js';
import type { AudioFeature } from '../actors/audio/audio-feature.js';
import type { BenchmarkService } from '../actors/benchmarks/benchmark-service.js';
import type { MediaEstimates } from '../actors/billing/media-estimates.js';
import type { ChatService } from '../actors/chat/chat-service.js';
import type { FileService } from '../actors/files/file-service.js';
import type { BackgroundResponses } from '../actors/responses/background-responses.js';
import type { ResponseService } from '../actors/responses/response-service.js';
import type { ImageService } from '../actors/images/image-service.js';
import type { MediaLinks } from '../actors/images/media-links.js';
import type { PaymentFacades } from '../actors/payments/payment-facades.js';
import type { CallRuntime } from '../actors/realtime/call-runtime.js';
import type { SessionService } from '../actors/sessions/session-service.js';
import type { UploadService } from '../actors/uploads/upload-service.js';
import type { VideoJobService } from '../actors/video/video-job-service.js';
import type { VideoProjectService } from '../actors/video/video-project-service.js';
import type { WaitlistService } from '../actors/waitlist/waitlist-service.js';
import type { ChatBackend } from '../backends/chat-backend.js';
import type { Mailer } from '../backends/mailer.js';
import type { SmsSender } from '../backends/sms-sender.js';
import type { Clock } from '../runtime/clock.js';
import type { Cluster } from '../runtime/cluster/start-cluster.js';
import type { Config } from '../runtime/config.js';
import type { ActorHost } from '../runtime/host/actor-host.js';
import type { ActorRegistry } from '../runtime/host/actor-registry.js';
import type { Logger } from '../runtime/logger.js';
import type { Readiness } from '../runtime/readiness.js';
import type { Store } from '../runtime/store/store.js';
import type { Inspection } from './inspection.js';
import type { McpWiring } from './mcp/mcp-wiring.js';
import type { ApiContract } from './openapi/openapi-document.js';

/** What route modules may use: every feature facade and the few runtime parts they read. */
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
  /** The Responses API over chat completions: create, stored responses, their input items. */
  responses: ResponseService;
  /** Background responses: durable actors, cancel, their live events. */
  backgroundResponses: BackgroundResponses;
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
  /** What /readyz answers: booted, store open, not draining, NATS connected in cluster mode. */
  readiness: Readiness;
}
