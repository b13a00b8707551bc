import type { KeyObject } from 'node:crypto';
import type {
  BenchmarkCatalogObject,
  BenchmarkDomainObject,
  BenchmarkLiveObject,
  BenchmarkParticipantsObject,
  BenchmarkPublicationObject,
} from '../../protocols/benchmarks.js';
import { ApiError } from '../../protocols/errors.js';
import type { Clock } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import { catalogView, domainView, liveView, participantsView, publicationView } from './benchmark-views.js';
import { EvidenceError, verifyEvidence, type VerifiedPackage } from './evidence-package.js';

/** Where a package's files come from: a fingerprint that changes with any file, and the files themselves. */
export interface EvidenceSource {
  /** Changes whenever a file of the package is written, added, removed or replaced. */
  fingerprint(): Promise<string>;
  /** Every file of the package, path → bytes. */
  read(): Promise<Map<string, Buffer>>;
}

/** What the benchmark views are served from; `source` or `publicKey` null: not configured. */
export interface BenchmarkServiceOptions {
  source: EvidenceSource | null;
  publicKey: KeyObject | null;
  clock: Clock;
  logger: Logger;
  /** A verified package is read and verified again at least this often, even when its fingerprint holds. */
  reverifyMs: number;
}

interface Verified {
  pkg: VerifiedPackage;
  fingerprint: string;
  verifiedAt: number;
}

const unavailable = (message: string) =>
  new ApiError(
    'benchmarks_unavailable',
    `Benchmark views are unavailable: ${message}. Nothing is served without a verified evidence package.`,
  );

/**
 * The public benchmark views, served only from a verified evidence package and fail-closed: every
 * answer first checks that the package on disk is the one verified (a stat fingerprint of every
 * file), and reads and verifies it whole again when it changed or is older than `reverifyMs`. A
 * missing, altered, unsigned or wrongly signed package is a 503 `benchmarks_unavailable`; nothing
 * is ever served from part of a package or from a package that no longer verifies.
 */
export class BenchmarkService {
  private verified: Verified | null = null;
  private lastFailure: string | null = null;
  private running: Promise<Verified> | null = null;

  constructor(private readonly options: BenchmarkServiceOptions) {}

  /** Whether a package source and a public key are configured. */
  get configured(): boolean {
    return this.options.source !== null && this.options.publicKey !== null;
  }

  /** GET /v1/benchmarks/live. */
  async live(): Promise<BenchmarkLiveObject> {
    const { pkg, verifiedAt } = await this.current();
    return liveView(pkg, verifiedAt);
  }

  /** GET /v1/benchmarks/live-per-domain/{bench_id}: 404 when the package has no public evidence for it. */
  async domain(benchId: string): Promise<BenchmarkDomainObject> {
    const { pkg } = await this.current();
    const view = domainView(pkg, benchId);
    if (!view)
      throw new ApiError(
        'not_found',
        `No published evidence for benchmark ${benchId}: campaign details are public only from a verified, rights-cleared evidence package.`,
        { param: 'bench_id' },
      );
    return view;
  }

  /** GET /v1/benchmarks/catalog. */
  async catalog(): Promise<BenchmarkCatalogObject> {
    return catalogView((await this.current()).pkg);
  }

  /** GET /v1/benchmarks/participants. */
  async participants(): Promise<BenchmarkParticipantsObject> {
    return participantsView((await this.current()).pkg);
  }

  /** GET /v1/benchmarks/publication. */
  async publication(): Promise<BenchmarkPublicationObject> {
    const { pkg, verifiedAt } = await this.current();
    return publicationView(pkg, verifiedAt);
  }

  /** The verified package as it is on disk now; 503 when there is none. */
  private async current(): Promise<Verified> {
    const { source, publicKey, clock, reverifyMs } = this.options;
    if (!source || !publicKey)
      throw unavailable('no evidence package is configured (SVC_BENCH_EVIDENCE_DIR, SVC_BENCH_EVIDENCE_PUBLIC_KEY)');
    let fingerprint: string;
    try {
      fingerprint = await source.fingerprint();
    } catch (err) {
      throw this.refuse(err);
    }
    const held = this.verified;
    if (held && held.fingerprint === fingerprint && clock.now() - held.verifiedAt < reverifyMs) return held;
    this.verified = null;
    // One verification at a time; callers arriving meanwhile share it.
    this.running ??= this.verify(source, publicKey, fingerprint).finally(() => (this.running = null));
    return this.running;
  }

  private async verify(source: EvidenceSource, publicKey: KeyObject, fingerprint: string): Promise<Verified> {
    try {
      const files = await source.read();
      const pkg = verifyEvidence(files, publicKey);
      // A file changed while it was read: the fingerprint no longer describes what was verified.
      if ((await source.fingerprint()) !== fingerprint)
        throw new EvidenceError('altered', 'the package changed while it was verified');
      const verified = { pkg, fingerprint, verifiedAt: this.options.clock.now() };
      this.verified = verified;
      if (this.lastFailure !== null)
        this.options.logger.info('benchmark evidence verified again', { package_id: pkg.manifest.package_id });
      this.lastFailure = null;
      return verified;
    } catch (err) {
      throw this.refuse(err);
    }
  }

  /** The 503 for a package that could not be read or verified, logged once per distinct reason. */
  private refuse(err: unknown): ApiError {
    const message =
      err instanceof EvidenceError
        ? `the evidence package is refused (${err.failure}: ${err.message})`
        : `the evidence package cannot be read (${err instanceof Error ? err.message : String(err)})`;
    if (message !== this.lastFailure) {
      this.lastFailure = message;
      this.options.logger.warn('benchmark evidence refused', { reason: message });
    }
    return unavailable(
      err instanceof EvidenceError
        ? `the evidence package does not verify (${err.failure})`
        : 'the evidence package cannot be read',
    );
  }
}
