import { z } from 'zod';
import { fieldError } from './validation.js';

/** Width and height in pixels. */
export interface Geometry {
  width: number;
  height: number;
}

/** The geometry a modality supports: sides a multiple of `multiple` in [minSide, maxSide], long ÷ short at most `maxAspect`. */
export interface GeometryLimits {
  multiple: number;
  minSide: number;
  maxSide: number;
  maxAspect: number;
}

/** Images: both sides multiples of 16 from 256 to 4096, at most 4:1 (documented in docs/images.md). */
export const IMAGE_GEOMETRY: GeometryLimits = { multiple: 16, minSide: 256, maxSide: 4096, maxAspect: 4 };

/** `size` when the request names none (spec §2.6), and what `auto` means for a generation. */
export const DEFAULT_IMAGE_SIZE: Geometry = { width: 1024, height: 1024 };

/** `resolution` names: the long side in pixels. */
const NAMED_RESOLUTIONS: Record<string, number> = { '1k': 1024, '2k': 2048, '4k': 4096 };

/** Why `width`×`height` is outside `limits`, or null when it is supported. */
export function geometryProblem({ width, height }: Geometry, limits: GeometryLimits): string | null {
  const { multiple, minSide, maxSide, maxAspect } = limits;
  if (width % multiple !== 0 || height % multiple !== 0)
    return `both sides must be multiples of ${multiple} (got ${width}x${height})`;
  if (Math.min(width, height) < minSide || Math.max(width, height) > maxSide)
    return `each side must be from ${minSide} to ${maxSide} pixels (got ${width}x${height})`;
  if (Math.max(width, height) > maxAspect * Math.min(width, height))
    return `the aspect ratio must be at most ${maxAspect}:1 (got ${width}x${height})`;
  return null;
}

/** `WIDTHxHEIGHT` as numbers, or null when the text is not of that form. */
export function parseSizeText(text: string): Geometry | null {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(text.trim().toLowerCase());
  return match ? { width: Number(match[1]), height: Number(match[2]) } : null;
}

/** The fields a request states its geometry with. */
export interface GeometryFields {
  size?: string | null | undefined;
  aspect_ratio?: string | null | undefined;
  resolution?: string | null | undefined;
}

/** A side rounded to the nearest multiple of `multiple` (never 0). */
function snap(value: number, multiple: number): number {
  return Math.max(multiple, Math.round(value / multiple) * multiple);
}

/**
 * The pixels a request asks for, or a 422 naming the field: `size` `WIDTHxHEIGHT` is taken
 * exactly; `size` `auto` (or absent) takes `aspect_ratio` with `resolution` (the long side:
 * `1K`, `2K`, `4K` or a number of pixels; the short side rounded to the nearest multiple), or
 * else `fallback`. Anything outside `limits` is refused before any spend.
 */
export function resolveGeometry(fields: GeometryFields, fallback: Geometry, limits: GeometryLimits): Geometry {
  const size = fields.size?.trim() || 'auto';
  const explicit = size.toLowerCase() !== 'auto';
  if (explicit) {
    const parsed = parseSizeText(size);
    if (!parsed)
      throw fieldError(
        ['body', 'size'],
        `must be WIDTHxHEIGHT (for example 1024x1024) or auto, got ${JSON.stringify(size.slice(0, 32))}`,
      );
    const problem = geometryProblem(parsed, limits);
    if (problem) throw fieldError(['body', 'size'], `unsupported size: ${problem}`);
    if (fields.aspect_ratio) throw fieldError(['body', 'aspect_ratio'], 'give either size or aspect_ratio, not both');
    if (fields.resolution) throw fieldError(['body', 'resolution'], 'give either size or resolution, not both');
    return parsed;
  }
  if (!fields.aspect_ratio && !fields.resolution) return fallback;
  let ratio = { w: 1, h: 1 };
  if (fields.aspect_ratio) {
    const match = /^(\d{1,3}):(\d{1,3})$/.exec(fields.aspect_ratio.trim());
    const w = Number(match?.[1] ?? 0);
    const h = Number(match?.[2] ?? 0);
    if (!match || w === 0 || h === 0)
      throw fieldError(
        ['body', 'aspect_ratio'],
        `must be W:H (for example 16:9), got ${JSON.stringify(fields.aspect_ratio.slice(0, 16))}`,
      );
    if (Math.max(w, h) > limits.maxAspect * Math.min(w, h))
      throw fieldError(['body', 'aspect_ratio'], `the aspect ratio must be at most ${limits.maxAspect}:1`);
    ratio = { w, h };
  }
  let long = Math.max(fallback.width, fallback.height);
  if (fields.resolution) {
    const text = fields.resolution.trim().toLowerCase();
    const named = NAMED_RESOLUTIONS[text];
    const pixels = /^\d{1,5}(px)?$/.test(text) ? Number.parseInt(text, 10) : null;
    if (named === undefined && pixels === null)
      throw fieldError(
        ['body', 'resolution'],
        `must be 1K, 2K, 4K or the long side in pixels, got ${JSON.stringify(fields.resolution.slice(0, 16))}`,
      );
    long = named ?? pixels!;
  }
  const geometry =
    ratio.w >= ratio.h
      ? { width: long, height: snap((long * ratio.h) / ratio.w, limits.multiple) }
      : { width: snap((long * ratio.w) / ratio.h, limits.multiple), height: long };
  const problem = geometryProblem(geometry, limits);
  if (problem)
    throw fieldError(['body', fields.resolution ? 'resolution' : 'aspect_ratio'], `unsupported geometry: ${problem}`);
  return geometry;
}

/** A reference image: a stored file of the account, or an image URL (a `data:` URL or http(s)). */
export const InputReferenceSchema = z
  .looseObject({
    file_id: z.string().min(1).max(200).optional(),
    image_url: z
      .union([z.string().min(1).max(30_000_000), z.looseObject({ url: z.string().min(1).max(30_000_000) })])
      .optional(),
  })
  .refine(
    (ref) => (ref.file_id === undefined) !== (ref.image_url === undefined),
    'give exactly one of file_id or image_url',
  );

/** One reference as parsed. */
export type InputReference = z.output<typeof InputReferenceSchema>;

const optionalText = (max = 200) => z.string().max(max).nullable().optional();

/** Text policies: the result must show exactly `expected_text`, or no text at all (checked by OCR). */
export const TEXT_POLICIES = ['none', 'exact', 'no_text'] as const;

/** `quality` values: `high`/`hd` select premium, `low`/`standard` standard; the rest leave the tier to the rule. */
export const IMAGE_QUALITIES = ['low', 'medium', 'high', 'auto', 'standard', 'hd'] as const;

/** The fields generations and edits share (spec §2.6; extra properties accepted). */
const imageRequestShape = {
  prompt: z.string().min(1, 'must not be empty').max(32_000),
  model: z.string().min(1).max(200).default('pro-1'),
  n: z.number().int().min(1).max(10).default(1),
  size: optionalText(32),
  quality: z.enum(IMAGE_QUALITIES).nullable().optional(),
  style: optionalText(),
  response_format: z.enum(['b64_json', 'url']).nullable().optional(),
  output_format: z.enum(['png', 'jpeg', 'webp']).nullable().optional(),
  background: z.enum(['transparent', 'opaque', 'auto']).nullable().optional(),
  moderation: optionalText(),
  input_fidelity: z.enum(['low', 'high']).nullable().optional(),
  resolution: optionalText(16),
  aspect_ratio: optionalText(16),
  text_policy: z.enum(TEXT_POLICIES).nullable().optional(),
  purpose: optionalText(),
  service_level: optionalText(),
  privacy_mode: optionalText(),
  negative_prompt: optionalText(32_000),
  user: optionalText(),
  output_compression: z.number().int().min(0).max(100).nullable().optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .nullable()
    .optional(),
  input_references: z.array(InputReferenceSchema).max(16).optional(),
  expected_text: z.array(z.string().trim().min(1, 'must not be empty').max(80)).min(1).max(4).nullable().optional(),
  max_repairs: z.number().int().min(0).max(5).default(1),
  metadata: z.record(z.string(), z.unknown()).optional(),
  stream: z.literal(false, 'streamed partial images are not served; leave stream out or false').optional(),
};

/** POST /v1/images/generations (spec §2.6). */
export const ImageGenerationRequestSchema = z.looseObject(imageRequestShape);

/** A parsed generation request. */
export type ImageGenerationRequest = z.output<typeof ImageGenerationRequestSchema>;

/**
 * POST /v1/images/edits as JSON: the generation fields with `input_references` (at least one,
 * file ids or image URLs) and an optional `mask` reference. Multipart bodies carry the same
 * fields as form fields and the images as `image` / `image[]` file parts.
 */
export const ImageEditJsonSchema = z.looseObject({
  ...imageRequestShape,
  input_references: z.array(InputReferenceSchema).min(1, 'give at least one reference image').max(16),
  mask: InputReferenceSchema.optional(),
});

/** A parsed JSON edit request. */
export type ImageEditJson = z.output<typeof ImageEditJsonSchema>;

/** Form fields of a multipart edit that are numbers or lists on the wire (text in a form). */
export const IMAGE_FORM_INTEGERS = ['n', 'output_compression', 'seed', 'max_repairs'] as const;

/** The tier of an image request. */
export type ImageTier = 'standard' | 'premium';

/** One generation or repair attempt as reported in `svc.attempts`. */
export const ImageAttemptSchema = z.strictObject({
  image: z.number().int(),
  attempt: z.number().int(),
  outcome: z.enum(['accepted', 'text_mismatch', 'text_found']),
  ocr_text: z.string().nullable(),
  our_cost_usd: z.number(),
  price_usd: z.number(),
});

/** The `svc` block of an image response. */
export const ImageSvcSchema = z.strictObject({
  model_version: z.string(),
  tier: z.enum(['standard', 'premium']),
  backend: z.string(),
  price_usd: z.number(),
  our_cost_usd: z.number(),
  billing: z.strictObject({
    pricing_version: z.string(),
    billing_basis: z.literal('cost_plus'),
    markup_percent: z.number(),
  }),
  text_policy: z.enum(TEXT_POLICIES),
  seed: z.number().int(),
  attempts: z.array(ImageAttemptSchema),
  url_expires_at: z.number().int().nullable(),
});

/** POST /v1/images/generations and /v1/images/edits: the images and what they cost. */
export const ImagesResponseSchema = z.strictObject({
  created: z.number().int(),
  data: z.array(
    z.strictObject({
      b64_json: z.string().optional(),
      url: z.string().optional(),
      revised_prompt: z.string().optional(),
    }),
  ),
  background: z.enum(['transparent', 'opaque']),
  output_format: z.enum(['png', 'jpeg', 'webp']),
  quality: z.enum(['low', 'medium', 'high']),
  size: z.string(),
  svc: ImageSvcSchema,
});

/** An image response on the wire. */
export type ImagesResponse = z.output<typeof ImagesResponseSchema>;
