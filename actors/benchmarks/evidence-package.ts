import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { parseEd25519PublicKey } from '../../runtime/ed25519-key.js';
import {
  BenchReportSchema,
  EvidenceManifestSchema,
  MANIFEST_FILE,
  SIGNATURE_FILE,
  type BenchReport,
  type EvidenceManifest,
} from '../../protocols/benchmarks.js';

/** Why a package was refused; each one means nothing of it is served. */
export type EvidenceFailure =
  'missing' | 'unsigned' | 'bad_signature' | 'malformed' | 'altered' | 'missing_file' | 'unlisted_file';

/** A refused package: the reason and a sentence for operators (no file content). */
export class EvidenceError extends Error {
  override name = 'EvidenceError';
  constructor(
    readonly failure: EvidenceFailure,
    message: string,
  ) {
    super(message);
  }
}

/** A package whose signature and every digest checked out: what the views are made from. */
export interface VerifiedPackage {
  manifest: EvidenceManifest;
  manifestSha256: string;
  /** The package's bench reports by path, parsed. */
  reports: ReadonlyMap<string, BenchReport>;
  /** SHA-256 of each file by path, as verified. */
  digests: ReadonlyMap<string, string>;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The id of an Ed25519 key pair: the first 16 hex digits of the SHA-256 of its public key's SPKI DER. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return sha256(publicKey.export({ type: 'spki', format: 'der' })).slice(0, 16);
}

/** Reads the public key that verifies packages (PEM or base64 SPKI DER); throws when it is not Ed25519. */
export const parsePublicKey = parseEd25519PublicKey;

function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new EvidenceError('malformed', `${what} is not JSON`);
  }
}

/** Checks the detached signature over the manifest's exact bytes before anything else is read. */
function checkSignature(files: ReadonlyMap<string, Buffer>, publicKey: KeyObject): Buffer {
  const manifestBytes = files.get(MANIFEST_FILE);
  if (!manifestBytes) throw new EvidenceError('missing', `the package has no ${MANIFEST_FILE}`);
  const signatureFile = files.get(SIGNATURE_FILE);
  if (!signatureFile) throw new EvidenceError('unsigned', `the package has no ${SIGNATURE_FILE}`);
  const signature = Buffer.from(signatureFile.toString('utf8').trim(), 'base64');
  if (signature.length !== 64 || !verify(null, manifestBytes, publicKey, signature)) {
    throw new EvidenceError(
      'bad_signature',
      `${SIGNATURE_FILE} does not verify ${MANIFEST_FILE} with the configured public key`,
    );
  }
  return manifestBytes;
}

function parseManifest(manifestBytes: Buffer): EvidenceManifest {
  const parsed = EvidenceManifestSchema.safeParse(parseJson(manifestBytes, MANIFEST_FILE));
  if (!parsed.success)
    throw new EvidenceError(
      'malformed',
      `${MANIFEST_FILE} is not a ${'svc-bench-evidence/1'} manifest: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
  const manifest = parsed.data;
  const paths = new Set(manifest.files.map((file) => file.path));
  if (paths.size !== manifest.files.length) throw new EvidenceError('malformed', 'a file is listed twice');
  if (paths.has(MANIFEST_FILE) || paths.has(SIGNATURE_FILE))
    throw new EvidenceError('malformed', 'the manifest lists itself or its signature');
  const ids = new Set(manifest.catalog.map((entry) => entry.bench_id));
  if (ids.size !== manifest.catalog.length) throw new EvidenceError('malformed', 'a bench_id is listed twice');
  for (const entry of manifest.catalog) {
    if (!paths.has(entry.report))
      throw new EvidenceError(
        'malformed',
        `catalog entry ${entry.bench_id} names ${entry.report}, which is not a listed file`,
      );
  }
  return manifest;
}

/** Every listed file present with its digest and size; nothing present that is not listed. */
function checkFiles(files: ReadonlyMap<string, Buffer>, manifest: EvidenceManifest): Map<string, string> {
  const digests = new Map<string, string>();
  for (const file of manifest.files) {
    const bytes = files.get(file.path);
    if (!bytes) throw new EvidenceError('missing_file', `${file.path} is listed but missing`);
    const digest = sha256(bytes);
    if (bytes.length !== file.bytes || digest !== file.sha256)
      throw new EvidenceError('altered', `${file.path} does not match its digest`);
    digests.set(file.path, digest);
  }
  for (const path of files.keys()) {
    if (path !== MANIFEST_FILE && path !== SIGNATURE_FILE && !digests.has(path))
      throw new EvidenceError('unlisted_file', `${path} is not listed in the manifest`);
  }
  return digests;
}

/**
 * Verifies a whole evidence package held in memory (path → bytes): the Ed25519 signature over
 * `manifest.json`'s exact bytes, the manifest's shape, every file's SHA-256 and size, no file
 * missing or unlisted, and every report the catalog names parseable. Throws {@link EvidenceError}
 * on the first problem; a package is served whole or not at all.
 */
export function verifyEvidence(files: ReadonlyMap<string, Buffer>, publicKey: KeyObject): VerifiedPackage {
  const manifestBytes = checkSignature(files, publicKey);
  const manifest = parseManifest(manifestBytes);
  const digests = checkFiles(files, manifest);
  const reports = new Map<string, BenchReport>();
  for (const path of new Set(manifest.catalog.map((entry) => entry.report))) {
    const parsed = BenchReportSchema.safeParse(parseJson(files.get(path)!, path));
    if (!parsed.success) throw new EvidenceError('malformed', `${path} is not a bench report`);
    reports.set(path, parsed.data);
  }
  return { manifest, manifestSha256: sha256(manifestBytes), reports, digests };
}
