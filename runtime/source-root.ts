import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest directory from `start` upwards that holds a package.json. */
function packageRootFrom(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/**
 * The repository's root (where package.json is), the same whether this code runs from its
 * TypeScript sources (tsx) or compiled into `dist/`: what the server reads as it is shipped (the
 * inspector's page, the public docs) is found from here, not from the module's own folder.
 */
export const SOURCE_ROOT = packageRootFrom(dirname(fileURLToPath(import.meta.url)));
