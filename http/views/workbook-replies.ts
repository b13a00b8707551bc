import type { SessionRecord } from '../../actors/sessions/session-record.js';
import type { Workbook, WorkbookCell, WorkbookSheetName } from '../../actors/sessions/session-workbook.js';
import type { WorkbookObject } from '../../protocols/chat-session.js';
import type { Exchange } from '../exchange.js';
import { CSV_CONTENT_TYPE, sheetToCsv } from './workbook-csv.js';
import { workbookToXlsx, XLSX_CONTENT_TYPE } from './workbook-xlsx.js';

type WorkbookCellObject = WorkbookObject['sheets'][number]['rows'][number]['cells'][number];

const jsonCell = (cell: WorkbookCell): WorkbookCellObject =>
  cell.formula === undefined ? { value: cell.value } : { value: cell.value, formula: cell.formula };

/**
 * The body of GET /v1/chat/sessions/{id}/workbook: each sheet's columns and rows, each row its
 * sheet row number (formulas use A1 references) and cells `{value, formula?}` aligned with columns.
 */
export function workbookView(session: SessionRecord, workbook: Workbook): WorkbookObject {
  return {
    object: 'chat.session.workbook',
    session_id: session.id,
    state: session.state,
    created_at: Math.floor(session.createdAt / 1000),
    updated_at: Math.floor(session.updatedAt / 1000),
    sheets: workbook.sheets.map((sheet) => ({
      name: sheet.name,
      columns: sheet.columns,
      rows: sheet.rows.map((cells, index) => ({ row: index + 2, cells: cells.map(jsonCell) })),
    })),
  };
}

/** Answers GET …/workbook.csv with one sheet of the workbook. */
export function sendWorkbookCsv(
  ex: Exchange,
  session: SessionRecord,
  workbook: Workbook,
  name: WorkbookSheetName,
): undefined {
  const sheet = workbook.sheets.find((candidate) => candidate.name === name);
  if (!sheet) throw new Error(`the workbook has no sheet ${name}`);
  ex.send(
    200,
    {
      'content-type': CSV_CONTENT_TYPE,
      'content-disposition': `attachment; filename="${session.id}-${sheet.name}.csv"`,
    },
    sheetToCsv(sheet),
  );
  return undefined;
}

/** Answers GET …/workbook.xlsx with every sheet in one spreadsheet file. */
export async function sendWorkbookXlsx(ex: Exchange, session: SessionRecord, workbook: Workbook): Promise<undefined> {
  const file = await workbookToXlsx(workbook, { createdAt: session.createdAt, updatedAt: session.updatedAt });
  ex.send(
    200,
    { 'content-type': XLSX_CONTENT_TYPE, 'content-disposition': `attachment; filename="${session.id}.xlsx"` },
    file,
  );
  return undefined;
}
