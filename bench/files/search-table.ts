import type { SearchBenchResult } from './search-bench.js';

/** The search scenario's report entry. */
export type SearchReport = SearchBenchResult & { scenario: 'search' };

/** The search figures as a markdown table. */
export function formatSearch(report: SearchReport): string {
  return [
    `### search (${report.files.toLocaleString('en-US')} files, one account)`,
    '',
    '| figure | value | target |',
    '|---|---:|---|',
    `| indexing, whole corpus | ${Math.round(report.indexMs).toLocaleString('en-US')} ms (${(report.indexMs / report.files).toFixed(1)} ms/file) | |`,
    `| queries/s (BM25 + snippets of the top 20) | ${Math.round(report.qps).toLocaleString('en-US')} | |`,
    `| query p50 / p99 | ${report.p50Ms.toFixed(2)} / ${report.p99Ms.toFixed(2)} ms | |`,
    `| baseline: scan every text, ${report.scan.queries} queries | ${report.scan.qps.toFixed(1)} queries/s, p50 ${report.scan.p50Ms.toFixed(1)} ms | |`,
    `| index ÷ scan, queries/s | ${(report.qps / report.scan.qps).toFixed(0)}× | faster than a scan |`,
  ].join('\n');
}
