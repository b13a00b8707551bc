import { readFileSync } from 'node:fs';
import { extname } from 'node:path';

/** A file served as is: its bytes, its Content-Type and a strong ETag. */
export interface StaticAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Reads a fixed set of files once, at start, into memory: the inspector's page, its ES modules and
 * the layout library it uses, served without touching the disk per request. `files` maps the name
 * a route serves to the path on disk; a missing file stops the start with its path.
 */
export function loadStaticAssets(files: Record<string, string>): ReadonlyMap<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  for (const [name, path] of Object.entries(files)) {
    const body = readFileSync(path);
    const etag = `"${body.length.toString(36)}-${hash(body)}"`;
    assets.set(name, { body, contentType: TYPES[extname(path)] ?? 'application/octet-stream', etag });
  }
  return assets;
}

/** FNV-1a over the bytes: enough to tell versions of a file apart for caching. */
function hash(bytes: Buffer): string {
  let h = 0x811c9dc5;
  for (const byte of bytes) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h.toString(36);
}
