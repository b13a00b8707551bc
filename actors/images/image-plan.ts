import {
  DEFAULT_IMAGE_SIZE,
  IMAGE_GEOMETRY,
  resolveGeometry,
  type Geometry,
  type ImageGenerationRequest,
  type ImageTier,
} from '../../protocols/images.js';
import { mediaPriceMicros } from '../../protocols/pricing.js';
import { fieldError } from '../../protocols/validation.js';

/** Above this many pixels (1536×1536) an image is premium unless `quality` says otherwise. */
export const PREMIUM_PIXELS = 1536 * 1536;

/** The text policy of a request. */
export type TextPolicy = 'none' | 'exact' | 'no_text';

/** Everything decided about an image request before any spend. */
export interface ImagePlan {
  /** The model id as asked (checked by the caller). */
  model: string;
  geometry: Geometry;
  tier: ImageTier;
  /** `quality` as the response reports it. */
  quality: 'low' | 'medium' | 'high';
  n: number;
  format: 'png' | 'jpeg' | 'webp';
  compression: number | null;
  background: 'transparent' | 'opaque';
  responseFormat: 'b64_json' | 'url';
  policy: TextPolicy;
  expectedText: string[];
  /** Repairs allowed per image (0 without a policy). */
  maxRepairs: number;
  seed: number;
  /** Backend cost and price of one attempt, micro-USD. */
  attemptCostMicros: number;
  attemptPriceMicros: number;
  /** The worst case: every image using every repair. */
  holdMicros: number;
}

/** The fields a plan reads (generations and edits share them). */
export type PlanInput = Pick<
  ImageGenerationRequest,
  | 'model'
  | 'n'
  | 'size'
  | 'aspect_ratio'
  | 'resolution'
  | 'quality'
  | 'input_fidelity'
  | 'output_format'
  | 'output_compression'
  | 'background'
  | 'response_format'
  | 'text_policy'
  | 'expected_text'
  | 'max_repairs'
  | 'seed'
>;

/**
 * The tier rule (docs/images.md): `quality` `high`/`hd` is premium and `low`/`standard`
 * standard, whatever else the request says; otherwise an exact-text policy, more than
 * 1536×1536 pixels or `input_fidelity: high` make it premium, and anything else is standard.
 */
export function imageTier(
  request: Pick<PlanInput, 'quality' | 'text_policy' | 'expected_text' | 'input_fidelity'>,
  geometry: Geometry,
): ImageTier {
  if (request.quality === 'high' || request.quality === 'hd') return 'premium';
  if (request.quality === 'low' || request.quality === 'standard') return 'standard';
  const exact = request.text_policy === 'exact' || (!request.text_policy && Boolean(request.expected_text?.length));
  if (exact || geometry.width * geometry.height > PREMIUM_PIXELS || request.input_fidelity === 'high') return 'premium';
  return 'standard';
}

/** The text policy and its lines, or a 422 naming the field when they contradict each other. */
function policyOf(request: PlanInput): { policy: TextPolicy; expectedText: string[] } {
  const lines = request.expected_text ?? [];
  const policy: TextPolicy = request.text_policy ?? (lines.length > 0 ? 'exact' : 'none');
  if (policy === 'exact' && lines.length === 0)
    throw fieldError(
      ['body', 'expected_text'],
      'required when text_policy is exact: the lines of text the image must show',
      'missing',
    );
  if (policy !== 'exact' && lines.length > 0)
    throw fieldError(['body', 'expected_text'], `must be left out when text_policy is ${policy}`);
  return { policy, expectedText: lines };
}

function reportedQuality(quality: PlanInput['quality'], tier: ImageTier): ImagePlan['quality'] {
  if (quality === 'low' || quality === 'medium' || quality === 'high') return quality;
  if (quality === 'hd') return 'high';
  if (quality === 'standard') return 'low';
  return tier === 'premium' ? 'high' : 'medium';
}

/**
 * Decides an image request before any spend: geometry (`fallback` for `auto`: 1024×1024 for a
 * generation, the first reference's size for an edit), tier, encoding, text policy, seed (a
 * random one when absent, reported back) and money: one attempt's cost and price, and the hold
 * for `n` images with every repair. Every contradiction is a 422 naming its field.
 */
export function planImages(
  request: PlanInput,
  options: {
    fallback?: Geometry;
    costMicros: (tier: ImageTier, geometry: Geometry) => number;
    randomSeed: () => number;
  },
): ImagePlan {
  const geometry = resolveGeometry(request, options.fallback ?? DEFAULT_IMAGE_SIZE, IMAGE_GEOMETRY);
  const { policy, expectedText } = policyOf(request);
  const format = request.output_format ?? 'png';
  const background = request.background === 'transparent' ? 'transparent' : 'opaque';
  if (background === 'transparent' && format === 'jpeg')
    throw fieldError(['body', 'background'], 'transparent needs output_format png or webp (JPEG has no alpha channel)');
  const tier = imageTier(request, geometry);
  const maxRepairs = policy === 'none' ? 0 : request.max_repairs;
  const attemptCostMicros = options.costMicros(tier, geometry);
  const attemptPriceMicros = mediaPriceMicros(attemptCostMicros);
  return {
    model: request.model,
    geometry,
    tier,
    quality: reportedQuality(request.quality, tier),
    n: request.n,
    format,
    compression: request.output_compression ?? null,
    background,
    responseFormat: request.response_format ?? 'b64_json',
    policy,
    expectedText,
    maxRepairs,
    seed: request.seed ?? options.randomSeed(),
    attemptCostMicros,
    attemptPriceMicros,
    holdMicros: attemptPriceMicros * request.n * (1 + maxRepairs),
  };
}

/** A size that `auto` may use for an edit: the reference's, snapped to the supported set (multiples of 16, clamped, at most 4:1). */
export function editFallback(reference: Geometry): Geometry {
  const { multiple, minSide, maxSide, maxAspect } = IMAGE_GEOMETRY;
  const clamp = (v: number) => Math.min(maxSide, Math.max(minSide, Math.round(v / multiple) * multiple));
  let width = clamp(reference.width);
  let height = clamp(reference.height);
  if (width > height * maxAspect) width = height * maxAspect;
  if (height > width * maxAspect) height = width * maxAspect;
  return { width, height };
}
