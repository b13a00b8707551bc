// Text extraction on save: content types by magic and extension, bounded text decoding, and
// pdf.js in a worker thread that is queued, cut off at its deadline and replaced.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  createLocalTextExtractor,
  type LocalTextExtractorOptions,
  type TextExtractionLimits,
} from '../backends/text-extraction/local-text-extractor.js';
import type { ExtractionResult, TextExtractor } from '../backends/text-extraction/text-extractor.js';
import { contentTypeOf, extractionKindOf } from '../protocols/content-type.js';
import { gif, jpeg, mp4, png, wav, webp } from './media-fixtures.js';
import { makePdf } from './pdf-fixture.js';

const test = suite('text extraction: stored files give their text, bounded in bytes, characters and time');

const LIMITS: TextExtractionLimits = { maxSourceBytes: 8 << 20, maxTextChars: 4_000_000, timeoutMs: 30_000 };
let dir = '';
let extractor: TextExtractor;
const others: TextExtractor[] = [];

test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'text-extraction-'));
  extractor = createLocalTextExtractor(LIMITS);
});

test.after(async () => {
  await Promise.all([extractor, ...others].map((each) => each.close()));
  await rm(dir, { recursive: true, force: true });
});

function another(limits: Partial<TextExtractionLimits>, options?: LocalTextExtractorOptions): TextExtractor {
  const created = createLocalTextExtractor({ ...LIMITS, ...limits }, options);
  others.push(created);
  return created;
}

let fileCount = 0;

/** Stores `content` as `filename` and extracts it as the files service will: type from its head, then extract. */
async function extractFile(filename: string, content: Buffer | string, using = extractor): Promise<ExtractionResult> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const path = join(dir, `${++fileCount}-${filename}`);
  await writeFile(path, bytes);
  return using.extract({
    path,
    filename,
    contentType: await contentTypeOf(filename, bytes.subarray(0, 4096)),
    bytes: bytes.length,
  });
}

function extracted(result: ExtractionResult): Extract<ExtractionResult, { status: 'extracted' }> {
  if (result.status !== 'extracted') {
    throw new assert.Assertion({
      message: `expected extracted, got ${JSON.stringify(result)}`,
      operator: 'is',
      expects: 'extracted',
      actual: result.status,
    });
  }
  return result;
}

function lines(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix} line ${index + 1}`);
}

test('contentTypeOf reads magic bytes first, then the extension, then sniffs UTF-8', async () => {
  const zip = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(26), Buffer.from('xl/workbook.xml')]);
  const cases: [string, Buffer, string][] = [
    ['report.txt', Buffer.from('%PDF-1.7\n'), 'application/pdf'],
    ['x', png(1, 1), 'image/png'],
    ['x.bin', jpeg(2, 2), 'image/jpeg'],
    ['x', gif(1, 1), 'image/gif'],
    ['x', webp(3, 3, 'VP8X'), 'image/webp'],
    ['x', wav(0.1), 'audio/wav'],
    ['x', Buffer.from('ID3\x04\x00', 'latin1'), 'audio/mpeg'],
    ['x', Buffer.from([0xff, 0xfb, 0x90, 0x00]), 'audio/mpeg'],
    ['x', mp4(16, 16, 1), 'video/mp4'],
    [
      'sheet.xlsx',
      Buffer.from('PK\x03\x04', 'latin1'),
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ],
    [
      'letter.docx',
      Buffer.from('PK\x03\x04', 'latin1'),
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ],
    ['upload', zip, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['a.zip', Buffer.from('PK\x03\x04', 'latin1'), 'application/zip'],
    ['a.csv.gz', Buffer.from([0x1f, 0x8b, 8, 0]), 'application/gzip'],
    ['notes.TXT', Buffer.from('hello'), 'text/plain; charset=utf-8'],
    ['README.md', Buffer.from('# Title'), 'text/markdown; charset=utf-8'],
    ['data.csv', Buffer.from('a,b'), 'text/csv; charset=utf-8'],
    ['data.tsv', Buffer.from('a\tb'), 'text/tab-separated-values; charset=utf-8'],
    ['data.json', Buffer.from('{}'), 'application/json; charset=utf-8'],
    ['rows.jsonl', Buffer.from('{}\n'), 'application/jsonl; charset=utf-8'],
    ['page.html', Buffer.from('<p>'), 'text/html; charset=utf-8'],
    ['feed.xml', Buffer.from('<?xml version="1.0"?>'), 'application/xml; charset=utf-8'],
    ['ci.yml', Buffer.from('on: push'), 'application/yaml; charset=utf-8'],
    ['main.ts', Buffer.from('export {}'), 'text/x-typescript; charset=utf-8'],
    ['App.tsx', Buffer.from('export {}'), 'text/x-typescript; charset=utf-8'],
    ['run.py', Buffer.from('print(1)'), 'text/x-python; charset=utf-8'],
    ['main.go', Buffer.from('package main'), 'text/x-go; charset=utf-8'],
    ['lib.rs', Buffer.from('fn main() {}'), 'text/x-rust; charset=utf-8'],
    ['x.hpp', Buffer.from('#pragma once'), 'text/x-c++; charset=utf-8'],
    ['Cargo.toml', Buffer.from('[package]'), 'application/toml; charset=utf-8'],
    ['schema.sql', Buffer.from('select 1'), 'application/sql; charset=utf-8'],
    ['LICENSE', Buffer.from('Permission is hereby granted…'), 'text/plain; charset=utf-8'],
    ['utf16.txt', Buffer.from('\xff\xfeh\x00i\x00', 'latin1'), 'text/plain; charset=utf-16le'],
    ['no-extension', Buffer.from('\xfe\xff\x00h', 'latin1'), 'text/plain; charset=utf-16be'],
    ['cut-mid-character', Buffer.from('caf\xc3', 'latin1'), 'text/plain; charset=utf-8'],
    ['blob', Buffer.from('caf\xc3(', 'latin1'), 'application/octet-stream'],
    ['blob', Buffer.from([0x68, 0x00, 0x69]), 'application/octet-stream'],
    ['binary.txt', Buffer.from([0x68, 0x00, 0x69]), 'application/octet-stream'],
    ['empty', Buffer.alloc(0), 'text/plain; charset=utf-8'],
    ['x.constructor', Buffer.from('text'), 'text/plain; charset=utf-8'],
    ['x.__proto__', Buffer.from('text'), 'text/plain; charset=utf-8'],
  ];
  for (const [filename, head, type] of cases) assert.is(await contentTypeOf(filename, head), type, filename);
});

test('extractionKindOf maps types to kinds, refines plain text by name and refuses binaries', () => {
  const cases: [string, string, ReturnType<typeof extractionKindOf>][] = [
    ['application/pdf', 'a.pdf', 'pdf'],
    ['text/plain; charset=utf-8', 'a.txt', 'text'],
    ['text/plain; charset=utf-8', 'notes.md', 'markdown'],
    ['text/plain', 'Makefile', 'code'],
    ['text/plain', 'LICENSE', 'text'],
    ['text/csv; charset=utf-8', 'a.csv', 'csv'],
    ['text/tab-separated-values', 'a.tsv', 'csv'],
    ['text/markdown; charset=utf-8', 'a.md', 'markdown'],
    ['text/x-python; charset=utf-8', 'a.py', 'code'],
    ['application/json', 'a.json', 'code'],
    ['application/javascript', 'a.js', 'code'],
    ['text/x-unknown', 'a.weird', 'text'],
    ['image/png', 'a.png', null],
    ['application/zip', 'a.zip', null],
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'a.docx', null],
    ['application/octet-stream', 'a.txt', null],
    ['text/plain', 'x.toString', 'text'],
  ];
  for (const [type, filename, kind] of cases) assert.is(extractionKindOf(type, filename), kind, `${type} ${filename}`);
});

test('UTF-8 text loses its byte-order mark', async () => {
  const result = extracted(
    await extractFile('notes.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo wörld\n')])),
  );
  assert.equal(result, { status: 'extracted', kind: 'text', text: 'héllo wörld\n', truncated: false });
});

test('UTF-16 with a byte-order mark is decoded, little- and big-endian', async () => {
  const text = 'naïve 😀 text\nline two';
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const be = Buffer.from(le);
  be.swap16();
  assert.is(extracted(await extractFile('le.txt', le)).text, text);
  assert.is(extracted(await extractFile('be.txt', be)).text, text);
});

test('invalid UTF-8 bytes become U+FFFD', async () => {
  const result = extracted(await extractFile('broken.txt', Buffer.from('ok \xff\xfe done', 'latin1')));
  assert.is(result.text, 'ok \ufffd\ufffd done');
});

test('CSV keeps its text but its CRLF and lone CR line endings become LF', async () => {
  const result = extracted(await extractFile('table.csv', 'name,city\r\n"Dupont, Jean",Orléans\r\nx,y\rz,w\r\n'));
  assert.equal(result, {
    status: 'extracted',
    kind: 'csv',
    text: 'name,city\n"Dupont, Jean",Orléans\nx,y\nz,w\n',
    truncated: false,
  });
});

test('markdown and source code come back as written, with their kind', async () => {
  const markdown = '# Title\n\n- item *one*\n\n```js\nconst a = 1;\n```\n';
  const python = 'def greet(name: str) -> str:\n    return f"hi {name}"\n';
  assert.equal(extracted(await extractFile('README.md', markdown)), {
    status: 'extracted',
    kind: 'markdown',
    text: markdown,
    truncated: false,
  });
  assert.equal(extracted(await extractFile('greet.py', python)), {
    status: 'extracted',
    kind: 'code',
    text: python,
    truncated: false,
  });
});

test('a text file past maxSourceBytes is truncated before the character the cap cuts', async () => {
  const capped = another({ maxSourceBytes: 9 });
  // a(1) é(2) €(3) then 😀(4) spans bytes 7-10: the ninth byte is inside it.
  assert.equal(extracted(await extractFile('long.txt', 'aé€😀 and more', capped)), {
    status: 'extracted',
    kind: 'text',
    text: 'aé€',
    truncated: true,
  });
  // UTF-16 cut after the first half of a surrogate pair: the half is dropped too.
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ab😀c', 'utf16le')]);
  assert.equal(extracted(await extractFile('long16.txt', utf16, capped)), {
    status: 'extracted',
    kind: 'text',
    text: 'ab',
    truncated: true,
  });
});

test('a file exactly maxSourceBytes long is not truncated', async () => {
  const result = extracted(await extractFile('exact.txt', 'aé€😀', another({ maxSourceBytes: 10 })));
  assert.equal(result, { status: 'extracted', kind: 'text', text: 'aé€😀', truncated: false });
});

test('text past maxTextChars is cut without splitting a surrogate pair', async () => {
  const result = extracted(await extractFile('emoji.txt', 'a😀😀😀', another({ maxTextChars: 4 })));
  assert.equal(result, { status: 'extracted', kind: 'text', text: 'a😀', truncated: true });
});

test('characters and CRLF split across read chunks come back whole', async () => {
  // Chunks are a power of two (at most 1 MiB) long: 3-byte € straddle their boundaries, and byte 1 MiB is one.
  // (assert.ok, not assert.is: a failing diff of megabytes helps no one)
  const euros = '€'.repeat(800_000);
  const decoded = extracted(await extractFile('euros.txt', euros));
  assert.ok(
    decoded.text === euros && !decoded.truncated,
    `got ${decoded.text.length} characters, ${decoded.text.split('\ufffd').length - 1} U+FFFD`,
  );
  const xs = 'x'.repeat((1 << 20) - 1);
  const normalised = extracted(await extractFile('crlf.txt', `${xs}\r\nend`)).text;
  assert.ok(normalised === `${xs}\nend`, JSON.stringify(normalised.slice(-8)));
});

test('binary files and types without text are unsupported', async () => {
  const binary = await extractFile('blob.bin', Buffer.from([0x00, 0x01, 0x02, 0xff, 0x00]));
  assert.is(binary.status, 'unsupported');
  assert.is((await extractFile('photo.png', png(4, 4))).status, 'unsupported');
  assert.is((await extractFile('fake.txt', Buffer.from([0x68, 0x00, 0x00, 0x69]))).status, 'unsupported');
});

test('a two-page PDF gives both pages in order, lines kept, pages apart', async () => {
  const pdf = makePdf([
    ['Quarterly report', 'Revenue (net) grew \\ 12%'],
    ['Page two', 'The end'],
  ]);
  const result = extracted(await extractFile('report.pdf', pdf));
  assert.equal(result, {
    status: 'extracted',
    kind: 'pdf',
    text: 'Quarterly report\nRevenue (net) grew \\ 12%\n\nPage two\nThe end',
    truncated: false,
    pages: 2,
  });
});

test('Latin-1 accents in a WinAnsiEncoding PDF come back as Unicode', async () => {
  const result = extracted(
    await extractFile('menu.pdf', makePdf([['Crème brûlée à la carte', 'Ærøskøbing, São Paulo, Zürich']])),
  );
  assert.is(result.text, 'Crème brûlée à la carte\nÆrøskøbing, São Paulo, Zürich');
});

test('a PDF past maxTextChars stops there, truncated', async () => {
  const result = extracted(
    await extractFile('long.pdf', makePdf([lines('first', 20), lines('second', 20)]), another({ maxTextChars: 50 })),
  );
  assert.is(result.text.length, 50);
  assert.ok(result.text.startsWith('first line 1\nfirst line 2\n'));
  assert.ok(result.truncated);
});

test('a corrupt PDF fails with pdf.js’s error, and the next PDF still extracts', async () => {
  const corrupt = await extractFile('corrupt.pdf', Buffer.from(`%PDF-1.7\n${'garbage '.repeat(200)}`));
  assert.is(corrupt.status, 'failed');
  assert.ok(corrupt.status === 'failed' && corrupt.reason.startsWith('InvalidPDFException'), JSON.stringify(corrupt));
  assert.is(extracted(await extractFile('after-corrupt.pdf', makePdf([['still working']]))).text, 'still working');
});

test('an encrypted PDF fails asking for its password', async () => {
  const result = await extractFile('locked.pdf', makePdf([['secret']], { encrypted: true }));
  assert.ok(result.status === 'failed' && result.reason.startsWith('PasswordException'), JSON.stringify(result));
});

test('a PDF past maxSourceBytes is unsupported, whether the caller said so or the file does', async () => {
  const small = another({ maxSourceBytes: 200 });
  const pdf = makePdf([lines('big', 10)]);
  assert.is((await extractFile('big.pdf', pdf, small)).status, 'unsupported');
  const path = join(dir, 'understated.pdf');
  await writeFile(path, pdf);
  const understated = await small.extract({
    path,
    filename: 'understated.pdf',
    contentType: 'application/pdf',
    bytes: 100,
  });
  assert.is(understated.status, 'unsupported');
});

test('a PDF whose deadline passes fails as timed out, and the replaced worker takes the next one', async () => {
  let expireNext = true;
  const timed = another(
    { timeoutMs: 5000 },
    {
      // Fires the first per-PDF deadline at once (the worker's start-up deadline is 60 s, left alone).
      setDeadline: (ms, expire) => {
        if (ms === 5000 && expireNext) {
          expireNext = false;
          queueMicrotask(expire);
        }
        return () => undefined;
      },
    },
  );
  const first = await extractFile('slow.pdf', makePdf([['never read']]), timed);
  assert.equal(first, { status: 'failed', reason: 'timed out after 5000 ms' });
  assert.is(
    extracted(await extractFile('next.pdf', makePdf([['read by the new worker']]), timed)).text,
    'read by the new worker',
  );
});

test('a PDF still parsing at a real deadline is cut off mid-work', async () => {
  const timed = another({ timeoutMs: 400, maxSourceBytes: 64 << 20 });
  // Takes pdf.js several seconds; the worker is terminated while busy after 0.4 s.
  const huge = makePdf(Array.from({ length: 5000 }, (_, page) => lines(`page ${page}`, 10)));
  assert.equal(await extractFile('huge.pdf', huge, timed), { status: 'failed', reason: 'timed out after 400 ms' });
  assert.is(extracted(await extractFile('small.pdf', makePdf([['quick']]), timed)).text, 'quick');
});

test('five PDFs extracted at once each get their own text', async () => {
  const results = await Promise.all(
    [1, 2, 3, 4, 5].map((n) => extractFile(`doc-${n}.pdf`, makePdf([[`document ${n}`], [`end of ${n}`]]))),
  );
  assert.equal(
    results.map((result) => extracted(result).text),
    [1, 2, 3, 4, 5].map((n) => `document ${n}\n\nend of ${n}`),
  );
});

test('closing fails the PDFs still queued, and later extractions', async () => {
  const closing = createLocalTextExtractor(LIMITS);
  const path = join(dir, 'queued.pdf');
  await writeFile(path, makePdf([['never']]));
  const queued = [1, 2].map(() =>
    closing.extract({ path, filename: 'queued.pdf', contentType: 'application/pdf', bytes: 1000 }),
  );
  await closing.close();
  assert.equal(
    await Promise.all(queued),
    [1, 2].map(() => ({ status: 'failed', reason: 'the text extractor is closed' })),
  );
  assert.is((await extractFile('late.txt', 'late', closing)).status, 'failed');
});

test.run();
