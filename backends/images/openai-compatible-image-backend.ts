import { z } from 'zod';
import { IMAGE_COST_PER_MEGAPIXEL_MICROS, imageCostMicros } from '../../protocols/pricing.js';
import { RetryableError, TerminalError } from '../errors.js';
import type { GeneratedImage, ImageBackend, ImageRenderRequest } from '../image-generation.js';
import {
  connectFailure,
  createRedactor,
  httpFailure,
  malformedFailure,
  type Redactor,
} from '../openai-compatible/upstream-failures.js';
import { encodeImage } from './image-encoding.js';

/** Where the upstream is and how long one image may take. */
export interface OpenAICompatibleImageOptions {
  /** Base URL ending in `/v1`. */
  baseUrl: string;
  apiKey: string | null;
  /** The model name sent upstream. */
  model: string;
  timeoutMs: number;
}

/** The largest image answer read from the upstream (base64 JSON of a 4096² PNG fits). */
const MAX_ANSWER_BYTES = 128 * 1024 * 1024;

const UpstreamImagesSchema = z.looseObject({
  data: z.array(z.looseObject({ b64_json: z.string().optional(), url: z.string().optional() })).min(1),
});

/** The prompt sent upstream: the request's, with the text policy spelled out (and what went wrong last time). */
export function upstreamPrompt(
  request: Pick<ImageRenderRequest, 'prompt' | 'negativePrompt' | 'text' | 'repairOf'>,
): string {
  const parts = [request.prompt];
  if (request.negativePrompt) parts.push(`Avoid: ${request.negativePrompt}`);
  if (request.text?.mode === 'exact') {
    parts.push(
      `The image must show exactly this text and no other, spelled exactly as written: ${request.text.lines.map((line) => `"${line}"`).join(' / ')}.`,
    );
    if (request.repairOf !== null)
      parts.push(
        `A previous attempt showed ${request.repairOf ? `"${request.repairOf}"` : 'no readable text'} instead; correct it.`,
      );
  } else if (request.text?.mode === 'none') {
    parts.push('The image must contain no text, letters, numbers or signage of any kind.');
  }
  return parts.join('\n\n');
}

async function readBounded(response: Response, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).length;
    if (size > limit) throw malformedFailure(`the answer is larger than ${limit} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}

/**
 * Images from any upstream that speaks OpenAI's Images API: `POST /images/generations` (JSON),
 * or `POST /images/edits` (multipart, `image[]` and `mask`) when there are references. The
 * answer (base64 or a URL) is re-encoded with sharp to exactly the requested size, format and
 * background, so the geometry the caller asked for always holds. Its cost per megapixel is
 * declared in the tariff. Failures are the chat backend's: 429/503 unavailable, 5xx retryable,
 * other 4xx terminal, the key redacted from every message.
 */
export function createOpenAICompatibleImageBackend(options: OpenAICompatibleImageOptions): ImageBackend {
  const rates = IMAGE_COST_PER_MEGAPIXEL_MICROS['openai-compatible'];
  const redact: Redactor = createRedactor(options.apiKey);
  const base = options.baseUrl.replace(/\/+$/, '');
  const auth: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const costMicros: ImageBackend['costMicros'] = ({ tier, width, height }) =>
    imageCostMicros(rates[tier], width, height);

  const send = async (path: string, init: RequestInit, signal: AbortSignal): Promise<Buffer> => {
    let response: Response;
    const timeout = AbortSignal.timeout(options.timeoutMs);
    try {
      response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.any([signal, timeout]) });
    } catch (err) {
      signal.throwIfAborted();
      if (timeout.aborted)
        throw new RetryableError(
          `upstream image call took longer than ${options.timeoutMs} ms`,
          'upstream_timeout',
          null,
          { cause: err },
        );
      throw connectFailure(err);
    }
    const body = await readBounded(response, MAX_ANSWER_BYTES).catch((err: unknown) => {
      signal.throwIfAborted();
      if (err instanceof RetryableError) throw err;
      throw connectFailure(err);
    });
    if (!response.ok)
      throw httpFailure(response.status, Object.fromEntries(response.headers), body.toString('utf8'), redact);
    return body;
  };

  const imageBytes = async (answer: Buffer, signal: AbortSignal): Promise<Buffer> => {
    let parsed: z.output<typeof UpstreamImagesSchema>;
    try {
      parsed = UpstreamImagesSchema.parse(JSON.parse(answer.toString('utf8')));
    } catch (err) {
      throw malformedFailure('the answer is not an images response', err);
    }
    const first = parsed.data[0]!;
    if (first.b64_json) return Buffer.from(first.b64_json, 'base64');
    if (first.url && /^https?:\/\//i.test(first.url)) {
      // The key goes only to the upstream itself, never to a third-party storage host.
      const headers = first.url.startsWith(`${base}/`) ? auth : {};
      let response: Response;
      try {
        response = await fetch(first.url, {
          headers,
          signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
        });
      } catch (err) {
        signal.throwIfAborted();
        throw connectFailure(err);
      }
      if (!response.ok)
        throw new RetryableError(`the upstream's image URL answered HTTP ${response.status}`, 'upstream_error');
      return readBounded(response, MAX_ANSWER_BYTES);
    }
    throw malformedFailure('the answer has neither b64_json nor an http(s) url');
  };

  return {
    name: 'openai-compatible',
    costMicros,
    async render(request): Promise<GeneratedImage> {
      request.signal.throwIfAborted();
      const size = `${request.width}x${request.height}`;
      const quality = request.tier === 'premium' ? 'high' : 'low';
      const fields: Record<string, string> = {
        model: options.model,
        prompt: upstreamPrompt(request),
        n: '1',
        size,
        quality,
        output_format: request.format === 'jpeg' ? 'jpeg' : request.format,
        background: request.background,
      };
      const trace = request.traceHeaders ?? {};
      let answer: Buffer;
      if (request.references.length === 0) {
        const body = JSON.stringify({ ...fields, n: 1, response_format: 'b64_json' });
        answer = await send(
          '/images/generations',
          { method: 'POST', headers: { ...auth, ...trace, 'content-type': 'application/json' }, body },
          request.signal,
        );
      } else {
        const form = new FormData();
        for (const [name, value] of Object.entries(fields)) form.append(name, value);
        form.append('response_format', 'b64_json');
        request.references.forEach((reference, i) =>
          form.append('image[]', new Blob([reference]), `reference-${i}.png`),
        );
        if (request.mask) form.append('mask', new Blob([request.mask]), 'mask.png');
        answer = await send(
          '/images/edits',
          { method: 'POST', headers: { ...auth, ...trace }, body: form },
          request.signal,
        );
      }
      const raw = await imageBytes(answer, request.signal);
      let encoded: Awaited<ReturnType<typeof encodeImage>>;
      try {
        encoded = await encodeImage(raw, {
          width: request.width,
          height: request.height,
          format: request.format,
          compression: request.compression,
          background: request.background,
        });
      } catch (err) {
        throw new TerminalError(
          `the upstream sent an image that does not decode: ${err instanceof Error ? err.message : String(err)}`,
          'upstream_error',
          { cause: err },
        );
      }
      return {
        ...encoded,
        costMicros: costMicros({ tier: request.tier, width: request.width, height: request.height }),
      };
    },
  };
}
