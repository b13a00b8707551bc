import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseEd25519PublicKey } from './ed25519-key.js';

const intFromEnv = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

/** Whether `entry` is an IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrCidr(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

/** The longest delay `setTimeout` honours (about 24.8 days); longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Every environment variable the server reads, validated once at start. */
export const ConfigSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: intFromEnv(8080, 0, 65535),
  SVC_DATA_DIR: z.string().min(1).default('./data'),
  SVC_ADMIN_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  SVC_BACKEND: z.enum(['sim', 'openai-compatible']).default('sim'),
  SVC_UPSTREAM_BASE_URL: z.url().optional(),
  SVC_UPSTREAM_API_KEY: z.string().optional(),
  SVC_UPSTREAM_MODEL: z.string().min(1).optional(),
  SVC_UPSTREAM_CONCURRENCY: intFromEnv(64, 1, 100_000),
  SVC_UPSTREAM_TIMEOUT_MS: intFromEnv(60_000, 1, MAX_TIMER_MS),
  SVC_UPSTREAM_IDLE_TIMEOUT_MS: intFromEnv(30_000, 1, MAX_TIMER_MS),
  SVC_MAX_BODY_BYTES: intFromEnv(8 * 1024 * 1024, 1024),
  SVC_SESSION_TTL_S: intFromEnv(30 * 24 * 3600, 60),
  SVC_SIM_TTFT_MS: intFromEnv(0),
  SVC_SIM_TOKENS_PER_S: intFromEnv(0),
  SVC_CHAT_CACHE_TTL_S: intFromEnv(86_400),
  SVC_SESSION_APPROVAL_TTL_S: intFromEnv(86_400, 1),
  SVC_SESSION_IDLE_TTL_S: intFromEnv(86_400, 1),
  // Ended actors (sessions, calls, uploads, jobs): how long their event logs and step history stay
  // after they ended, and how often the background sweep looks for expired ones.
  SVC_ACTOR_RETENTION_S: intFromEnv(7 * 86_400, 60),
  SVC_ACTOR_RETENTION_SWEEP_S: intFromEnv(600, 1, MAX_TIMER_MS / 1000),
  // How often the LMDB map's pages this process has read leave its RSS (they stay in the page
  // cache); 0: never, and RSS grows with the store's file (docs/configuration.md).
  SVC_STORE_RELEASE_PAGES_S: intFromEnv(10, 0, MAX_TIMER_MS / 1000),
  // Remote media in chat parts (image_url, input_video url): byte cap, time cap, and whether
  // loopback/private/link-local destinations may be fetched (off: SSRF guard).
  SVC_FETCH_MAX_BYTES: intFromEnv(20 * 1024 * 1024, 1),
  SVC_FETCH_TIMEOUT_MS: intFromEnv(10_000, 1, MAX_TIMER_MS),
  SVC_FETCH_ALLOW_PRIVATE: z.stringbool().default(false),
  // Files: multipart uploads stream to disk up to SVC_FILE_MAX_BYTES; JSON (base64) bodies are
  // parsed whole, so they have their own, smaller cap. Resumable uploads expire when idle this long.
  SVC_FILE_MAX_BYTES: intFromEnv(512 * 1024 * 1024, 1),
  SVC_FILE_JSON_MAX_BYTES: intFromEnv(64 * 1024 * 1024, 1024),
  SVC_UPLOAD_TTL_S: intFromEnv(86_400, 1, MAX_TIMER_MS / 1000),
  // Text extraction on save: bytes read from the file, characters kept, time per file.
  SVC_EXTRACT_MAX_SOURCE_BYTES: intFromEnv(64 * 1024 * 1024, 1),
  SVC_EXTRACT_MAX_CHARS: intFromEnv(2_000_000, 1),
  SVC_EXTRACT_TIMEOUT_MS: intFromEnv(30_000, 1, MAX_TIMER_MS),
  // Voice engines (realtime calls and /v1/audio): the sim (deterministic, instant), a local engine
  // (espeak-ng, pocketsphinx) or the OpenAI-compatible upstream (SVC_UPSTREAM_BASE_URL, with the
  // audio model names below).
  SVC_SPEECH_BACKEND: z.enum(['sim', 'espeak-ng', 'openai-compatible']).default('sim'),
  SVC_TRANSCRIPTION_BACKEND: z.enum(['sim', 'pocketsphinx', 'openai-compatible']).default('sim'),
  SVC_UPSTREAM_SPEECH_MODEL: z.string().min(1).default('tts-1'),
  SVC_UPSTREAM_TRANSCRIPTION_MODEL: z.string().min(1).default('whisper-1'),
  // What the sim's audio engines cost (billed cost-plus): speech per 1,000 characters (premium
  // voices twice that), transcription per audio minute, music and sound effects per output minute.
  SVC_SIM_SPEECH_COST_PER_1K_CHARS_MICROS: intFromEnv(15_000),
  SVC_SIM_TRANSCRIPTION_COST_PER_MINUTE_MICROS: intFromEnv(6_000),
  SVC_SIM_GENERATION_COST_PER_MINUTE_MICROS: intFromEnv(60_000),
  // The sim speaks at playback speed, as a live engine would (off: instant).
  SVC_SIM_SPEECH_REALTIME: z.stringbool().default(false),
  // Worker threads for the sim voice's CPU work (reading turns, rendering speech); 0: in the event
  // loop, where a turn's reading (~0.2 ms) costs less than the hop to a thread and back (bench/history.md).
  SVC_SIM_VOICE_THREADS: intFromEnv(0, 0, 16),
  // Realtime calls: ticket lifetime, wait for end_ack, money held per call, idle timeout, and the
  // per-socket send buffer above which audio frames are dropped and, further, the socket closed.
  SVC_REALTIME_TICKET_TTL_S: intFromEnv(60, 1, 3600),
  SVC_REALTIME_END_GRACE_MS: intFromEnv(3_000, 0, 600_000),
  SVC_REALTIME_HOLD_MICROS: intFromEnv(1_000_000, 1),
  SVC_REALTIME_IDLE_TIMEOUT_S: intFromEnv(120, 8, 960),
  SVC_REALTIME_DROP_AUDIO_BYTES: intFromEnv(1024 * 1024, 16 * 1024),
  SVC_REALTIME_CLOSE_BYTES: intFromEnv(4 * 1024 * 1024, 64 * 1024),
  // TLS: both set → HTTPS and wss:// (uWS's SSLApp) with these PEM files; both unset → plain.
  SVC_TLS_CERT_FILE: z.string().min(1).optional(),
  SVC_TLS_KEY_FILE: z.string().min(1).optional(),
  SVC_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  // OpenTelemetry traces (the standard variables): off unless the endpoint is set; OTLP over HTTP.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
  OTEL_SERVICE_NAME: z.string().min(1).default('svc'),
  // Reverse proxies whose X-Forwarded-For / Forwarded are believed (addresses or CIDRs, comma-separated).
  SVC_TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .refine((entries) => entries.every(isAddressOrCidr), 'each entry must be an IP address or a CIDR range'),
  // Images and video: the sim or the OpenAI-compatible upstream (SVC_UPSTREAM_BASE_URL, with these
  // model names); how long signed media URLs work; the sim's time per image and its video job-time
  // model (seconds of work per second of clip); how often a running job is polled; jobs running at once.
  SVC_IMAGE_BACKEND: z.enum(['sim', 'openai-compatible']).default('sim'),
  SVC_VIDEO_BACKEND: z.enum(['sim', 'openai-compatible']).default('sim'),
  SVC_UPSTREAM_IMAGE_MODEL: z.string().min(1).default('gpt-image-1'),
  SVC_UPSTREAM_VIDEO_MODEL: z.string().min(1).default('sora-2'),
  SVC_MEDIA_URL_TTL_S: intFromEnv(3600, 1, 7 * 86_400),
  SVC_SIM_IMAGE_LATENCY_MS: intFromEnv(0, 0, 600_000),
  SVC_SIM_VIDEO_SECONDS_PER_SECOND: z.coerce.number().min(0).max(3600).default(8),
  SVC_VIDEO_POLL_MS: intFromEnv(1000, 10, 600_000),
  SVC_VIDEO_MAX_RUNNING: intFromEnv(16, 1, 100_000),
  // Accounts: where mailed links point, mail delivery (unset: recorded, not sent), link and code
  // lifetimes, and the key that seals two-factor secrets at rest (unset: <data dir>/secrets.key).
  SVC_PUBLIC_URL: z.url().optional(),
  SVC_SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  SVC_MAIL_FROM: z.string().min(3).max(200).default('svc <no-reply@svc.invalid>'),
  SVC_PASSWORD_RESET_TTL_S: intFromEnv(1800, 60, 86_400),
  SVC_EMAIL_VERIFICATION_TTL_S: intFromEnv(172_800, 60, 30 * 86_400),
  SVC_WAITLIST_CODE_TTL_S: intFromEnv(600, 60, 3600),
  SVC_SECRETS_KEY: z
    .string()
    .refine(
      (value) => Buffer.from(value, 'base64').length === 32,
      'must be 32 bytes, base64-encoded (openssl rand -base64 32)',
    )
    .optional(),
  // Payments through Stripe: both keys or neither (unset: checkout answers 503). The API URL is
  // for test doubles and proxies only.
  SVC_STRIPE_SECRET_KEY: z.string().min(8).optional(),
  SVC_STRIPE_WEBHOOK_SECRET: z.string().min(8).optional(),
  SVC_STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  // MCP product tools (/mcp) with OAuth 2.1: an issuer and audience together, or neither (API
  // tokens only). The claim naming the account, and how often the issuer is checked live.
  SVC_OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  SVC_OIDC_AUDIENCE: z.string().min(1).max(500).optional(),
  SVC_OIDC_ACCOUNT_CLAIM: z.string().min(1).max(100).default('sub'),
  SVC_OIDC_CHECK_INTERVAL_S: intFromEnv(300, 5, MAX_TIMER_MS / 1000),
  SVC_OIDC_RETRY_S: intFromEnv(30, 1, MAX_TIMER_MS / 1000),
  // Marketplace orders through MCP: how long a pending action can be confirmed.
  SVC_ORDER_APPROVAL_TTL_S: intFromEnv(900, 10, 86_400),
  // Public benchmark views: a signed evidence package (directory) and the Ed25519 public key
  // (PEM or base64 SPKI DER) that verifies it; both or neither (unset: the views answer 503).
  SVC_BENCH_EVIDENCE_DIR: z.string().min(1).optional(),
  SVC_BENCH_EVIDENCE_PUBLIC_KEY: z.string().min(40).optional(),
  SVC_BENCH_REVERIFY_S: intFromEnv(300, 1, MAX_TIMER_MS / 1000),
  // Cluster mode (docs/cluster.md): NATS servers (comma-separated; unset: one node, nothing of NATS
  // loaded), this node's id and the URL other nodes forward to, copies of the log, the lease after
  // which a silent node is fenced, the shared blob directory, and how long SIGTERM waits for answers.
  SVC_NATS_URL: z
    .string()
    .regex(/^(nats|tls):\/\/[^\s,]+(,(nats|tls):\/\/[^\s,]+)*$/, 'must be nats:// URLs separated by commas')
    .optional(),
  SVC_NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -')
    .optional(),
  SVC_NODE_URL: z.url({ protocol: /^https?$/ }).optional(),
  SVC_NATS_REPLICAS: z.coerce.number().int().min(1).max(5).optional(),
  SVC_NATS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .default('SVC_STORE'),
  SVC_CLUSTER_LEASE_MS: intFromEnv(5000, 300, 600_000),
  SVC_BLOB_DIR: z.string().min(1).optional(),
  SVC_DRAIN_MS: intFromEnv(10_000, 0, 600_000),
  // Cluster mode: a snapshot of the store every this many log entries, and the log trimmed behind it (0: never).
  SVC_CLUSTER_SNAPSHOT_EVERY: intFromEnv(100_000, 0),
});

/** The validated configuration. */
export type Config = z.output<typeof ConfigSchema>;

/** Thrown when an environment variable is invalid; the message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Variables the openai-compatible backend cannot start without. */
const UPSTREAM_REQUIRED = ['SVC_UPSTREAM_BASE_URL', 'SVC_UPSTREAM_MODEL'] as const;

/** Reads and validates the configuration from an environment (empty strings count as unset). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const result = ConfigSchema.safeParse(present);
  const lines = result.success
    ? crossFieldIssues(result.data)
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  if (result.success && lines.length === 0) return result.data;
  throw new ConfigError(`invalid configuration\n  ${lines.join('\n  ')}`);
}

/** Rules across variables: the openai-compatible backend needs its upstream and model named; TLS needs both files. */
function crossFieldIssues(config: Config): string[] {
  const upstream =
    config.SVC_BACKEND !== 'openai-compatible'
      ? []
      : UPSTREAM_REQUIRED.filter((name) => !config[name]).map(
          (name) => `${name}: required when SVC_BACKEND is openai-compatible`,
        );
  return [
    ...upstream,
    ...audioUpstreamIssues(config),
    ...mediaUpstreamIssues(config),
    ...tlsIssues(config),
    ...stripeIssues(config),
    ...pairIssues(config),
    ...evidenceKeyIssues(config),
    ...clusterIssues(config),
  ];
}

/** Cluster mode needs a node id, and one key for sealed secrets on every node (a per-node key file would not open another node's). */
function clusterIssues(config: Config): string[] {
  if (!config.SVC_NATS_URL) return [];
  const missing = (['SVC_NODE_ID', 'SVC_SECRETS_KEY'] as const)
    .filter((name) => !config[name])
    .map((name) => `${name}: required when SVC_NATS_URL is set`);
  // Other nodes forward to this URL: a wildcard listen address is not one they can reach.
  const wildcard = ['0.0.0.0', '::', '[::]'].includes(config.HOST) && !config.SVC_NODE_URL;
  return wildcard
    ? [...missing, `SVC_NODE_URL: required when SVC_NATS_URL is set and HOST is ${config.HOST}`]
    : missing;
}

/** An upstream voice engine needs the upstream's URL (its model names have defaults). */
function audioUpstreamIssues(config: Config): string[] {
  if (config.SVC_UPSTREAM_BASE_URL) return [];
  return (['SVC_SPEECH_BACKEND', 'SVC_TRANSCRIPTION_BACKEND'] as const)
    .filter((name) => config[name] === 'openai-compatible')
    .map((name) => `SVC_UPSTREAM_BASE_URL: required when ${name} is openai-compatible`);
}

/** An upstream image or video backend needs the upstream's URL (its model names have defaults). */
function mediaUpstreamIssues(config: Config): string[] {
  if (config.SVC_UPSTREAM_BASE_URL) return [];
  return (['SVC_IMAGE_BACKEND', 'SVC_VIDEO_BACKEND'] as const)
    .filter((name) => config[name] === 'openai-compatible')
    .map((name) => `SVC_UPSTREAM_BASE_URL: required when ${name} is openai-compatible`);
}

/**
 * TLS files are checked here, so a bad one stops the start naming its variable: uWS only says
 * "App construction failed", and with a certificate but no key it would serve handshakes that fail.
 */
function tlsIssues({ SVC_TLS_CERT_FILE: certFile, SVC_TLS_KEY_FILE: keyFile }: Config): string[] {
  if (!certFile && !keyFile) return [];
  if (!certFile) return ['SVC_TLS_CERT_FILE: required when SVC_TLS_KEY_FILE is set'];
  if (!keyFile) return ['SVC_TLS_KEY_FILE: required when SVC_TLS_CERT_FILE is set'];
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(certFile));
  } catch (err) {
    return [`SVC_TLS_CERT_FILE: cannot use ${certFile} as a PEM certificate (${reason(err)})`];
  }
  try {
    const key = createPrivateKey(readFileSync(keyFile));
    return cert.checkPrivateKey(key)
      ? []
      : [`SVC_TLS_KEY_FILE: ${keyFile} is not the key of the certificate in SVC_TLS_CERT_FILE`];
  } catch (err) {
    return [`SVC_TLS_KEY_FILE: cannot use ${keyFile} as an unencrypted PEM private key (${reason(err)})`];
  }
}

/** Stripe needs its API key and its webhook secret together: checkout without verified webhooks would take money it cannot credit. */
function stripeIssues({ SVC_STRIPE_SECRET_KEY: key, SVC_STRIPE_WEBHOOK_SECRET: secret }: Config): string[] {
  if (key && !secret) return ['SVC_STRIPE_WEBHOOK_SECRET: required when SVC_STRIPE_SECRET_KEY is set'];
  if (secret && !key) return ['SVC_STRIPE_SECRET_KEY: required when SVC_STRIPE_WEBHOOK_SECRET is set'];
  return [];
}

/** Settings that only work together: the OIDC issuer and audience, the evidence directory and its key. */
function pairIssues(config: Config): string[] {
  const pairs = [
    ['SVC_OIDC_ISSUER', 'SVC_OIDC_AUDIENCE'],
    ['SVC_BENCH_EVIDENCE_DIR', 'SVC_BENCH_EVIDENCE_PUBLIC_KEY'],
  ] as const;
  return pairs.flatMap(([a, b]) =>
    config[a] && !config[b]
      ? [`${b}: required when ${a} is set`]
      : !config[a] && config[b]
        ? [`${a}: required when ${b} is set`]
        : [],
  );
}

/** The evidence key must be an Ed25519 public key, so a typo stops the start instead of failing every view. */
function evidenceKeyIssues({ SVC_BENCH_EVIDENCE_PUBLIC_KEY: text }: Config): string[] {
  if (!text) return [];
  try {
    parseEd25519PublicKey(text);
    return [];
  } catch (err) {
    return [`SVC_BENCH_EVIDENCE_PUBLIC_KEY: not an Ed25519 public key in PEM or base64 SPKI DER (${reason(err)})`];
  }
}

const FILE_ERRORS: Record<string, string> = { ENOENT: 'no such file', EACCES: 'not readable', EISDIR: 'a directory' };

function reason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && FILE_ERRORS[code]) return FILE_ERRORS[code];
  return err instanceof Error ? err.message : String(err);
}
