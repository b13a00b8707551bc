import { z } from 'zod';

const intFromEnv = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

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
  SVC_NATS_URL: z.string().optional(),
  SVC_MAX_BODY_BYTES: intFromEnv(8 * 1024 * 1024, 1024),
  SVC_SESSION_TTL_S: intFromEnv(30 * 24 * 3600, 60),
  SVC_SIM_TTFT_MS: intFromEnv(0),
  SVC_SIM_TOKENS_PER_S: intFromEnv(0),
  SVC_CHAT_CACHE_TTL_S: intFromEnv(86_400),
  SVC_SESSION_APPROVAL_TTL_S: intFromEnv(86_400, 1),
  SVC_SESSION_IDLE_TTL_S: intFromEnv(86_400, 1),
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
  // Voice engines: the sim (deterministic, instant) or a local engine (espeak-ng, pocketsphinx).
  SVC_SPEECH_BACKEND: z.enum(['sim', 'espeak-ng']).default('sim'),
  SVC_TRANSCRIPTION_BACKEND: z.enum(['sim', 'pocketsphinx']).default('sim'),
  // The sim speaks at playback speed, as a live engine would (off: instant).
  SVC_SIM_SPEECH_REALTIME: z.stringbool().default(false),
  // Realtime calls: ticket lifetime, wait for end_ack, money held per call, idle timeout, and the
  // per-socket send buffer above which audio frames are dropped and, further, the socket closed.
  SVC_REALTIME_TICKET_TTL_S: intFromEnv(60, 1, 3600),
  SVC_REALTIME_END_GRACE_MS: intFromEnv(3_000, 0, 600_000),
  SVC_REALTIME_HOLD_MICROS: intFromEnv(1_000_000, 1),
  SVC_REALTIME_IDLE_TIMEOUT_S: intFromEnv(120, 8, 960),
  SVC_REALTIME_DROP_AUDIO_BYTES: intFromEnv(1024 * 1024, 16 * 1024),
  SVC_REALTIME_CLOSE_BYTES: intFromEnv(4 * 1024 * 1024, 64 * 1024),
  SVC_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
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

/** Rules across variables: the openai-compatible backend needs its upstream and model named. */
function crossFieldIssues(config: Config): string[] {
  if (config.SVC_BACKEND !== 'openai-compatible') return [];
  return UPSTREAM_REQUIRED.filter((name) => !config[name]).map((name) => `${name}: required when SVC_BACKEND is openai-compatible`);
}
