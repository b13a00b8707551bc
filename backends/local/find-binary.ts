import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

const found = new Map<string, string | null>();

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Where `name` runs from: itself when it is a path (absolute or with a slash), else the first
 * executable of that name on PATH; null when there is none. Cached per name for the process, so
 * an engine installed while the server runs is seen after a restart.
 */
export function findBinary(name: string): string | null {
  const cached = found.get(name);
  if (cached !== undefined) return cached;
  let path: string | null = null;
  if (isAbsolute(name) || name.includes('/')) path = isExecutable(name) ? name : null;
  else {
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (dir && isExecutable(join(dir, name))) {
        path = join(dir, name);
        break;
      }
    }
  }
  found.set(name, path);
  return path;
}
