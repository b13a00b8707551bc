import type { Labelled } from './hostile-values.js';
import type { Rng } from './prng.js';

/** A multipart body and the Content-Type header that goes with it. */
export interface MultipartBody {
  body: Buffer;
  contentType: string;
}

interface Part {
  name: string;
  filename?: string;
  headers?: string[];
  data: Buffer | string;
}

function encodeParts(boundary: string, parts: Part[], options: { close?: boolean; lineEnd?: string } = {}): Buffer {
  const eol = options.lineEnd ?? '\r\n';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `Content-Disposition: form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const head = [
      `--${boundary}`,
      disposition,
      ...(part.headers ?? (part.filename !== undefined ? ['Content-Type: application/octet-stream'] : [])),
    ];
    chunks.push(Buffer.from(head.join(eol) + eol + eol, 'latin1'));
    chunks.push(typeof part.data === 'string' ? Buffer.from(part.data) : part.data);
    chunks.push(Buffer.from(eol));
  }
  if (options.close !== false) chunks.push(Buffer.from(`--${boundary}--${eol}`));
  return Buffer.concat(chunks);
}

/**
 * A multipart/form-data body for POST /v1/files: mostly malformed (no boundary, wrong boundary,
 * cut short, bad part headers, too many parts, hostile file names), sometimes a small valid file.
 */
export function hostileMultipart(rng: Rng): Labelled<MultipartBody> {
  const boundary = `----fuzz${rng.chars(16)}`;
  const type = `multipart/form-data; boundary=${boundary}`;
  const file = (data: Buffer | string = 'hello fuzz\n', filename = 'fuzz.txt'): Part => ({
    name: 'file',
    filename,
    data,
  });
  const purpose: Part = { name: 'purpose', data: 'assistants' };
  const make = (label: string, body: Buffer, contentType = type): Labelled<MultipartBody> => ({
    value: { body, contentType },
    label: `multipart: ${label}`,
  });
  return rng.weighted<() => Labelled<MultipartBody>>([
    [3, () => make('small valid file', encodeParts(boundary, [purpose, file(rng.chars(rng.int(1, 300)))]))],
    [2, () => make('no boundary parameter', encodeParts(boundary, [file()]), 'multipart/form-data')],
    [2, () => make('boundary mismatch', encodeParts(boundary, [file()]), `multipart/form-data; boundary=${boundary}x`)],
    [
      1,
      () =>
        make(
          'boundary over 70 characters',
          encodeParts('b'.repeat(80), [file()]),
          `multipart/form-data; boundary=${'b'.repeat(80)}`,
        ),
    ],
    [
      1,
      () =>
        make(
          'quoted boundary with junk',
          encodeParts(boundary, [file()]),
          `multipart/form-data; boundary="${boundary}"; boundary=other; charset=\u00ff`,
        ),
    ],
    [3, () => make('cut short (no closing boundary)', encodeParts(boundary, [purpose, file()], { close: false }))],
    [
      1,
      () =>
        make('cut in the middle of a part header', Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; na`)),
    ],
    [1, () => make('bare LF line ends', encodeParts(boundary, [file()], { lineEnd: '\n' }))],
    [2, () => make('file part without filename', encodeParts(boundary, [{ name: 'file', data: 'abc' }]))],
    [1, () => make('no file part', encodeParts(boundary, [purpose]))],
    [1, () => make('two file parts', encodeParts(boundary, [file(), file('second')]))],
    [1, () => make('empty file', encodeParts(boundary, [file('')]))],
    [
      1,
      () =>
        make(
          '30 parts',
          encodeParts(
            boundary,
            Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, data: 'x' })),
          ),
        ),
    ],
    [
      1,
      () =>
        make(
          '70 KiB of form fields',
          encodeParts(boundary, [{ name: 'purpose', data: 'x'.repeat(70 * 1024) }, file()]),
        ),
    ],
    [
      1,
      () =>
        make(
          'bad purpose',
          encodeParts(boundary, [{ name: 'purpose', data: rng.pick(['nope', '', '__proto__']) }, file()]),
        ),
    ],
    [
      2,
      () =>
        make(
          'hostile filename',
          encodeParts(boundary, [
            file(
              'data',
              rng.pick([
                '../../etc/passwd',
                '',
                ' ',
                'a\u0001b',
                'x'.repeat(300),
                '\u00e9\u00ff.txt',
                'C:\\Windows\\win.ini',
                '/',
                '..',
                '%00.txt',
              ]),
            ),
          ]),
        ),
    ],
    [
      1,
      () =>
        make(
          'garbage part headers',
          encodeParts(boundary, [
            { name: 'file', filename: 'a.txt', headers: ['Content-Type', ': x', 'X'.repeat(9000)], data: 'abc' },
          ]),
        ),
    ],
    [
      1,
      () =>
        make(
          'filename* with bad encoding',
          encodeParts(boundary, [
            {
              name: 'file',
              headers: [`Content-Disposition: form-data; name="file"; filename*=UTF-8''%ff%fe.txt`],
              data: 'abc',
            },
          ]),
        ),
    ],
    [1, () => make('not multipart at all', Buffer.from('{"filename":"a.txt"}'))],
    [1, () => make('empty body', Buffer.alloc(0))],
  ])();
}
