import type {
  BenchReport,
  BenchmarkCatalogObject,
  BenchmarkDomainObject,
  BenchmarkLiveObject,
  BenchmarkParticipantsObject,
  BenchmarkPublicationObject,
  ManifestCatalogEntry,
} from '../../protocols/benchmarks.js';
import type { VerifiedPackage } from './evidence-package.js';

/** Keys of a result row that are not figures of the system measured. */
const NOT_FIGURES = new Set(['pid', 'errors', 'errorSamples', 'settings', 'note', 'status']);
/** The most figures one row shows in the live view (the domain view has them all). */
const MAX_FIGURES = 24;

/** A benchmark's section of a report: `load[]` by scenario name, or the top-level `micro` / `host`. */
export function sectionOf(report: BenchReport, benchId: string): unknown {
  const scenario = report.load.find((entry) => entry.scenario === benchId);
  if (scenario) return scenario;
  if (benchId === 'micro') return report.micro;
  if (benchId === 'host') return report.host;
  return undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Numeric leaves of a row, two levels deep, as `a` or `a.b`. */
function figuresOf(row: Record<string, unknown>): Record<string, number> {
  const figures: Record<string, number> = {};
  let count = 0;
  const put = (key: string, value: unknown) => {
    if (count < MAX_FIGURES && typeof value === 'number' && Number.isFinite(value)) {
      figures[key] = value;
      count++;
    }
  };
  for (const [key, value] of Object.entries(row)) {
    if (NOT_FIGURES.has(key)) continue;
    if (!isRecord(value)) {
      put(key, value);
      continue;
    }
    for (const [inner, leaf] of Object.entries(value)) {
      if (!NOT_FIGURES.has(inner)) put(`${key}.${inner}`, leaf);
    }
  }
  return figures;
}

/** The systems of a section: its `rows` (load scenarios) or its items (micro benchmarks). */
function rowsOf(section: unknown): { name: string; role: string; figures: Record<string, number> }[] {
  const items = Array.isArray(section) ? section : isRecord(section) && Array.isArray(section.rows) ? section.rows : [];
  return items.filter(isRecord).map((row) => {
    const group = typeof row.group === 'string' ? `${row.group}: ` : '';
    const name = `${group}${typeof row.name === 'string' ? row.name : 'unnamed'}`;
    const role = typeof row.role === 'string' ? row.role : row.baseline === true ? 'baseline' : 'ours';
    return { name, role, figures: figuresOf(row) };
  });
}

/** The entries that may be shown: rights-cleared, with a section in their report. */
function shownEntries(pkg: VerifiedPackage): { entry: ManifestCatalogEntry; report: BenchReport; section: unknown }[] {
  return pkg.manifest.catalog.flatMap((entry) => {
    if (!entry.rights.cleared) return [];
    const report = pkg.reports.get(entry.report)!;
    const section = sectionOf(report, entry.bench_id);
    return section === undefined ? [] : [{ entry, report, section }];
  });
}

const machineOf = (report: BenchReport) => ({
  cpus: report.machine.cpus,
  cpu: report.machine.cpu,
  memory_gib: report.machine.memory_gib,
});

/** GET /v1/benchmarks/live. */
export function liveView(pkg: VerifiedPackage, verifiedAt: number): BenchmarkLiveObject {
  return {
    object: 'benchmark.live',
    package_id: pkg.manifest.package_id,
    published_at: pkg.manifest.published_at,
    verified_at: Math.floor(verifiedAt / 1000),
    data: shownEntries(pkg).map(({ entry, report, section }) => {
      const error = isRecord(section) && typeof section.error === 'string' ? section.error : null;
      return {
        bench_id: entry.bench_id,
        title: entry.title,
        domain: entry.domain,
        status: error ? ('failed' as const) : ('measured' as const),
        ran_at: report.when,
        commit: report.commit,
        node: report.node,
        machine: machineOf(report),
        rows: rowsOf(section),
        error,
        evidence: { path: entry.report, sha256: pkg.digests.get(entry.report)! },
      };
    }),
  };
}

/** GET /v1/benchmarks/live-per-domain/{bench_id}; undefined when the package has no public evidence for it. */
export function domainView(pkg: VerifiedPackage, benchId: string): BenchmarkDomainObject | undefined {
  const shown = shownEntries(pkg).find(({ entry }) => entry.bench_id === benchId);
  if (!shown) return undefined;
  const { entry, report, section } = shown;
  return {
    object: 'benchmark.domain',
    package_id: pkg.manifest.package_id,
    bench_id: entry.bench_id,
    title: entry.title,
    domain: entry.domain,
    description: entry.description,
    metrics: entry.metrics,
    ran_at: report.when,
    commit: report.commit,
    node: report.node,
    machine: machineOf(report),
    evidence: { path: entry.report, sha256: pkg.digests.get(entry.report)! },
    result: section,
  };
}

/** GET /v1/benchmarks/catalog: rights-cleared entries only. */
export function catalogView(pkg: VerifiedPackage): BenchmarkCatalogObject {
  return {
    object: 'list',
    package_id: pkg.manifest.package_id,
    data: pkg.manifest.catalog
      .filter((entry) => entry.rights.cleared)
      .map((entry) => ({
        object: 'benchmark.catalog_entry' as const,
        bench_id: entry.bench_id,
        title: entry.title,
        domain: entry.domain,
        description: entry.description,
        metrics: entry.metrics,
        licence: entry.rights.licence,
        rights_basis: entry.rights.basis,
      })),
  };
}

/** GET /v1/benchmarks/participants: every system of the shown benchmarks, described when the manifest does. */
export function participantsView(pkg: VerifiedPackage): BenchmarkParticipantsObject {
  const seen = new Map<string, { role: string; benchIds: string[] }>();
  for (const { entry, section } of shownEntries(pkg)) {
    for (const row of rowsOf(section)) {
      const known = seen.get(row.name) ?? { role: row.role, benchIds: [] };
      if (!known.benchIds.includes(entry.bench_id)) known.benchIds.push(entry.bench_id);
      seen.set(row.name, known);
    }
  }
  const described = new Map(pkg.manifest.participants.map((p) => [p.name, p]));
  return {
    object: 'list',
    package_id: pkg.manifest.package_id,
    data: [...seen].map(([name, { role, benchIds }]) => ({
      object: 'benchmark.participant' as const,
      name,
      role: described.get(name)?.role ?? role,
      description: described.get(name)?.description ?? null,
      bench_ids: benchIds,
    })),
  };
}

/** GET /v1/benchmarks/publication. */
export function publicationView(pkg: VerifiedPackage, verifiedAt: number): BenchmarkPublicationObject {
  const { manifest } = pkg;
  return {
    object: 'benchmark.publication',
    package_id: manifest.package_id,
    format: manifest.format,
    published_at: manifest.published_at,
    verified_at: Math.floor(verifiedAt / 1000),
    generator: manifest.generator,
    manifest_sha256: pkg.manifestSha256,
    signature: { algorithm: 'Ed25519', key_id: manifest.key_id },
    source: { commit: manifest.source.commit, reports: manifest.source.reports },
    files: manifest.files.length,
    catalog_entries: manifest.catalog.length,
    rights_cleared_entries: manifest.catalog.filter((entry) => entry.rights.cleared).length,
  };
}
