import type { CellValue, WorkbookSheet } from '../../actors/sessions/session-workbook.js';

/** The media type of the CSV export. */
export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';

// OWASP's list of characters that make a spreadsheet read a text cell as a formula.
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field (RFC 4180): empty for null, numbers as written, text that a spreadsheet would run
 * as a formula prefixed with `'`, and quoted (inner quotes doubled) when it holds `,` `"` CR or LF.
 */
export function csvField(value: CellValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A sheet as CSV: the header row, then one record per row with resolved values, CRLF line ends. */
export function sheetToCsv(sheet: WorkbookSheet): string {
  const records = [sheet.columns, ...sheet.rows.map((cells) => cells.map((cell) => cell.value))];
  return records.map((fields) => fields.map(csvField).join(',')).join('\r\n') + '\r\n';
}
