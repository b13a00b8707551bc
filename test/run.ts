// Runs every test/**/*.test.ts (or those matching argv[2]) in one process with uvu, then exits.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const pattern = process.argv[2] ? new RegExp(process.argv[2]) : null;
const root = resolve(import.meta.dirname);
const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts') && (!pattern || pattern.test(file)))
  .sort();

const g = globalThis as unknown as { UVU_DEFER: number; UVU_QUEUE: unknown[][]; UVU_INDEX: number };
g.UVU_DEFER = 1;
const uvu = await import('uvu');
for (const [index, file] of files.entries()) {
  g.UVU_INDEX = index;
  g.UVU_QUEUE.push([file]);
  await import(pathToFileURL(join(root, file)).href);
}
await uvu.exec();
process.exit(process.exitCode ?? 0);
