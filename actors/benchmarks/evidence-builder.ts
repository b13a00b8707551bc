import { createHash, sign, type KeyObject } from 'node:crypto';
import {
  BenchReportSchema,
  EVIDENCE_FORMAT,
  MANIFEST_FILE,
  SIGNATURE_FILE,
  type BenchReport,
  type EvidenceManifest,
  type ManifestCatalogEntry,
} from '../../protocols/benchmarks.js';
import { sectionOf } from './benchmark-views.js';
import { keyIdOf } from './evidence-package.js';

/** A catalog entry as the publisher declares it; the report it points at is chosen when publishing. */
export type CatalogDeclaration = Omit<ManifestCatalogEntry, 'report'>;

/** What a package is made from. */
export interface EvidenceInput {
  /** Bench reports (`bench/results/*.json`) by file name, bytes kept exactly as written. */
  reports: readonly { name: string; bytes: Buffer }[];
  catalog: readonly CatalogDeclaration[];
  participants: EvidenceManifest['participants'];
  publishedAt: Date;
  generator: string;
  privateKey: KeyObject;
}

/** A built, signed package: its files (manifest and signature included) and what was left out. */
export interface BuiltEvidence {
  files: Map<string, Buffer>;
  manifest: EvidenceManifest;
  /** Catalog entries no report had a run of. */
  omitted: string[];
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const hasError = (section: unknown) => typeof section === 'object' && section !== null && 'error' in section;

/** The newest report with a successful run of `benchId`, else the newest with any run of it. */
function latestRun(
  reports: readonly { name: string; report: BenchReport }[],
  benchId: string,
): { name: string; report: BenchReport } | undefined {
  const runs = reports
    .filter(({ report }) => sectionOf(report, benchId) !== undefined)
    .sort((a, b) => b.report.when.localeCompare(a.report.when));
  return runs.find(({ report }) => !hasError(sectionOf(report, benchId))) ?? runs[0];
}

/**
 * Builds a signed evidence package from bench reports: for each catalog entry the newest report
 * with a successful run of it (else the newest failed one), copied byte for byte under `reports/`;
 * a manifest listing every file's SHA-256 and size, the catalog with its rights flags and the
 * participants; and `manifest.sig`, the Ed25519 signature of the manifest's exact bytes.
 */
export function buildEvidence(input: EvidenceInput): BuiltEvidence {
  const parsed = input.reports.map(({ name, bytes }) => {
    const result = BenchReportSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    if (!result.success)
      throw new Error(`${name} is not a bench report: ${result.error.issues[0]?.message ?? 'invalid'}`);
    return { name, bytes, report: result.data };
  });
  const files = new Map<string, Buffer>();
  const catalog: ManifestCatalogEntry[] = [];
  const omitted: string[] = [];
  for (const entry of input.catalog) {
    const run = latestRun(parsed, entry.bench_id);
    if (!run) {
      omitted.push(entry.bench_id);
      continue;
    }
    const path = `reports/${run.name}`;
    files.set(path, parsed.find((report) => report.name === run.name)!.bytes);
    catalog.push({ ...entry, report: path });
  }
  if (files.size === 0) throw new Error('no report has a run of any catalog entry: nothing to publish');
  const listed = [...files]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, bytes]) => ({ path, sha256: sha256(bytes), bytes: bytes.length }));
  const reportsUsed = listed.map((file) => file.path);
  const newest = catalog
    .map((entry) => parsed.find((report) => `reports/${report.name}` === entry.report)!.report)
    .sort((a, b) => b.when.localeCompare(a.when))[0]!;
  const stamp = input.publishedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const manifest: EvidenceManifest = {
    format: EVIDENCE_FORMAT,
    package_id: `bep_${stamp}_${sha256(Buffer.from(listed.map((file) => file.sha256).join(''))).slice(0, 12)}`,
    published_at: input.publishedAt.toISOString(),
    generator: input.generator,
    key_id: keyIdOf(input.privateKey),
    source: { commit: newest.commit, reports: reportsUsed },
    files: listed,
    catalog,
    participants: input.participants,
  };
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  files.set(MANIFEST_FILE, manifestBytes);
  files.set(SIGNATURE_FILE, Buffer.from(`${sign(null, manifestBytes, input.privateKey).toString('base64')}\n`));
  return { files, manifest, omitted };
}
