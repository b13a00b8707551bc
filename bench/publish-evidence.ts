// Builds and signs a benchmark evidence package from `npm run bench` reports:
//   npm run bench:evidence -- --key evidence-key.pem --out <dir> [--reports bench/results] [--catalog bench/evidence-catalog.json]
// The output directory must not exist: a published package is immutable (docs/benchmarks.md).
import { createPrivateKey } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildEvidence } from '../actors/benchmarks/evidence-builder.js';
import { ManifestCatalogEntrySchema, ManifestParticipantSchema } from '../protocols/benchmarks.js';
import { z } from 'zod';

const CatalogFileSchema = z.strictObject({
  catalog: z.array(ManifestCatalogEntrySchema.omit({ report: true })),
  participants: z.array(ManifestParticipantSchema),
});

/** Writes every file of the package under a temporary name, then moves the directory into place. */
function writePackage(out: string, files: Map<string, Buffer>): void {
  const staging = `${out}.partial-${process.pid}`;
  for (const [path, bytes] of files) {
    mkdirSync(dirname(join(staging, path)), { recursive: true });
    writeFileSync(join(staging, path), bytes);
  }
  renameSync(staging, out);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      key: { type: 'string' },
      out: { type: 'string' },
      reports: { type: 'string', default: 'bench/results' },
      catalog: { type: 'string', default: 'bench/evidence-catalog.json' },
    },
  });
  if (!values.key || !values.out)
    throw new Error(
      'usage: npm run bench:evidence -- --key <ed25519 private key PEM> --out <new directory> [--reports dir] [--catalog file]',
    );
  if (existsSync(values.out))
    throw new Error(`${values.out} exists: packages are immutable, publish to a new directory`);
  const privateKey = createPrivateKey(readFileSync(values.key));
  if (privateKey.asymmetricKeyType !== 'ed25519')
    throw new Error(`${values.key} is a ${privateKey.asymmetricKeyType} key, not Ed25519`);
  const declared = CatalogFileSchema.parse(JSON.parse(readFileSync(values.catalog, 'utf8')));
  const reports = readdirSync(values.reports)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ name, bytes: readFileSync(join(values.reports, name)) }));
  const built = buildEvidence({
    reports,
    catalog: declared.catalog,
    participants: declared.participants,
    publishedAt: new Date(),
    generator: 'svc bench:evidence',
    privateKey,
  });
  writePackage(values.out, built.files);
  process.stdout.write(
    `${built.manifest.package_id}: ${built.manifest.catalog.length} benchmark(s), ${built.manifest.files.length} report(s), key ${built.manifest.key_id} → ${values.out}\n`,
  );
  if (built.omitted.length > 0) process.stdout.write(`no run found for: ${built.omitted.join(', ')}\n`);
}

try {
  main();
} catch (err) {
  process.stderr.write(`bench:evidence: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
