import { z } from 'zod';

/** The evidence package format this server reads. */
export const EVIDENCE_FORMAT = 'svc-bench-evidence/1';

/** The manifest's file name inside a package, and the detached signature's. */
export const MANIFEST_FILE = 'manifest.json';
export const SIGNATURE_FILE = 'manifest.sig';

/** A benchmark id: the scenario name of `npm run bench` (`chat`, `sse-hold`, `micro`, …). */
export const BenchIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be a benchmark id (lower-case letters, digits and dashes)');

/** One file of a package: where it is, its SHA-256 (hex) and its size. */
export const ManifestFileSchema = z.strictObject({
  path: z
    .string()
    .regex(
      /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._\/-]{1,200}$/,
      'must be a relative path without . or .. segments',
    ),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().min(0),
});

/** One benchmark of the catalog, with the rights to publish it. */
export const ManifestCatalogEntrySchema = z.strictObject({
  bench_id: BenchIdSchema,
  title: z.string().min(1).max(200),
  domain: z.string().min(1).max(64),
  description: z.string().max(2000),
  metrics: z.array(z.string().max(200)).max(32),
  /** The report file (one of `files`) that holds this benchmark's latest run. */
  report: z.string().max(200),
  rights: z.strictObject({
    /** Only entries with `cleared: true` are ever shown. */
    cleared: z.boolean(),
    licence: z.string().max(200),
    basis: z.string().max(500),
  }),
});

/** A system the benchmarks measured: ours, or a baseline. */
export const ManifestParticipantSchema = z.strictObject({
  name: z.string().min(1).max(200),
  role: z.enum(['ours', 'baseline', 'reference']),
  description: z.string().max(1000),
});

/** The signed manifest: every file's digest, the catalog with rights flags, the participants. */
export const EvidenceManifestSchema = z.strictObject({
  format: z.literal(EVIDENCE_FORMAT),
  package_id: z.string().regex(/^bep_[0-9A-Za-z_-]{1,100}$/),
  published_at: z.iso.datetime(),
  generator: z.string().max(200),
  key_id: z.string().regex(/^[0-9a-f]{16}$/),
  source: z.strictObject({ commit: z.string().max(64), reports: z.array(z.string().max(200)).max(1000) }),
  files: z.array(ManifestFileSchema).min(1).max(1000),
  catalog: z.array(ManifestCatalogEntrySchema).max(200),
  participants: z.array(ManifestParticipantSchema).max(200),
});

/** A manifest. */
export type EvidenceManifest = z.output<typeof EvidenceManifestSchema>;

/** A catalog entry of a manifest. */
export type ManifestCatalogEntry = z.output<typeof ManifestCatalogEntrySchema>;

/**
 * What `npm run bench` writes to `bench/results/<timestamp>.json`, as far as the views read it:
 * when, which commit and machine, and the scenario sections (`load[]`, `micro`, `host`).
 */
export const BenchReportSchema = z.looseObject({
  when: z.string(),
  commit: z.string(),
  node: z.string(),
  machine: z.looseObject({ cpus: z.number(), cpu: z.string(), memory_gib: z.number() }),
  micro: z.array(z.looseObject({})).optional(),
  host: z.looseObject({}).optional(),
  load: z.array(z.looseObject({ scenario: z.string() })).default([]),
});

/** A bench report. */
export type BenchReport = z.output<typeof BenchReportSchema>;

// ---- The public views ----

const MachineSchema = z.strictObject({ cpus: z.number(), cpu: z.string(), memory_gib: z.number() });
const EvidenceRefSchema = z.strictObject({ path: z.string(), sha256: z.string() });

/** One measured system in a benchmark's latest run, with its numeric figures flattened (`latencyMs.p99`). */
export const BenchmarkRowSchema = z.strictObject({
  name: z.string(),
  role: z.string(),
  figures: z.record(z.string(), z.number()),
});

/** GET /v1/benchmarks/live: the latest verified run of each rights-cleared benchmark. */
export const BenchmarkLiveObjectSchema = z.strictObject({
  object: z.literal('benchmark.live'),
  package_id: z.string(),
  published_at: z.string(),
  verified_at: z.number().int(),
  data: z.array(
    z.strictObject({
      bench_id: z.string(),
      title: z.string(),
      domain: z.string(),
      status: z.enum(['measured', 'failed']),
      ran_at: z.string(),
      commit: z.string(),
      node: z.string(),
      machine: MachineSchema,
      rows: z.array(BenchmarkRowSchema),
      error: z.string().nullable(),
      evidence: EvidenceRefSchema,
    }),
  ),
});

/** The live view on the wire. */
export type BenchmarkLiveObject = z.output<typeof BenchmarkLiveObjectSchema>;

/** GET /v1/benchmarks/live-per-domain/{bench_id}: one benchmark's whole verified section, as recorded. */
export const BenchmarkDomainObjectSchema = z.strictObject({
  object: z.literal('benchmark.domain'),
  package_id: z.string(),
  bench_id: z.string(),
  title: z.string(),
  domain: z.string(),
  description: z.string(),
  metrics: z.array(z.string()),
  ran_at: z.string(),
  commit: z.string(),
  node: z.string(),
  machine: MachineSchema,
  evidence: EvidenceRefSchema,
  result: z.unknown(),
});

/** A domain view on the wire. */
export type BenchmarkDomainObject = z.output<typeof BenchmarkDomainObjectSchema>;

/** GET /v1/benchmarks/catalog: only entries the manifest marks rights-cleared. */
export const BenchmarkCatalogObjectSchema = z.strictObject({
  object: z.literal('list'),
  package_id: z.string(),
  data: z.array(
    z.strictObject({
      object: z.literal('benchmark.catalog_entry'),
      bench_id: z.string(),
      title: z.string(),
      domain: z.string(),
      description: z.string(),
      metrics: z.array(z.string()),
      licence: z.string(),
      rights_basis: z.string(),
    }),
  ),
});

/** The catalog on the wire. */
export type BenchmarkCatalogObject = z.output<typeof BenchmarkCatalogObjectSchema>;

/** GET /v1/benchmarks/participants: the systems measured, and in which benchmarks. */
export const BenchmarkParticipantsObjectSchema = z.strictObject({
  object: z.literal('list'),
  package_id: z.string(),
  data: z.array(
    z.strictObject({
      object: z.literal('benchmark.participant'),
      name: z.string(),
      role: z.string(),
      description: z.string().nullable(),
      bench_ids: z.array(z.string()),
    }),
  ),
});

/** The participants on the wire. */
export type BenchmarkParticipantsObject = z.output<typeof BenchmarkParticipantsObjectSchema>;

/** GET /v1/benchmarks/publication: the package served, how it was verified, and its source. */
export const BenchmarkPublicationObjectSchema = z.strictObject({
  object: z.literal('benchmark.publication'),
  package_id: z.string(),
  format: z.string(),
  published_at: z.string(),
  verified_at: z.number().int(),
  generator: z.string(),
  manifest_sha256: z.string(),
  signature: z.strictObject({ algorithm: z.literal('Ed25519'), key_id: z.string() }),
  source: z.strictObject({ commit: z.string(), reports: z.array(z.string()) }),
  files: z.number().int(),
  catalog_entries: z.number().int(),
  rights_cleared_entries: z.number().int(),
});

/** The publication view on the wire. */
export type BenchmarkPublicationObject = z.output<typeof BenchmarkPublicationObjectSchema>;
