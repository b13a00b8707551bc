/** The API description version and the current model version (spec 9.3). */
export const MODEL_VERSION = '1.1.3';

/** The moving model id; always the current production version. */
export const MOVING_MODEL_ID = 'pro-1';

/** A model card (spec: identifier, version and readiness; the rest is ours). */
export interface ModelCard {
  id: string;
  object: 'model';
  created: number;
  owned_by: 'svc';
  version: string;
  readiness: 'ready' | 'degraded' | 'unavailable';
  /** For a dated snapshot: the moving id it froze. */
  snapshot_of: string | null;
  /** What the snapshot pins; absent for the moving id. */
  context_window: number;
  max_output_tokens: number;
}

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
