import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveCsv } from './serve-csv.js';
import { serveHtml } from './serve-html.js';
import type { ServeReport } from './serve-scenario.js';

/** Where a `serve` run's three files went. */
export interface ServeFiles {
  json: string;
  csv: string;
  html: string;
}

/**
 * Writes `serve-<time>.json` (every figure and every request's timings, for re-analysis),
 * `.csv` (one summary row per point) and `.html` (the plots, self-contained) into `dir`.
 */
export function writeServeFiles(report: ServeReport, dir: string): ServeFiles {
  mkdirSync(dir, { recursive: true });
  const stem = join(dir, `serve-${report.when.replace(/[:.]/g, '-')}`);
  const files = { json: `${stem}.json`, csv: `${stem}.csv`, html: `${stem}.html` };
  writeFileSync(files.json, `${JSON.stringify(report, null, 1)}\n`);
  writeFileSync(files.csv, serveCsv(report));
  writeFileSync(files.html, serveHtml(report));
  return files;
}
