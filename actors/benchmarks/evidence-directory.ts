import { fileTreeFingerprint, readFileTree, type FileTreeLimits } from '../../runtime/blobs/file-tree.js';
import type { EvidenceSource } from './benchmark-service.js';

/** An evidence package is small (a manifest and a few reports): anything past this is refused, not cut. */
const LIMITS: FileTreeLimits = { maxFiles: 1000, maxBytes: 64 * 1024 * 1024 };

/** An evidence package published as a directory on disk (what `npm run bench:evidence` writes). */
export function directoryEvidenceSource(dir: string): EvidenceSource {
  return {
    fingerprint: () => fileTreeFingerprint(dir, LIMITS),
    read: () => readFileTree(dir, LIMITS),
  };
}
