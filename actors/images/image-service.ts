import { randomInt } from 'node:crypto';
import { backendApiError, RetryableError, TerminalError } from '../../backends/errors.js';
import type { GeneratedImage, ImageBackend, ImageText } from '../../backends/image-generation.js';
import type { OcrBackend } from '../../backends/ocr.js';
import { ApiError } from '../../protocols/errors.js';
import {
  DEFAULT_IMAGE_SIZE,
  IMAGE_FORM_INTEGERS,
  IMAGE_GEOMETRY,
  ImageGenerationRequestSchema,
  resolveGeometry,
  type ImageEditJson,
  type ImageGenerationRequest,
} from '../../protocols/images.js';
import { requireModel } from '../../protocols/models.js';
import { microsToUsd } from '../../protocols/money.js';
import { fieldError, parseOrThrow } from '../../protocols/validation.js';
import type { Clock } from '../../runtime/clock.js';
import { newId } from '../../runtime/ids.js';
import type { Billing } from '../billing/billing.js';
import { chargedWork, type Bill } from '../billing/charged-work.js';
import type { RemoteFetchLimits } from '../chat/parts/fetch-remote.js';
import { formBody, type ReceivedForm } from './form-intake.js';
import { editFallback, planImages, type ImagePlan } from './image-plan.js';
import { checkReference, loadReference, type ReferenceFiles, type ReferenceImage } from './image-references.js';
import type { MediaLinks } from './media-links.js';
import { judgeText, type PolicyOutcome } from './text-policy.js';

/** What the images feature runs on. */
export interface ImageServiceOptions {
  backend: ImageBackend;
  /** OCR for text policies; null where no engine is installed (policies then answer 503). */
  ocr: OcrBackend | null;
  billing: Billing;
  links: MediaLinks;
  clock: Clock;
  files: ReferenceFiles;
  fetch: RemoteFetchLimits;
  /** How long `response_format: url` URLs work (and the images behind them are kept). */
  urlTtlMs: number;
}

/** Who asks, and the request's lifetime. */
export interface ImageCaller {
  accountId: string;
  tokenId: string | null;
  requestId: string | null;
  signal: AbortSignal;
}

/** One attempt as it happened. */
export interface ImageAttempt {
  image: number;
  attempt: number;
  outcome: PolicyOutcome;
  ocrText: string | null;
  costMicros: number;
  priceMicros: number;
}

/** A finished request: the images (bytes, and a media id when served by URL), the plan, the attempts and the charge. */
export interface ImageResult {
  created: number;
  plan: ImagePlan;
  backend: string;
  images: { bytes: Buffer; contentType: string; mediaId: string | null }[];
  urlExpiresAt: number | null;
  attempts: ImageAttempt[];
  costMicros: number;
  priceMicros: number;
}

/** The request fields an image run reads, after parsing (generations and edits). */
type ImageRequest = ImageGenerationRequest;

/** Thrown inside a run when an image's text policy failed after every repair. */
class PolicyUnmet extends Error {
  constructor(
    readonly image: number,
    readonly read: string,
    readonly tries: number,
  ) {
    super('text policy unmet');
  }
}

/** Limits of a multipart edit. */
export const IMAGE_FORM_LIMITS = { maxBytes: 64 * 1024 * 1024, maxFileBytes: 25 * 1024 * 1024, maxParts: 40 };

/**
 * Image generation and editing (spec §2.6, §4.3): geometry, tier and text policy decided and
 * checked before any spend, the worst case held (402 when it does not fit), images made by the
 * backend (several in parallel), each read back with OCR under a text policy and repaired up to
 * `max_repairs` times, then one charge for the attempts that happened. A failing backend charges
 * nothing. Routes, MCP tools and workers call this with plain inputs.
 */
export class ImageService {
  /** Calls made to the image backend since start (operators' figure; tests count spend with it). */
  backendCalls = 0;

  constructor(private readonly options: ImageServiceOptions) {}

  /** The backend's name (reported in `svc.backend`). */
  get backendName(): string {
    return this.options.backend.name;
  }

  /** POST /v1/images/generations: `input_references`, when given, guide the image as in an edit. */
  async generate(caller: ImageCaller, request: ImageGenerationRequest): Promise<ImageResult> {
    requireModel(request.model);
    resolveGeometry(request, DEFAULT_IMAGE_SIZE, IMAGE_GEOMETRY);
    const references = await this.loadAll(caller, request.input_references ?? [], 'input_references');
    return this.run(caller, request, references, null);
  }

  /** POST /v1/images/edits as JSON: `input_references` (file ids or image URLs) and an optional `mask`. */
  async editJson(caller: ImageCaller, request: ImageEditJson): Promise<ImageResult> {
    requireModel(request.model);
    resolveGeometry(request, DEFAULT_IMAGE_SIZE, IMAGE_GEOMETRY);
    const references = await this.loadAll(caller, request.input_references, 'input_references');
    const mask = request.mask ? await loadReference(request.mask, this.referenceContext(caller, ['mask'])) : null;
    return this.run(caller, request, references, mask);
  }

  /** POST /v1/images/edits as the SDK sends it: `image` or `image[]` file parts, an optional `mask` part, the rest as fields. */
  async editForm(caller: ImageCaller, form: ReceivedForm): Promise<ImageResult> {
    const request = parseOrThrow(
      ImageGenerationRequestSchema,
      formBody(form.fields, { integers: IMAGE_FORM_INTEGERS, booleans: ['stream'] }),
    );
    requireModel(request.model);
    resolveGeometry(request, DEFAULT_IMAGE_SIZE, IMAGE_GEOMETRY);
    const images = form.files.filter((file) => file.field === 'image' || file.field === 'image[]');
    if (images.length === 0)
      throw fieldError(
        ['body', 'image'],
        'Field required: send the image(s) to edit as file parts named image or image[]',
        'missing',
      );
    if (images.length > 16) throw fieldError(['body', 'image'], 'at most 16 images');
    const references = images.map((file, i) => checkReference(file.data, ['image', i]));
    const maskFile = form.files.find((file) => file.field === 'mask');
    const mask = maskFile ? checkReference(maskFile.data, ['mask']) : null;
    return this.run(caller, request, references, mask);
  }

  private referenceContext(caller: ImageCaller, loc: (string | number)[]) {
    return {
      accountId: caller.accountId,
      files: this.options.files,
      fetch: this.options.fetch,
      signal: caller.signal,
      loc,
    };
  }

  private loadAll(
    caller: ImageCaller,
    list: ImageGenerationRequest['input_references'] & object,
    field: string,
  ): Promise<ReferenceImage[]> {
    return Promise.all(list.map((reference, i) => loadReference(reference, this.referenceContext(caller, [field, i]))));
  }

  /** The plan of a request (geometry, tier, policy, money), or the 422 naming what is wrong; no spend. */
  plan(request: ImageRequest, references: readonly ReferenceImage[]): ImagePlan {
    const { backend } = this.options;
    const first = references[0]?.header;
    return planImages(request, {
      fallback: first ? editFallback(first) : DEFAULT_IMAGE_SIZE,
      costMicros: (tier, { width, height }) => backend.costMicros({ tier, width, height }),
      randomSeed: () => randomInt(0, 2 ** 31),
    });
  }

  private async run(
    caller: ImageCaller,
    request: ImageRequest,
    references: ReferenceImage[],
    mask: ReferenceImage | null,
  ): Promise<ImageResult> {
    const { billing, ocr } = this.options;
    const plan = this.plan(request, references);
    if (plan.policy !== 'none' && !ocr)
      throw new ApiError(
        'ocr_unavailable',
        `text_policy ${plan.policy} needs OCR, and this server has no OCR engine (tesseract). Nothing was charged.`,
        { param: 'text_policy' },
      );
    const attempts: ImageAttempt[] = [];
    const controller = new AbortController();
    const abort = () => controller.abort(caller.signal.reason);
    caller.signal.addEventListener('abort', abort, { once: true });
    try {
      // Attempts made are charged when the images are made, when a text policy stays unmet, and
      // when the client left; a failing backend charges nothing.
      const { result, micros } = await chargedWork(
        billing,
        {
          payer: caller,
          hold: plan.holdMicros,
          bill: () => this.bill(plan, attempts),
          billFailure: () => (caller.signal.aborted ? this.bill(plan, attempts) : null),
        },
        () => this.make({ caller, request, plan, references, mask, attempts, controller }),
      );
      if ('unmet' in result) throw this.unmet(result.unmet, plan, attempts, micros);
      return {
        created: Math.floor(this.options.clock.now() / 1000),
        plan,
        backend: this.backendName,
        images: result.images,
        urlExpiresAt: result.urlExpiresAt,
        attempts: sorted(attempts),
        costMicros: sum(attempts, 'costMicros'),
        priceMicros: micros,
      };
    } catch (err) {
      if (caller.signal.aborted || !(err instanceof TerminalError || err instanceof RetryableError)) throw err;
      throw backendApiError(err, `Image generation failed: ${err.message}. Nothing was charged.`);
    } finally {
      caller.signal.removeEventListener('abort', abort);
    }
  }

  /** Makes every image (stored behind a URL when asked); a text policy still unmet after the repairs is a result, not a throw. */
  private async make(input: {
    caller: ImageCaller;
    request: ImageRequest;
    plan: ImagePlan;
    references: ReferenceImage[];
    mask: ReferenceImage | null;
    attempts: ImageAttempt[];
    /** Aborted by the first image that fails, so the others stop. */
    controller: AbortController;
  }): Promise<{ images: ImageResult['images']; urlExpiresAt: number | null } | { unmet: PolicyUnmet }> {
    const { caller, request, plan, references, mask, attempts, controller } = input;
    let made: GeneratedImage[];
    try {
      made = await Promise.all(
        Array.from({ length: plan.n }, (_, image) =>
          this.makeImage({ request, plan, image, references, mask, attempts, signal: controller.signal }).catch(
            (err: unknown) => {
              controller.abort(err);
              throw err;
            },
          ),
        ),
      );
    } catch (err) {
      if (err instanceof PolicyUnmet) return { unmet: err };
      throw err;
    }
    const urlExpiresAt = plan.responseFormat === 'url' ? this.options.clock.now() + this.options.urlTtlMs : null;
    const images = await Promise.all(
      made.map(async (image) => ({
        bytes: image.bytes,
        contentType: image.contentType,
        mediaId: urlExpiresAt === null ? null : await this.store(caller, image, urlExpiresAt),
      })),
    );
    return { images, urlExpiresAt };
  }

  private async store(caller: ImageCaller, image: GeneratedImage, expiresAt: number): Promise<string> {
    const record = await this.options.links.put({
      id: newId('img'),
      ownerId: caller.accountId,
      kind: 'image',
      contentType: image.contentType,
      expiresAt,
      data: image.bytes,
    });
    return record.id;
  }

  /** One image: attempts until its text policy passes or the repairs run out. */
  private async makeImage(input: {
    request: ImageRequest;
    plan: ImagePlan;
    image: number;
    references: ReferenceImage[];
    mask: ReferenceImage | null;
    attempts: ImageAttempt[];
    signal: AbortSignal;
  }): Promise<GeneratedImage> {
    const { request, plan, image, signal } = input;
    const text: ImageText =
      plan.policy === 'exact'
        ? { mode: 'exact', lines: plan.expectedText }
        : plan.policy === 'no_text'
          ? { mode: 'none' }
          : null;
    let repairOf: string | null = null;
    for (let attempt = 0; ; attempt++) {
      signal.throwIfAborted();
      this.backendCalls++;
      const made = await this.options.backend.render({
        prompt: request.prompt,
        negativePrompt: request.negative_prompt ?? null,
        width: plan.geometry.width,
        height: plan.geometry.height,
        tier: plan.tier,
        seed: (plan.seed + image) % 2 ** 32,
        format: plan.format,
        compression: plan.compression,
        background: plan.background,
        text,
        references: input.references.map((ref) => ref.data),
        mask: input.mask?.data ?? null,
        attempt,
        repairOf,
        script: scriptOf(request.metadata),
        signal,
      });
      const record: ImageAttempt = {
        image,
        attempt,
        outcome: 'accepted',
        ocrText: null,
        costMicros: made.costMicros,
        priceMicros: plan.attemptPriceMicros,
      };
      input.attempts.push(record);
      if (plan.policy === 'none') return made;
      const ocr = this.options.ocr!;
      const verdict = await judgeText(plan.policy, plan.expectedText, (pass) => ocr.read(made.bytes, { pass, signal }));
      record.outcome = verdict.outcome;
      record.ocrText = verdict.read;
      if (verdict.outcome === 'accepted') return made;
      if (attempt >= plan.maxRepairs) throw new PolicyUnmet(image, verdict.read, attempt + 1);
      repairOf = verdict.read;
    }
  }

  /** What the attempts made cost (each at its price; the hold caps the charge) and how the ledger names them. */
  private bill(plan: ImagePlan, attempts: readonly ImageAttempt[]): Bill {
    const { width, height } = plan.geometry;
    return {
      charge: sum(attempts, 'priceMicros'),
      description: `images: ${plan.n} × ${width}x${height} ${plan.tier}, ${attempts.length} attempt${attempts.length === 1 ? '' : 's'}`,
      model: plan.model,
      promptTokens: 0,
      completionTokens: 0,
    };
  }

  /** The 422 of a text policy still unmet after the repairs, stating what the attempts made were charged. */
  private unmet(err: PolicyUnmet, plan: ImagePlan, attempts: readonly ImageAttempt[], charged: number): ApiError {
    const what =
      plan.policy === 'exact'
        ? `should read "${plan.expectedText.join(' / ')}" but OCR read "${err.read}"`
        : `should show no text but OCR read "${err.read}"`;
    return new ApiError(
      'text_policy_unmet',
      `Image ${err.image} ${what} after ${err.tries} attempt${err.tries === 1 ? '' : 's'} (max_repairs ${plan.maxRepairs}). $${microsToUsd(charged).toFixed(6)} was charged for the ${attempts.length} attempts made.`,
      {
        param: plan.policy === 'exact' ? 'expected_text' : 'text_policy',
        headers: { 'x-svc-price-usd': microsToUsd(charged).toFixed(6) },
        detail: [
          {
            loc: ['body', plan.policy === 'exact' ? 'expected_text' : 'text_policy'],
            msg: `image ${err.image}: OCR read ${JSON.stringify(err.read)}`,
            type: 'text_policy_unmet',
          },
        ],
      },
    );
  }
}

/** `metadata.sim`, if it is an object. */
function scriptOf(metadata: Record<string, unknown> | undefined): Record<string, unknown> | null {
  const sim = metadata?.sim;
  return sim && typeof sim === 'object' && !Array.isArray(sim) ? (sim as Record<string, unknown>) : null;
}

function sum(attempts: readonly ImageAttempt[], key: 'costMicros' | 'priceMicros'): number {
  return attempts.reduce((total, attempt) => total + attempt[key], 0);
}

function sorted(attempts: readonly ImageAttempt[]): ImageAttempt[] {
  return [...attempts].sort((a, b) => a.image - b.image || a.attempt - b.attempt);
}
