import { z } from 'zod';
import { ApiError, quoted } from './errors.js';

/** The API description version and the current model version (spec 9.3). */
export const MODEL_VERSION = '1.1.3';

/** The moving model id; always the current production version. */
export const MOVING_MODEL_ID = 'pro-1';

/** A model card on the wire (spec: identifier, version and readiness; the rest is ours). */
export const ModelCardSchema = z.strictObject({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.literal('svc'),
  version: z.string(),
  readiness: z.enum(['ready', 'degraded', 'unavailable']),
  /** For a dated snapshot: the moving id it froze. */
  snapshot_of: z.string().nullable(),
  context_window: z.number().int(),
  max_output_tokens: z.number().int(),
});

/** A model card. */
export type ModelCard = z.output<typeof ModelCardSchema>;

/** GET /v1/models. */
export const ModelListObjectSchema = z.strictObject({ object: z.literal('list'), data: z.array(ModelCardSchema) });

/** The model list on the wire. */
export type ModelListObject = z.output<typeof ModelListObjectSchema>;

const CONTEXT_WINDOW = 128_000;
const MAX_OUTPUT = 16_384;

/** Immutable dated snapshots: `pro-1-YYYY-MM-DD` with the model version each one pins. */
const SNAPSHOTS: { date: string; version: string }[] = [
  { date: '2026-03-02', version: '1.0.4' },
  { date: '2026-07-11', version: MODEL_VERSION },
];

function card(id: string, version: string, createdIso: string, snapshotOf: string | null): ModelCard {
  return {
    id,
    object: 'model',
    created: Math.floor(Date.parse(createdIso) / 1000),
    owned_by: 'svc',
    version,
    readiness: 'ready',
    snapshot_of: snapshotOf,
    context_window: CONTEXT_WINDOW,
    max_output_tokens: MAX_OUTPUT,
  };
}

/** Every model the API accepts: the moving id first, then snapshots oldest first. */
export const MODEL_CATALOGUE: readonly ModelCard[] = [
  card(MOVING_MODEL_ID, MODEL_VERSION, `${SNAPSHOTS[SNAPSHOTS.length - 1]!.date}T00:00:00Z`, null),
  ...SNAPSHOTS.map((s) => card(`${MOVING_MODEL_ID}-${s.date}`, s.version, `${s.date}T00:00:00Z`, MOVING_MODEL_ID)),
];

const BY_ID = new Map(MODEL_CATALOGUE.map((model) => [model.id, model]));

/** The card for `id`, or undefined for an unknown model. */
export function findModel(id: string): ModelCard | undefined {
  return BY_ID.get(id);
}

/** Throws 404 `model_not_found` for an id the catalogue does not have. */
export function requireModel(id: string, param = 'model'): ModelCard {
  const model = findModel(id);
  if (!model)
    throw new ApiError(
      'model_not_found',
      `The model '${quoted(id)}' does not exist. Use pro-1 or a dated snapshot listed by GET /v1/models.`,
      { param },
    );
  return model;
}

/**
 * Validates `target_variant_id`: a dated snapshot the requested model can serve (any snapshot of
 * the moving id, or the snapshot itself). 422 otherwise, never silently ignored.
 */
export function requireVariant(variantId: string | null | undefined, model: ModelCard): void {
  if (variantId == null) return;
  const variant = findModel(variantId);
  if (variant && (variant.id === model.id || variant.snapshot_of === model.id)) return;
  throw new ApiError('validation_error', `target_variant_id '${quoted(variantId)}' is not a variant of ${model.id}.`, {
    param: 'target_variant_id',
    detail: [
      {
        loc: ['body', 'target_variant_id'],
        msg: `not a variant of ${model.id}; use one of its dated snapshots`,
        type: 'value_error',
      },
    ],
  });
}
