import ExcelJS from 'exceljs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SessionContext } from '../actors/sessions/session-types.js';
import { stateOf, type SessionSnapshot } from '../actors/sessions/session-record.js';
import { buildWorkbook, type Workbook, type WorkbookSheet } from '../actors/sessions/session-workbook.js';
import { csvField, sheetToCsv } from '../http/views/workbook-csv.js';
import { workbookToXlsx } from '../http/views/workbook-xlsx.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('chat sessions: the workbook as JSON, CSV and XLSX');
let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;
let session: any;
let clarified: any;

const api = (path: string, token = owner.token) => server.request('GET', path, { token });
const base = (id: string) => `/v1/chat/sessions/${id}/workbook`;
const INJECTED = '=HYPERLINK("http://evil.example","click")';

/** The session once it is in one of `states` (or has ended in another), as GET shows it: no polling. */
async function waitState(id: string, states: string[]): Promise<any> {
  await server.app.deps.host.waitFor(id, (snapshot) =>
    states.includes(stateOf(snapshot as unknown as SessionSnapshot).state),
  );
  const res = await api(`/v1/chat/sessions/${id}`);
  if (!states.includes(res.body.state))
    throw new Error(`session ${id} ended in ${res.body.state}, not ${states.join(', ')}`);
  return res.body;
}

async function createSession(content: string, extra: Record<string, unknown> = {}): Promise<any> {
  const created = await server.request('POST', '/v1/chat/sessions', {
    token: owner.token,
    body: { model: 'pro-1', messages: [{ role: 'user', content }], max_tokens: 40, ...extra },
  });
  assert.is(created.status, 201);
  return created.body;
}

async function download(
  path: string,
  token = owner.token,
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Reads an .xlsx back with exceljs (its typings want an ArrayBuffer). */
async function loadXlsx(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  return book;
}

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks; CRLF ends a record. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += ch;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records;
}

const sheetOf = (body: any, name: string) => body.sheets.find((s: any) => s.name === name);
const column = (sheet: any, name: string) => sheet.columns.indexOf(name);
const totalRow = (turns: any) => turns.rows.find((r: any) => r.cells[column(turns, 'phase')].value === 'total');
const budgetValue = (budget: any, item: string) => budget.rows.find((r: any) => r.cells[0].value === item).cells[1];

function context(overrides: Partial<SessionContext> = {}): SessionContext {
  const at = Date.UTC(2026, 0, 2, 3, 4, 5);
  return {
    id: 'sess_unit',
    preprocessed: { promptTokens: 0, completionTokens: 0 },
    accountId: 'acct_unit',
    tokenId: null,
    completionId: 'chatcmpl-unit',
    model: 'pro-1',
    conversation: [],
    settings: {},
    plan: {
      depth: 'complex',
      passes: ['plan', 'draft', 'check'],
      maxTokens: 40,
      worstCase: { promptTokens: 500, completionTokens: 200 },
    },
    quote: { minMicros: 1_248, holdMicros: 15_600, minSeconds: 0, maxSeconds: 4 },
    requireApproval: false,
    at,
    approvalTtlMs: 60_000,
    idleTtlMs: 60_000,
    planText: '',
    answer: null,
    usage: { promptTokens: 130, completionTokens: 45 },
    liveInputs: [],
    question: null,
    clarifications: [],
    turns: [
      { phase: 'plan', at, promptTokens: 40, completionTokens: 10, summary: '1. Flights, 2. Hotels' },
      { phase: 'draft', at: at + 1000, promptTokens: 60, completionTokens: 30, summary: '- Day 1: the Colosseum' },
    ],
    deadlines: {},
    outcome: 'completed',
    cancelReason: null,
    error: null,
    priceMicros: 130 * 12 + 45 * 48,
    updatedAt: at + 2000,
    ...overrides,
  };
}

const unitMeta = { id: 'sess_unit', createdAt: Date.UTC(2026, 0, 2), state: 'completed' };
const sheet = (workbook: Workbook, name: string): WorkbookSheet => workbook.sheets.find((s) => s.name === name)!;

test.before(async () => {
  server = await startServer();
  owner = await server.account(5);
  stranger = await server.account(5);
  session = await waitState((await createSession('Plan a trip to Rome')).id, ['completed']);
  const asking = await createSession('What is the weather?', { metadata: { sim: { clarify: 'Which city?' } } });
  const waiting = await waitState(asking.id, ['awaiting_user']);
  const answered = await server.request('POST', `/v1/chat/sessions/${asking.id}/live-input`, {
    token: owner.token,
    body: { content: INJECTED, question_id: waiting.question.id },
  });
  assert.is(answered.status, 200);
  clarified = await waitState(asking.id, ['completed']);
});
test.after(() => server.close());

test('buildWorkbook lists each turn with resolved formulas, a preprocess line for untracked tokens, and totals equal to usage', () => {
  const turns = sheet(buildWorkbook(context(), unitMeta), 'Turns');
  assert.equal(turns.columns, [
    'n',
    'phase',
    'at',
    'prompt_tokens',
    'completion_tokens',
    'total_tokens',
    'cost_usd',
    'summary',
  ]);
  const [pre, plan, draft, total] = turns.rows;
  assert.equal(pre!.map((c) => c.value).slice(0, 5), [1, 'preprocess', '2026-01-02T03:04:05.000Z', 30, 5]);
  assert.equal(plan![5], { value: 50, formula: '=D3+E3' });
  assert.equal(plan![6], { value: 0.00096, formula: '=D3*12/1000000+E3*48/1000000', format: 'usd' });
  assert.is(draft![7]!.value, '- Day 1: the Colosseum');
  assert.is(total!.length, turns.columns.length);
  assert.equal(total!.slice(3, 7), [
    { value: 130, formula: '=SUM(D2:D4)' },
    { value: 45, formula: '=SUM(E2:E4)' },
    { value: 175, formula: '=SUM(F2:F4)' },
    { value: 0.00372, formula: '=SUM(G2:G4)', format: 'usd' },
  ]);
});

test('buildWorkbook without turns has a plain totals row and no preprocess line', () => {
  const turns = sheet(
    buildWorkbook(
      context({ turns: [], usage: { promptTokens: 0, completionTokens: 0 }, priceMicros: null, outcome: null }),
      unitMeta,
    ),
    'Turns',
  );
  assert.is(turns.rows.length, 1);
  assert.equal(turns.rows[0]![3], { value: 0 });
});

test('buildWorkbook Budget charges tokens × rates capped at the hold, nothing for a failed run, and the hold left', () => {
  const values = (ctx: SessionContext) => {
    const rows = sheet(buildWorkbook(ctx, unitMeta), 'Budget').rows;
    return Object.fromEntries(rows.map((r) => [r[0]!.value, r[1]!]));
  };
  const plain = values(context());
  assert.equal(plain.token_cost_usd, { value: 0.00372, formula: '=B11*B7/1000000+B12*B8/1000000', format: 'usd' });
  assert.equal(plain.charge_usd, { value: 0.00372, formula: '=MIN(B13,B10)', format: 'usd' });
  assert.equal(plain.hold_remaining_usd, { value: 0.01188, formula: '=B10-B14', format: 'usd' });
  assert.is(plain.final_price_usd!.value, 0.00372);
  assert.is(plain.pricing_version!.value, 'pro-1-usd-2026-07-11-r2');
  const capped = values(context({ usage: { promptTokens: 1_000, completionTokens: 400 }, priceMicros: 15_600 }));
  assert.is(capped.token_cost_usd!.value, 0.0312);
  assert.is(capped.charge_usd!.value, 0.0156);
  assert.is(capped.hold_remaining_usd!.value, 0);
  const failed = values(context({ outcome: 'failed', priceMicros: 0 }));
  assert.equal(failed.charge_usd, { value: 0, format: 'usd' });
  const running = values(context({ outcome: null, priceMicros: null }));
  assert.equal(running.final_price_usd, { value: null });
});

test('buildWorkbook LiveInputs keeps text as is, writes structured content as JSON and cuts text at the cell limit', () => {
  const inputs = [
    {
      seq: 1,
      content: 'Paris',
      questionId: 'q1',
      source: 'api_live_input',
      modality: 'text',
      receivedAt: Date.UTC(2026, 0, 2),
      usedIn: 'draft' as const,
    },
    {
      seq: 2,
      content: { city: 'Rome' },
      questionId: null,
      source: 'sensor',
      modality: 'json',
      receivedAt: Date.UTC(2026, 0, 2),
      usedIn: null,
    },
    {
      seq: 3,
      content: 'x'.repeat(40_000),
      questionId: null,
      source: 'bulk',
      modality: 'text',
      receivedAt: Date.UTC(2026, 0, 2),
      usedIn: null,
    },
  ];
  const live = sheet(buildWorkbook(context({ liveInputs: inputs }), unitMeta), 'LiveInputs');
  assert.equal(
    live.rows[0]!.map((c) => c.value),
    [1, '2026-01-02T00:00:00.000Z', 'api_live_input', 'text', 'q1', 'draft', 'Paris'],
  );
  assert.is(live.rows[1]![6]!.value, '{"city":"Rome"}');
  assert.is(String(live.rows[2]![6]!.value).length, 32_767);
});

test('csvField quotes commas, quotes and line breaks and defuses formula-looking text', () => {
  assert.is(csvField('plain'), 'plain');
  assert.is(csvField('a,b'), '"a,b"');
  assert.is(csvField('say "hi"'), '"say ""hi"""');
  assert.is(csvField('two\nlines'), '"two\nlines"');
  assert.is(csvField('cr\rlf'), '"cr\rlf"');
  assert.is(csvField('=1+1'), "'=1+1");
  assert.is(csvField('+1'), "'+1");
  assert.is(csvField('-2'), "'-2");
  assert.is(csvField('@SUM(A1)'), "'@SUM(A1)");
  assert.is(csvField('\tcmd'), "'\tcmd");
  assert.is(csvField('=HYPERLINK("x","y")'), `"'=HYPERLINK(""x"",""y"")"`);
  assert.is(csvField(-2.5), '-2.5');
  assert.is(csvField(0.000012), '0.000012');
  assert.is(csvField(null), '');
});

test('sheetToCsv writes a header and CRLF records that parse back to the values', () => {
  const sample: WorkbookSheet = {
    name: 'Turns',
    columns: ['a', 'b,c'],
    rows: [
      [{ value: 1 }, { value: 'x "y"\r\nz' }],
      [{ value: null }, { value: 2, formula: '=A2+1' }],
    ],
  };
  const csv = sheetToCsv(sample);
  assert.ok(csv.endsWith('\r\n'));
  assert.equal(parseCsv(csv), [
    ['a', 'b,c'],
    ['1', 'x "y"\r\nz'],
    ['', '2'],
  ]);
});

test('workbookToXlsx replaces characters XML cannot carry, so the file still opens', async () => {
  const sample: Workbook = {
    sheets: [{ name: 'LiveInputs', columns: ['content'], rows: [[{ value: 'bell\u0007 and \uD800 lone' }]] }],
  };
  const book = await loadXlsx(await workbookToXlsx(sample, { createdAt: 0, updatedAt: 0 }));
  assert.is(book.getWorksheet('LiveInputs')!.getRow(2).getCell(1).value, 'bell\uFFFD and \uFFFD lone');
});

test('GET …/workbook has Turns and Budget whose totals match the session usage and price', async () => {
  const res = await api(base(session.id));
  assert.is(res.status, 200);
  assert.is(res.body.object, 'chat.session.workbook');
  assert.is(res.body.session_id, session.id);
  assert.is(res.body.state, 'completed');
  assert.equal(
    res.body.sheets.map((s: any) => s.name),
    ['Turns', 'Budget', 'LiveInputs'],
  );
  const turns = sheetOf(res.body, 'Turns');
  const steps = turns.rows.filter((r: any) => r.cells[column(turns, 'phase')].value !== 'total');
  assert.ok(steps.length >= 2, 'a completed run has at least a plan and a draft step');
  assert.equal(
    steps.map((r: any) => r.row),
    steps.map((_: any, i: number) => i + 2),
  );
  const total = totalRow(turns);
  assert.is(total.cells[column(turns, 'prompt_tokens')].value, session.usage.prompt_tokens);
  assert.is(total.cells[column(turns, 'completion_tokens')].value, session.usage.completion_tokens);
  assert.is(total.cells[column(turns, 'total_tokens')].value, session.usage.total_tokens);
  assert.is(total.cells[column(turns, 'cost_usd')].value, session.price_usd);
  const first = steps[0].cells;
  assert.is(first[column(turns, 'total_tokens')].formula, '=D2+E2');
  assert.is(
    first[column(turns, 'total_tokens')].value,
    first[column(turns, 'prompt_tokens')].value + first[column(turns, 'completion_tokens')].value,
  );
  assert.not.ok('formula' in first[column(turns, 'phase')]);
  const budget = sheetOf(res.body, 'Budget');
  assert.is(budgetValue(budget, 'charge_usd').value, session.price_usd);
  assert.is(budgetValue(budget, 'final_price_usd').value, session.price_usd);
  assert.is(budgetValue(budget, 'quote_hold_usd').value, session.quote.hold_usd);
  assert.is(
    budgetValue(budget, 'hold_remaining_usd').value,
    Number((session.quote.hold_usd - session.price_usd).toFixed(6)),
  );
});

test('GET …/workbook.csv defaults to Turns and its numbers match the JSON', async () => {
  const [json, csv] = await Promise.all([api(base(session.id)), download(`${base(session.id)}.csv`)]);
  assert.is(csv.status, 200);
  assert.is(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.is(csv.headers.get('content-disposition'), `attachment; filename="${session.id}-Turns.csv"`);
  const records = parseCsv(csv.bytes.toString('utf8'));
  const turns = sheetOf(json.body, 'Turns');
  assert.equal(records[0], turns.columns);
  assert.is(records.length, turns.rows.length + 1);
  turns.rows.forEach((row: any, r: number) => {
    row.cells.forEach((cell: any, c: number) => {
      const field = records[r + 1]![c]!;
      if (typeof cell.value === 'number')
        assert.is(Number(field), cell.value, `row ${row.row} column ${turns.columns[c]}`);
      else if (cell.value === null) assert.is(field, '');
    });
  });
});

test('GET …/workbook.csv?sheet=Budget exports the Budget sheet', async () => {
  const csv = await download(`${base(session.id)}.csv?sheet=Budget`);
  assert.is(csv.status, 200);
  assert.is(csv.headers.get('content-disposition'), `attachment; filename="${session.id}-Budget.csv"`);
  const records = parseCsv(csv.bytes.toString('utf8'));
  assert.equal(records[0], ['item', 'value', 'unit']);
  const charge = records.find((r) => r[0] === 'charge_usd')!;
  assert.is(Number(charge[1]), session.price_usd);
});

test('an unknown sheet is a 422 at query.sheet', async () => {
  const res = await api(`${base(session.id)}.csv?sheet=Nope`);
  assert.is(res.status, 422);
  assert.is(res.body.error.code, 'validation_error');
  assert.equal(res.body.detail[0].loc, ['query', 'sheet']);
});

test('user content that looks like a formula stays text: defused in CSV, a string in XLSX', async () => {
  const json = await api(base(clarified.id));
  const live = sheetOf(json.body, 'LiveInputs');
  assert.is(live.rows[0].cells[column(live, 'content')].value, INJECTED);
  const turns = sheetOf(json.body, 'Turns');
  assert.ok(turns.rows.some((r: any) => r.cells[column(turns, 'phase')].value === 'clarification'));
  const csv = parseCsv((await download(`${base(clarified.id)}.csv?sheet=LiveInputs`)).bytes.toString('utf8'));
  assert.is(csv[1]![column(live, 'content')], `'${INJECTED}`);
  const book = await loadXlsx((await download(`${base(clarified.id)}.xlsx`)).bytes);
  assert.is(
    book
      .getWorksheet('LiveInputs')!
      .getRow(2)
      .getCell(column(live, 'content') + 1).value,
    INJECTED,
  );
});

test('GET …/workbook.xlsx is a spreadsheet with the same values, real formulas, numbers and a bold header', async () => {
  const [json, file] = await Promise.all([api(base(session.id)), download(`${base(session.id)}.xlsx`)]);
  assert.is(file.status, 200);
  assert.is(file.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  assert.is(file.headers.get('content-disposition'), `attachment; filename="${session.id}.xlsx"`);
  assert.equal([...file.bytes.subarray(0, 4)], [0x50, 0x4b, 0x03, 0x04]);
  const book = await loadXlsx(file.bytes);
  assert.equal(
    book.worksheets.map((w) => w.name),
    ['Turns', 'Budget', 'LiveInputs'],
  );
  let formulas = 0;
  for (const sheet of json.body.sheets) {
    const worksheet = book.getWorksheet(sheet.name)!;
    const header = worksheet.getRow(1);
    assert.equal(
      sheet.columns.map((_: string, c: number) => header.getCell(c + 1).value),
      sheet.columns,
    );
    assert.ok(header.getCell(1).font?.bold, `${sheet.name} header is bold`);
    for (const row of sheet.rows) {
      row.cells.forEach((cell: any, c: number) => {
        const got = worksheet.getRow(row.row).getCell(c + 1).value;
        const where = `${sheet.name}!row ${row.row} column ${sheet.columns[c]}`;
        if (cell.formula) {
          formulas++;
          assert.equal(got, { formula: cell.formula.slice(1), result: cell.value }, where);
        } else assert.is(got, cell.value, where);
      });
    }
  }
  assert.ok(formulas >= 8, 'turn totals, costs, sums and budget formulas are real formulas');
  assert.ok(book.getWorksheet('Turns')!.getColumn(8).width! > 8, 'the summary column is sized to its text');
});

test("another account's and unknown session ids are 404 on all three exports", async () => {
  for (const suffix of ['', '.csv', '.csv?sheet=Budget', '.xlsx']) {
    const foreign = await api(`${base(session.id)}${suffix}`, stranger.token);
    assert.is(foreign.status, 404, `foreign ${suffix}`);
    assert.is(foreign.body.error.code, 'not_found');
    assert.is((await api(`${base('sess_doesnotexist')}${suffix}`)).status, 404, `unknown ${suffix}`);
  }
  assert.is(
    (await api(`${base(session.id)}.csv?sheet=Nope`, stranger.token)).status,
    404,
    'ownership is checked before the query',
  );
  assert.is((await server.request('GET', base(session.id))).status, 401);
});

test.run();
