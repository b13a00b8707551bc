import type ExcelJS from 'exceljs';
import type { CellValue, Workbook, WorkbookCell, WorkbookSheet } from '../../actors/sessions/session-workbook.js';

/** The media type of the XLSX export. */
export const XLSX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const USD_FORMAT = '0.000000';
const MIN_WIDTH = 8;
const MAX_WIDTH = 60;

// XML 1.0 cannot carry these code points at all; a file holding one does not open.
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function excelValue(cell: WorkbookCell): ExcelJS.CellValue {
  const value = typeof cell.value === 'string' ? cell.value.replace(NOT_XML, '\uFFFD') : cell.value;
  if (cell.formula === undefined) return value;
  return value === null ? { formula: cell.formula.slice(1) } : { formula: cell.formula.slice(1), result: value };
}

const shownLength = (value: CellValue): number => (value === null ? 0 : String(value).length);

function columnWidth(sheet: WorkbookSheet, index: number): number {
  const longest = sheet.rows.reduce(
    (max, cells) => Math.max(max, shownLength(cells[index]?.value ?? null)),
    sheet.columns[index]?.length ?? 0,
  );
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, longest + 2));
}

function addSheet(book: ExcelJS.Workbook, sheet: WorkbookSheet): void {
  const worksheet = book.addWorksheet(sheet.name, { views: [{ state: 'frozen', ySplit: 1 }] });
  worksheet.columns = sheet.columns.map((name, index) => ({
    header: name,
    key: name,
    width: columnWidth(sheet, index),
  }));
  worksheet.getRow(1).font = { bold: true };
  for (const cells of sheet.rows) {
    const row = worksheet.addRow(cells.map(excelValue));
    cells.forEach((cell, index) => {
      if (cell.format === 'usd') row.getCell(index + 1).numFmt = USD_FORMAT;
    });
  }
}

/**
 * The workbook as an .xlsx file: one worksheet per sheet, a bold frozen header row, sized
 * columns, numbers as numbers and formulas as real formulas with their results cached.
 */
export async function workbookToXlsx(
  workbook: Workbook,
  options: { createdAt: number; updatedAt: number },
): Promise<Buffer> {
  // exceljs is large: loaded on the first export, not at server start.
  const { default: excel } = await import('exceljs');
  const book = new excel.Workbook();
  book.creator = 'svc-runtime';
  book.created = new Date(options.createdAt);
  book.modified = new Date(options.updatedAt);
  for (const sheet of workbook.sheets) addSheet(book, sheet);
  return Buffer.from(await book.xlsx.writeBuffer());
}
