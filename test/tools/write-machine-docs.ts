// Rewrites docs/machines.md from the machine definitions: `npm run docs:machines`.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { machineDocs } from '../../http/machine-docs.js';

/** Where the generated page lives. */
export const MACHINE_DOCS_PATH = resolve(import.meta.dirname, '..', '..', 'docs', 'machines.md');

if (process.argv[1] === import.meta.filename) writeFileSync(MACHINE_DOCS_PATH, machineDocs());
