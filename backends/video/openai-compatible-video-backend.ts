import { z } from 'zod';
import { VIDEO_COST_PER_SECOND_MICROS } from '../../protocols/pricing.js';
import { RetryableError } from '../errors.js';
import {
  connectFailure,
  createRedactor,
  httpFailure,
  malformedFailure,
} from '../openai-compatible/upstream-failures.js';
import type { RemoteVideoJob, VideoBackend, VideoPoll, VideoSpec } from '../video-generation.js';

/** Where the upstream is and how long one call may take. */
export interface OpenAICompatibleVideoOptions {
  /** Base URL ending in `/v1`. */
  baseUrl: string;
  apiKey: string | null;
  /** The model name sent upstream. */
  model: string;
  timeoutMs: number;
  now: () => number;
}

/** The largest clip downloaded from the upstream. */
const MAX_CLIP_BYTES = 1024 ** 3;
const MAX_JSON_BYTES = 1024 * 1024;

const UpstreamVideoSchema = z.looseObject({
  id: z.string().min(1).max(200),
  status: z.string(),
  progress: z.number().nullable().optional(),
  error: z.looseObject({ code: z.string().optional(), message: z.string().optional() }).nullable().optional(),
});

/**
 * Video from any upstream that speaks OpenAI's Videos API: `POST /videos` (multipart: prompt,
 * model, seconds, size; our job id as Idempotency-Key), `GET /videos/{id}` to poll,
 * `GET /videos/{id}/content` for the MP4, and `POST /videos/{id}/cancel` (else `DELETE
 * /videos/{id}`) to cancel, best effort.
 * Its cost per second is declared in the tariff.
 */
export function createOpenAICompatibleVideoBackend(options: OpenAICompatibleVideoOptions): VideoBackend {
  const rates = VIDEO_COST_PER_SECOND_MICROS['openai-compatible'];
  const redact = createRedactor(options.apiKey);
  const base = options.baseUrl.replace(/\/+$/, '');
  const auth: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const costMicros = (spec: VideoSpec) => rates[spec.tier] * spec.durationSeconds;

  const call = async (path: string, init: RequestInit, signal: AbortSignal, limit: number): Promise<Buffer> => {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        ...init,
        headers: { ...auth, ...(init.headers as Record<string, string> | undefined) },
        signal: AbortSignal.any([signal, timeout]),
      });
    } catch (err) {
      signal.throwIfAborted();
      if (timeout.aborted)
        throw new RetryableError(
          `upstream video call took longer than ${options.timeoutMs} ms`,
          'upstream_timeout',
          null,
          { cause: err },
        );
      throw connectFailure(err);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body ?? []) {
        size += (chunk as Uint8Array).length;
        if (size > limit) throw malformedFailure(`the answer is larger than ${limit} bytes`);
        chunks.push(Buffer.from(chunk as Uint8Array));
      }
    } catch (err) {
      signal.throwIfAborted();
      if (err instanceof RetryableError) throw err;
      throw connectFailure(err);
    }
    const body = Buffer.concat(chunks);
    if (!response.ok)
      throw httpFailure(response.status, Object.fromEntries(response.headers), body.toString('utf8'), redact);
    return body;
  };

  const job = (body: Buffer): z.output<typeof UpstreamVideoSchema> => {
    try {
      return UpstreamVideoSchema.parse(JSON.parse(body.toString('utf8')));
    } catch (err) {
      throw malformedFailure('the answer is not a video job', err);
    }
  };

  return {
    name: 'openai-compatible',
    costMicros,
    expectedMs: (spec) => Math.max(30_000, spec.durationSeconds * 10_000),
    async submit(spec, key, signal): Promise<RemoteVideoJob> {
      const form = new FormData();
      form.append('prompt', spec.prompt);
      form.append('model', options.model);
      form.append('seconds', String(spec.durationSeconds));
      form.append('size', `${spec.width}x${spec.height}`);
      const created = job(
        await call(
          '/videos',
          { method: 'POST', body: form, headers: { 'idempotency-key': key } },
          signal,
          MAX_JSON_BYTES,
        ),
      );
      return { id: created.id, startedAt: options.now() };
    },
    async poll(remote, spec, signal): Promise<VideoPoll> {
      const seen = job(
        await call(`/videos/${encodeURIComponent(remote.id)}`, { method: 'GET' }, signal, MAX_JSON_BYTES),
      );
      if (seen.status === 'completed') return { state: 'completed', costMicros: costMicros(spec) };
      if (seen.status === 'failed' || seen.status === 'cancelled') {
        return {
          state: 'failed',
          code: seen.error?.code ?? `upstream_${seen.status}`,
          message: redact(seen.error?.message ?? `the upstream job ${seen.status}`).slice(0, 300),
        };
      }
      return { state: 'running', progress: Math.max(0, Math.min(99, Math.floor(seen.progress ?? 0))) };
    },
    download: (remote, _spec, signal) =>
      call(
        `/videos/${encodeURIComponent(remote.id)}/content`,
        { method: 'GET', headers: { accept: 'application/binary' } },
        signal,
        MAX_CLIP_BYTES,
      ),
    async cancel(remote) {
      // Upstreams with a cancel route (ours, the spec's) stop the job; others at least drop it.
      const path = `/videos/${encodeURIComponent(remote.id)}`;
      const signal = AbortSignal.timeout(options.timeoutMs);
      await call(`${path}/cancel`, { method: 'POST' }, signal, MAX_JSON_BYTES).catch(() =>
        call(path, { method: 'DELETE' }, signal, MAX_JSON_BYTES).catch(() => undefined),
      );
    },
  };
}
