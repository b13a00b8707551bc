import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  MultipartError,
  MultipartParser,
  multipartBoundary,
  type MultipartPartHead,
  type MultipartSink,
} from '../protocols/multipart.js';

const BOUNDARY = '----testBoundary7MA4YWxkTrZu0gW';
const DELIMITER_LENGTH = `\r\n--${BOUNDARY}`.length;

interface Part {
  head: MultipartPartHead;
  body: Buffer;
}

/** A sink that keeps every chunk it is given (not a copy), so a reused buffer would show in the result. */
function collectingSink(): { sink: MultipartSink; parts: Part[] } {
  const parts: Part[] = [];
  let chunks: Buffer[] | null = null;
  let head: MultipartPartHead | null = null;
  const sink: MultipartSink = {
    partStart(partHead) {
      assert.is(chunks, null, 'partStart inside a part');
      head = partHead;
      chunks = [];
    },
    partData(chunk) {
      assert.ok(chunks, 'partData outside a part');
      assert.ok(chunk.length > 0, 'an empty chunk was emitted');
      chunks.push(chunk);
    },
    partEnd() {
      assert.ok(chunks && head, 'partEnd outside a part');
      parts.push({ head, body: Buffer.concat(chunks) });
      chunks = null;
      head = null;
    },
  };
  return { sink, parts };
}

async function parse(
  chunks: Buffer[],
  options: { boundary?: string; limits?: { maxHeaderBytes?: number; maxParts?: number } } = {},
): Promise<Part[]> {
  const { sink, parts } = collectingSink();
  const parser = new MultipartParser(options.boundary ?? BOUNDARY, sink, options.limits);
  for (const chunk of chunks) await parser.write(chunk);
  parser.end();
  return parts;
}

async function rejectsWithMultipartError(run: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    assert.instance(error, MultipartError, what);
    return;
  }
  assert.unreachable(`${what}: no MultipartError`);
}

function field(name: string, value: string): string {
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
}

// File bytes that look like the start of a delimiter without being one, a boundary not preceded by
// CRLF, lone CRs and LFs, and a CR as the last byte (right before the real delimiter).
const FILE = Buffer.concat([
  Buffer.from([0x00, 0xff, 0x0d, 0x0d, 0x0a, 0x2d]),
  Buffer.from(`\r\n--${BOUNDARY.slice(0, 10)} and more\r\n-\r\r\n--\r\n`),
  Buffer.from(`\r\n--${BOUNDARY.slice(0, -1)}X\n--${BOUNDARY}\r\nx--${BOUNDARY}\r`),
  Buffer.from([0x0d, 0x2d, 0x2d, 0x0d, 0x0a, 0x2d, 0x2d, 0x2d, 0x0d]),
]);

const PREFIX = Buffer.from(
  'This is the preamble, ignored.\r\n' +
    field('model', 'whisper-1') +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n` +
    'line one\r\nline two 漢字\r\n' +
    `--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="a.bin"\r\nCONTENT-TYPE: application/octet-stream\r\nX-Extra: 1\r\n\r\n`,
);
const SUFFIX = Buffer.from(`\r\n--${BOUNDARY}--\r\nThe epilogue, ignored, even with \r\n--${BOUNDARY}\r\nin it.`);
const SAMPLE = Buffer.concat([PREFIX, FILE, SUFFIX]);

const EXPECTED: Part[] = [
  {
    head: {
      name: 'model',
      filename: null,
      contentType: null,
      headers: { 'content-disposition': 'form-data; name="model"' },
    },
    body: Buffer.from('whisper-1'),
  },
  {
    head: {
      name: 'note',
      filename: null,
      contentType: 'text/plain; charset=utf-8',
      headers: { 'content-disposition': 'form-data; name="note"', 'content-type': 'text/plain; charset=utf-8' },
    },
    body: Buffer.from('line one\r\nline two 漢字'),
  },
  {
    head: {
      name: 'file',
      filename: 'a.bin',
      contentType: 'application/octet-stream',
      headers: {
        'content-disposition': 'form-data; name="file"; filename="a.bin"',
        'content-type': 'application/octet-stream',
        'x-extra': '1',
      },
    },
    body: FILE,
  },
];

const chunking = suite('multipart parser: parts survive any chunking');

chunking('the sample file part holds lookalike delimiters and ends in a CR', () => {
  assert.ok(FILE.includes(`\r\n--${BOUNDARY.slice(0, 10)}`));
  assert.ok(FILE.includes(`--${BOUNDARY}`));
  assert.not.ok(FILE.includes(`\r\n--${BOUNDARY}`));
  assert.is(FILE[FILE.length - 1], 0x0d);
});

chunking('the whole body in one chunk gives the expected parts', async () => {
  assert.equal(await parse([SAMPLE]), EXPECTED);
});

chunking('a split at every byte position gives the same parts', async () => {
  for (let at = 0; at <= SAMPLE.length; at++) {
    assert.equal(await parse([SAMPLE.subarray(0, at), SAMPLE.subarray(at)]), EXPECTED, `split at byte ${at}`);
  }
});

chunking('one byte at a time gives the same parts', async () => {
  assert.equal(await parse([...SAMPLE].map((byte) => Buffer.of(byte))), EXPECTED);
});

chunking('three chunks around the file part give the same file bytes', async () => {
  for (let a = PREFIX.length - 5; a < PREFIX.length + FILE.length; a += 3) {
    for (let b = a; b <= SAMPLE.length; b += 7) {
      const parts = await parse([SAMPLE.subarray(0, a), SAMPLE.subarray(a, b), SAMPLE.subarray(b)]);
      assert.ok(parts[2]?.body.equals(FILE), `split at ${a} and ${b}`);
    }
  }
});

chunking('a body that opens with its first boundary and has no epilogue parses', async () => {
  const body = Buffer.from(`${field('a', '1')}${field('b', '')}--${BOUNDARY}--`);
  const parts = await parse([body]);
  assert.equal(
    parts.map((part) => [part.head.name, part.body.toString()]),
    [
      ['a', '1'],
      ['b', ''],
    ],
  );
});

chunking('a preamble and an epilogue that contain the boundary are ignored', async () => {
  const body = Buffer.from(
    `--${BOUNDARY}x\r\n--${BOUNDARY}-y\r\n-- not yet\r\n${field('a', '1')}--${BOUNDARY}--\r\n--${BOUNDARY}\r\ngarbage`,
  );
  for (let at = 0; at <= body.length; at++) {
    const parts = await parse([body.subarray(0, at), body.subarray(at)]);
    assert.equal(
      parts.map((part) => [part.head.name, part.body.toString()]),
      [['a', '1']],
      `split at ${at}`,
    );
  }
});

chunking('writes after the closing boundary are ignored', async () => {
  const { sink, parts } = collectingSink();
  const parser = new MultipartParser(BOUNDARY, sink);
  await parser.write(Buffer.from(`${field('a', '1')}--${BOUNDARY}--`));
  await parser.write(Buffer.from(`\r\n${field('b', '2')}`));
  parser.end();
  assert.equal(
    parts.map((part) => part.head.name),
    ['a'],
  );
});

chunking.run();

const headers = suite('multipart parser: part headers');

async function onlyHead(headerLines: string): Promise<MultipartPartHead> {
  const parts = await parse([Buffer.from(`--${BOUNDARY}\r\n${headerLines}\r\n\r\nx\r\n--${BOUNDARY}--`)]);
  assert.is(parts.length, 1);
  return parts[0]!.head;
}

headers('filename* in UTF-8 wins over filename', async () => {
  const head = await onlyHead(
    `Content-Disposition: form-data; name="file"; filename="resume.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%E6%BC%A2%E5%AD%97.txt`,
  );
  assert.is(head.filename, 'résumé 漢字.txt');
});

headers('filename* alone, in ISO-8859-1, and quoted, is decoded', async () => {
  assert.is(
    (await onlyHead(`Content-Disposition: form-data; name=f; filename*=utf-8'en'%E2%82%AC.txt`)).filename,
    '€.txt',
  );
  assert.is(
    (await onlyHead(`Content-Disposition: form-data; name=f; filename*=iso-8859-1''%A3%20rates`)).filename,
    '£ rates',
  );
  assert.is((await onlyHead(`Content-Disposition: form-data; name=f; filename*="UTF-8''a%20b"`)).filename, 'a b');
});

headers('a raw UTF-8 filename, as browsers send it, is read as UTF-8', async () => {
  assert.is(
    (await onlyHead('Content-Disposition: form-data; name="f"; filename="résumé 漢字.txt"')).filename,
    'résumé 漢字.txt',
  );
});

headers('quoted strings unescape \\" and \\\\ but keep other backslashes, as in Windows paths', async () => {
  assert.is(
    (await onlyHead(String.raw`Content-Disposition: form-data; name="a\"b"; filename="q\"uo\\te.txt"`)).name,
    'a"b',
  );
  assert.is(
    (await onlyHead(String.raw`Content-Disposition: form-data; name="a"; filename="q\"uo\\te.txt"`)).filename,
    'q"uo\\te.txt',
  );
  assert.is(
    (await onlyHead(String.raw`Content-Disposition: form-data; name="a"; filename="C:\dir\a.txt"`)).filename,
    String.raw`C:\dir\a.txt`,
  );
  assert.is((await onlyHead(`Content-Disposition: form-data; name="semi;colon"; filename="x"`)).name, 'semi;colon');
});

headers('header and parameter names are case-insensitive, values may be tokens, spacing is loose', async () => {
  const head = await onlyHead(
    'CONTENT-DISPOSITION:FORM-DATA ;NAME = token_value ; FileName=plain.txt;\r\ncontent-TYPE:  image/png  ',
  );
  assert.equal(head, {
    name: 'token_value',
    filename: 'plain.txt',
    contentType: 'image/png',
    headers: {
      'content-disposition': 'FORM-DATA ;NAME = token_value ; FileName=plain.txt;',
      'content-type': 'image/png',
    },
  });
});

headers('an empty filename stays an empty string and an empty name is a name', async () => {
  const head = await onlyHead('Content-Disposition: form-data; name=""; filename=""');
  assert.is(head.name, '');
  assert.is(head.filename, '');
});

headers('bare-LF header lines and transport padding after the boundary are accepted', async () => {
  const body = Buffer.from(
    `--${BOUNDARY} \t\nContent-Disposition: form-data; name="a"\nContent-Type: text/plain\n\nvalue\n\r\n` +
      `--${BOUNDARY}\nContent-Disposition: form-data; name="b"\r\n\nsecond\r\n--${BOUNDARY}--`,
  );
  for (let at = 0; at <= body.length; at++) {
    const parts = await parse([body.subarray(0, at), body.subarray(at)]);
    assert.equal(
      parts.map((part) => [part.head.name, part.head.contentType, part.body.toString()]),
      [
        ['a', 'text/plain', 'value\n'],
        ['b', null, 'second'],
      ],
      `split at ${at}`,
    );
  }
});

headers('repeated headers are joined and folded lines are unfolded', async () => {
  const head = await onlyHead(
    'Content-Disposition: form-data; name="a"\r\nX-Tag: one\r\nx-tag: two\r\nX-Long: first\r\n  second',
  );
  assert.is(head.headers['x-tag'], 'one, two');
  assert.is(head.headers['x-long'], 'first second');
});

headers('headers named like Object.prototype members are plain headers', async () => {
  const head = await onlyHead('Content-Disposition: form-data; name="a"\r\n__proto__: x\r\nconstructor: y');
  assert.ok(Object.hasOwn(head.headers, '__proto__'));
  assert.is(Object.getOwnPropertyDescriptor(head.headers, '__proto__')?.value, 'x');
  assert.is(head.headers.constructor, 'y');
});

headers.run();

const malformed = suite('multipart parser: malformed input is a MultipartError');

malformed('every cut before the closing boundary makes end() throw', async () => {
  const closed = SAMPLE.indexOf(`\r\n--${BOUNDARY}--`) + DELIMITER_LENGTH + 2;
  for (let at = 0; at < SAMPLE.length; at++) {
    const { sink } = collectingSink();
    const parser = new MultipartParser(BOUNDARY, sink);
    await parser.write(SAMPLE.subarray(0, at));
    if (at < closed)
      assert.throws(
        () => parser.end(),
        (error: unknown) => error instanceof MultipartError,
        `cut at ${at}`,
      );
    else parser.end();
  }
});

malformed('an empty body makes end() throw', () => {
  const parser = new MultipartParser(BOUNDARY, collectingSink().sink);
  assert.throws(
    () => parser.end(),
    (error: unknown) => error instanceof MultipartError,
  );
});

malformed('a header block over maxHeaderBytes is refused, whole or byte by byte', async () => {
  const body = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ${'p'.repeat(100)}\r\n\r\nx\r\n--${BOUNDARY}--`,
  );
  await rejectsWithMultipartError(() => parse([body], { limits: { maxHeaderBytes: 100 } }), 'whole');
  await rejectsWithMultipartError(
    () =>
      parse(
        [...body].map((byte) => Buffer.of(byte)),
        { limits: { maxHeaderBytes: 100 } },
      ),
    'bytewise',
  );
  assert.is((await parse([body], { limits: { maxHeaderBytes: 200 } })).length, 1);
});

malformed('the default header limit is 16 KiB per part', async () => {
  const bodyWith = (pad: number): Buffer =>
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ${'p'.repeat(pad)}\r\n\r\nx\r\n--${BOUNDARY}--`,
    );
  assert.is((await parse([bodyWith(15 * 1024)])).length, 1);
  await rejectsWithMultipartError(() => parse([bodyWith(16 * 1024)]), '16 KiB of padding');
  // A header line with no line break at all is refused too, without waiting for the end.
  const parser = new MultipartParser(BOUNDARY, collectingSink().sink);
  await rejectsWithMultipartError(
    () => parser.write(Buffer.from(`--${BOUNDARY}\r\nX: ${'p'.repeat(17 * 1024)}`)),
    'unterminated',
  );
});

malformed('more parts than maxParts are refused', async () => {
  const body = (count: number): Buffer =>
    Buffer.from(`${Array.from({ length: count }, (_, i) => field(`f${i}`, 'v')).join('')}--${BOUNDARY}--`);
  assert.is((await parse([body(3)], { limits: { maxParts: 3 } })).length, 3);
  await rejectsWithMultipartError(() => parse([body(4)], { limits: { maxParts: 3 } }), '4 of 3');
  assert.is((await parse([body(100)])).length, 100);
  await rejectsWithMultipartError(() => parse([body(101)]), '101 of the default 100');
});

malformed('a part without a name, without Content-Disposition or not form-data is refused', async () => {
  for (const headerLines of [
    'Content-Disposition: form-data; filename="a.txt"',
    'Content-Type: text/plain',
    'Content-Disposition: attachment; name="a"',
    'Content-Disposition: form-data; name="a"; name="b"',
    'Content-Disposition: form-data; name="a"\r\nContent-Disposition: form-data; name="b"',
    'Content-Disposition: form-data; name="unterminated',
    'Content-Disposition: form-data; name',
    "Content-Disposition: form-data; name=a; filename*=UTF-8''%C3",
    "Content-Disposition: form-data; name=a; filename*=UTF-8''%G1",
    "Content-Disposition: form-data; name=a; filename*=KOI8-R''x",
    'no colon here',
  ]) {
    const body = Buffer.from(`--${BOUNDARY}\r\n${headerLines}\r\n\r\nx\r\n--${BOUNDARY}--`);
    await rejectsWithMultipartError(() => parse([body]), headerLines);
  }
});

malformed('a boundary followed by anything but a line break or -- is refused', async () => {
  await rejectsWithMultipartError(
    () => parse([Buffer.from(`${field('a', '1')}--${BOUNDARY}junk\r\n`)]),
    'junk after the boundary',
  );
  await rejectsWithMultipartError(() => parse([Buffer.from(`${field('a', `1\r\n--${BOUNDARY}-x`)}`)]), 'a single dash');
});

malformed('after a failure every later write and end fail', async () => {
  const parser = new MultipartParser(BOUNDARY, collectingSink().sink);
  await rejectsWithMultipartError(() => parser.write(Buffer.from(`--${BOUNDARY}\r\nContent-Type: x\r\n\r\n`)), 'first');
  await rejectsWithMultipartError(() => parser.write(Buffer.from(`--${BOUNDARY}--`)), 'second');
  assert.throws(
    () => parser.end(),
    (error: unknown) => error instanceof MultipartError,
  );
});

malformed('an unusable boundary is refused by the constructor', () => {
  for (const boundary of ['', 'a'.repeat(71), 'has\r\ncrlf', 'trailing ', 'brace{']) {
    assert.throws(
      () => new MultipartParser(boundary, collectingSink().sink),
      (error: unknown) => error instanceof MultipartError,
      boundary,
    );
  }
});

malformed('an error thrown by the sink leaves write as it is', async () => {
  const failure = new Error('disk full');
  const parser = new MultipartParser(BOUNDARY, {
    partStart() {},
    partData() {
      return Promise.reject(failure);
    },
    partEnd() {},
  });
  try {
    await parser.write(Buffer.from(field('a', '1')));
    assert.unreachable('no error');
  } catch (error) {
    assert.is(error, failure);
  }
});

malformed.run();

const flow = suite('multipart parser: backpressure and bounded memory');

/** Waits until no more microtasks or immediates are queued ahead of us (no clock involved). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

flow('the parser calls the sink again only after its promise settles', async () => {
  const calls: string[] = [];
  let release: (() => void) | null = null;
  const pausing = (label: string) => (): Promise<void> => {
    assert.is(release, null, `${label} called while the previous call was pending`);
    calls.push(label);
    return new Promise<void>((resolve) => {
      release = () => {
        release = null;
        resolve();
      };
    });
  };
  const sink: MultipartSink = {
    partStart: (head) => pausing(`start ${head.name}`)(),
    partData: (chunk) => pausing(`data ${chunk.toString()}`)(),
    partEnd: pausing('end'),
  };
  const parser = new MultipartParser(BOUNDARY, sink);
  // The first write ends in a partial delimiter, so the second emits the carried bytes and then its own.
  const writes = [
    Buffer.from(
      `${field('a', '1')}--${BOUNDARY}\r\nContent-Disposition: form-data; name="b"\r\n\r\nxy\r\n--${BOUNDARY.slice(0, 4)}`,
    ),
    Buffer.from(`zz\r\n--${BOUNDARY}--`),
  ];
  for (const chunk of writes) {
    let settled = false;
    const writing = parser.write(chunk).then(() => {
      settled = true;
    });
    for (;;) {
      await settle();
      if (settled) break;
      assert.ok(release, 'write is pending without a pending sink call');
      const before = calls.length;
      await settle();
      assert.is(calls.length, before, 'the parser moved on while the sink was paused');
      (release as () => void)();
    }
    await writing;
  }
  parser.end();
  assert.equal(calls, [
    'start a',
    'data 1',
    'end',
    'start b',
    'data xy',
    `data \r\n--${BOUNDARY.slice(0, 4)}`,
    'data zz',
    'end',
  ]);
});

flow('a 20 MiB file part in 64 KiB chunks is streamed, holding back at most one delimiter', async () => {
  const fileSize = 20 * 1024 * 1024;
  const chunkSize = 64 * 1024;
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`);
  const file = Buffer.allocUnsafe(fileSize);
  let seed = 12345;
  for (let i = 0; i < fileSize; i += 4) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    file.writeUInt32LE(seed, i);
  }
  // Make many chunks end inside something that looks like the delimiter.
  const lookalike = Buffer.from(`\r\n--${BOUNDARY.slice(0, -1)}`);
  for (let end = chunkSize - head.length; end < fileSize; end += chunkSize * 3)
    lookalike.copy(file, end - lookalike.length);
  const body = Buffer.concat([head, file, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);

  const hash = createHash('sha256');
  let emitted = 0;
  let largest = 0;
  let ended = false;
  const parser = new MultipartParser(BOUNDARY, {
    partStart() {},
    partData(chunk) {
      hash.update(chunk);
      emitted += chunk.length;
      largest = Math.max(largest, chunk.length);
    },
    partEnd() {
      ended = true;
    },
  });
  let maxHeld = 0;
  for (let written = 0; written < body.length;) {
    const chunk = body.subarray(written, written + chunkSize);
    await parser.write(chunk);
    written += chunk.length;
    if (written >= head.length && !ended) {
      const held = written - head.length - emitted;
      assert.ok(held >= 0 && held < DELIMITER_LENGTH, `held ${held} bytes after writing ${written}`);
      maxHeld = Math.max(maxHeld, held);
    }
  }
  parser.end();
  assert.ok(ended);
  assert.is(emitted, fileSize);
  assert.is(hash.digest('hex'), createHash('sha256').update(file).digest('hex'));
  assert.is(maxHeld, DELIMITER_LENGTH - 1, 'the lookalikes were held back, and no more');
  assert.ok(largest <= chunkSize + DELIMITER_LENGTH, `largest emitted chunk ${largest}`);
});

flow.run();

const boundary = suite('multipart parser: the boundary from Content-Type');

boundary('a multipart/form-data type gives its boundary, quoted or not, in any case', () => {
  const cases: [string, string][] = [
    ['multipart/form-data; boundary=abc', 'abc'],
    ['Multipart/Form-Data; BOUNDARY="a b:c"', 'a b:c'],
    ['multipart/form-data;boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW', '----WebKitFormBoundary7MA4YWxkTrZu0gW'],
    ['multipart/form-data; charset=utf-8; boundary="x"', 'x'],
    ['  multipart/form-data ; boundary=abc ; charset=utf-8', 'abc'],
    [`multipart/form-data; boundary=${'b'.repeat(70)}`, 'b'.repeat(70)],
  ];
  for (const [contentType, expected] of cases) assert.is(multipartBoundary(contentType), expected, contentType);
});

boundary('anything else gives null', () => {
  const cases: (string | undefined)[] = [
    undefined,
    '',
    'application/json',
    'multipart/mixed; boundary=abc',
    'multipart/form-data',
    'multipart/form-data; charset=utf-8',
    'multipart/form-data; boundary=',
    'multipart/form-data; boundary=""',
    `multipart/form-data; boundary=${'b'.repeat(71)}`,
    'multipart/form-data; boundary="ends in space "',
    'multipart/form-data; boundary={braces}',
    'multipart/form-data; boundary="unterminated',
    'multipart/form-data; boundary=a; boundary=b',
    'multipart/form-data-x; boundary=a',
    'text/plain; x=multipart/form-data; boundary=a',
  ];
  for (const contentType of cases) assert.is(multipartBoundary(contentType), null, String(contentType));
});

boundary.run();

const fetchCompat = suite('multipart parser: bodies built by fetch FormData');

fetchCompat('a FormData body from new Response() parses, streamed as fetch would send it', async () => {
  const bytes = Buffer.from([...FILE, ...Buffer.from('\r\n--'), 0x0d]);
  const form = new FormData();
  form.append('model', 'whisper-1');
  form.append('prompt', 'line one\nline two 漢字');
  form.append('file', new Blob([bytes], { type: 'audio/wav' }), 'résumé 漢字.wav');
  form.append('quoted', new Blob(['q']), 'say "hi".txt');
  const response = new Response(form);
  const found = multipartBoundary(response.headers.get('content-type') ?? undefined);
  assert.ok(found, 'a boundary');
  const { sink, parts } = collectingSink();
  const parser = new MultipartParser(found, sink);
  for await (const chunk of response.body!)
    await parser.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  parser.end();
  assert.equal(
    parts.map((part) => [part.head.name, part.head.filename, part.head.contentType]),
    [
      ['model', null, null],
      ['prompt', null, null],
      ['file', 'résumé 漢字.wav', 'audio/wav'],
      ['quoted', 'say %22hi%22.txt', 'application/octet-stream'],
    ],
  );
  assert.is(parts[0]!.body.toString(), 'whisper-1');
  assert.is(parts[1]!.body.toString(), 'line one\r\nline two 漢字', 'FormData turns line breaks in values into CRLF');
  assert.ok(parts[2]!.body.equals(bytes), 'file bytes');
});

fetchCompat.run();
