/** Which API the requests go to: streamed chat completions or the Responses API. */
export type ServeApi = 'chat' | 'responses';

/** A length distribution in tokens: normal, clamped to at least 1. */
export interface LengthDistribution {
  mean: number;
  stddev: number;
}

/** Latency objectives a request must meet to count towards goodput (ms; absent: not checked). */
export interface ServiceLevel {
  ttftMs?: number;
  tpotMs?: number;
  e2elMs?: number;
}

/** One `serve` run: the target, the sweep and the prompts. */
export interface ServeOptions {
  /** Origin of the deployment (`/v1` is added). */
  url: string;
  token: string;
  model: string;
  api: ServeApi;
  /** `concurrency`: closed loop, each point a number of users; `rate`: open loop, each point req/s. */
  mode: 'concurrency' | 'rate';
  points: number[];
  /** Open loop only: at most this many requests in flight (null: unbounded, as vLLM's default). */
  maxConcurrency: number | null;
  /** Gamma shape of the inter-arrival times: 1 is Poisson, below 1 burstier, above 1 more regular. */
  burstiness: number;
  /** Per point: stop issuing after this many requests (null: the duration bounds the point). */
  requests: number | null;
  /** Per point: stop issuing after this long (null: the request count bounds the point). */
  durationMs: number | null;
  inputTokens: LengthDistribution;
  outputTokens: LengthDistribution;
  /** A JSONL file of prompts used instead of the synthetic generator. */
  promptsFile: string | null;
  /** Send vLLM's `ignore_eos` so the server generates `max_tokens` (OpenAI itself refuses it). */
  ignoreEos: boolean;
  slo: ServiceLevel;
  timeoutMs: number;
  seed: number;
  /** Client worker threads sharing each point's load (1: the main thread alone). */
  clientThreads: number;
  /** Requests sent one at a time before the sweep and not counted (connections opened, code warm; a failure stops the run). */
  warmupRequests: number;
}

/** Parses `1,4,16,64` into positive numbers. */
export function parseList(name: string, text: string): number[] {
  const values = text.split(',').map((part) => Number(part.trim()));
  if (values.length === 0 || values.some((value) => !Number.isFinite(value) || value <= 0))
    throw new Error(`--${name} must be positive numbers separated by commas, got ${text}`);
  return values;
}

/** Parses `mean,stddev` (stddev optional, 0). */
export function parseLength(name: string, text: string): LengthDistribution {
  const [mean, stddev = 0, ...rest] = text.split(',').map((part) => Number(part.trim()));
  if (rest.length > 0 || !Number.isFinite(mean) || mean! < 1 || !Number.isFinite(stddev) || stddev < 0)
    throw new Error(`--${name} must be mean[,stddev] with mean ≥ 1 and stddev ≥ 0, got ${text}`);
  return { mean: mean!, stddev };
}

/** Parses `ttft=500,tpot=50,e2el=10000` (milliseconds). */
export function parseSlo(text: string): ServiceLevel {
  const slo: ServiceLevel = {};
  const keys = { ttft: 'ttftMs', tpot: 'tpotMs', e2el: 'e2elMs' } as const;
  for (const part of text.split(',')) {
    const [key, value] = part.split('=').map((s) => s.trim());
    const field = keys[key as keyof typeof keys];
    const ms = Number(value);
    if (!field || !Number.isFinite(ms) || ms <= 0)
      throw new Error(`--slo must be ttft=MS,tpot=MS,e2el=MS (any of them), got ${text}`);
    slo[field] = ms;
  }
  return slo;
}
