import { basename, extname } from 'node:path';
import { sniffMedia } from './media-sniff.js';

/** How a stored file's text is extracted; null from extractionKindOf means it is not. */
export type ExtractionKind = 'text' | 'csv' | 'markdown' | 'code' | 'pdf';

const OCTET_STREAM = 'application/octet-stream';
const PLAIN_TEXT = 'text/plain';

/** Types named by extension: the MIME essence and how its text is read. A Map, so `x.constructor` finds nothing. */
const BY_EXTENSION = new Map<string, { type: string; kind: ExtractionKind }>();
function register(type: string, kind: ExtractionKind, extensions: string): void {
  for (const extension of extensions.split(' ')) BY_EXTENSION.set(extension, { type, kind });
}
register(PLAIN_TEXT, 'text', 'txt text log');
register('text/markdown', 'markdown', 'md markdown mdx');
register('text/csv', 'csv', 'csv');
register('text/tab-separated-values', 'csv', 'tsv tab');
register('application/json', 'code', 'json');
register('application/jsonl', 'code', 'jsonl ndjson');
register('text/html', 'code', 'html htm');
register('application/xml', 'code', 'xml');
register('application/yaml', 'code', 'yaml yml');
register('application/toml', 'code', 'toml');
register('text/x-ini', 'code', 'ini cfg conf');
register('text/css', 'code', 'css');
register('text/x-scss', 'code', 'scss sass less');
register('text/javascript', 'code', 'js mjs cjs jsx');
// Not mime-db's video/mp2t: a stored .ts here is TypeScript, not an MPEG transport stream.
register('text/x-typescript', 'code', 'ts mts cts tsx');
register('text/x-python', 'code', 'py pyi');
register('text/x-ruby', 'code', 'rb');
register('text/x-go', 'code', 'go');
register('text/x-rust', 'code', 'rs');
register('text/x-java', 'code', 'java');
register('text/x-kotlin', 'code', 'kt kts');
register('text/x-scala', 'code', 'scala');
register('text/x-c', 'code', 'c h');
register('text/x-c++', 'code', 'cpp cc cxx hpp hh hxx');
register('text/x-csharp', 'code', 'cs');
register('text/x-php', 'code', 'php');
register('text/x-swift', 'code', 'swift');
register('text/x-lua', 'code', 'lua');
register('text/x-perl', 'code', 'pl pm');
register('text/x-r', 'code', 'r');
register('text/x-dart', 'code', 'dart');
register('text/x-vue', 'code', 'vue svelte');
register('text/x-shellscript', 'code', 'sh bash zsh');
register('application/sql', 'code', 'sql');
register('application/graphql', 'code', 'graphql gql');
register('text/x-protobuf', 'code', 'proto');

/** Extension-less file names that are source code. */
const CODE_NAMES = new Set([
  'makefile',
  'dockerfile',
  'containerfile',
  'gemfile',
  'rakefile',
  'jenkinsfile',
  'procfile',
]);

/** MIME essence to extraction kind, for the types we name and the ones clients commonly send. */
const KIND_OF_TYPE = new Map<string, ExtractionKind>([
  ...[...BY_EXTENSION.values()].map((entry): [string, ExtractionKind] => [entry.type, entry.kind]),
  ['application/pdf', 'pdf'],
  ['text/x-markdown', 'markdown'],
  ['application/csv', 'csv'],
  ['application/javascript', 'code'],
  ['application/typescript', 'code'],
  ['application/x-sh', 'code'],
  ['application/x-ndjson', 'code'],
  ['application/x-yaml', 'code'],
  ['text/yaml', 'code'],
  ['text/xml', 'code'],
]);

const OOXML = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
} as const;

function extensionOf(filename: string): string {
  return extname(filename).slice(1).toLowerCase();
}

/**
 * A ZIP's type: an Office document by its extension, else by the part names (`word/document.xml`,
 * `xl/workbook.xml`) Office writers put in the first local headers, else a plain archive.
 */
function zipType(filename: string, head: Buffer): string {
  const extension = extensionOf(filename);
  if (extension === 'docx' || extension === 'xlsx' || extension === 'pptx') return OOXML[extension];
  const names = head.toString('latin1');
  if (names.includes('word/')) return OOXML.docx;
  if (names.includes('xl/')) return OOXML.xlsx;
  if (names.includes('ppt/')) return OOXML.pptx;
  return 'application/zip';
}

/** The charset a UTF-16 byte-order mark announces, else null. */
function utf16Charset(head: Buffer): string | null {
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return null;
}

/** Whether more than 1 % of `head` are control bytes text never has (all but tab, LF, VT, FF, CR, ESC). */
function hasBinaryControls(head: Buffer): boolean {
  let controls = 0;
  for (const byte of head)
    if ((byte < 0x20 && (byte < 0x09 || (byte > 0x0d && byte !== 0x1b))) || byte === 0x7f) controls++;
  return controls > head.length / 100;
}

/** Whether `head` (possibly cut mid-character at its end) is UTF-8 without NUL bytes or a run of control bytes. */
function isUtf8Text(head: Buffer): boolean {
  if (head.includes(0) || hasBinaryControls(head)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

function withCharset(type: string, head: Buffer): string {
  return `${type}; charset=${utf16Charset(head) ?? 'utf-8'}`;
}

/**
 * The type the container sniffer (file-type) reads off `head`, or null when it is text to us. UTF-16
 * with a byte-order mark is text (file-type would read FF FE as an MPEG frame). On a UTF-8 head
 * only a PDF is believed: what else file-type reads off text (XML, iCalendar, RTF, WebVTT, …)
 * keeps its extension, its charset and its text extraction.
 */
async function containerType(filename: string, head: Buffer): Promise<string | null> {
  if (utf16Charset(head) !== null) return null;
  const sniffed = await sniffMedia(head);
  if (!sniffed || (sniffed.mime !== 'application/pdf' && isUtf8Text(head))) return null;
  return sniffed.ext === 'zip' ? zipType(filename, head) : sniffed.mime;
}

/**
 * The MIME type a stored file is kept and served under: the container its bytes announce first,
 * then its extension, else plain text when `head` is UTF-8 (or UTF-16 with a byte-order mark),
 * else octet-stream. Textual types carry a charset (utf-8 unless a UTF-16 byte-order mark says otherwise).
 */
export async function contentTypeOf(filename: string, head: Buffer): Promise<string> {
  const container = await containerType(filename, head);
  if (container) return container;
  const utf16 = utf16Charset(head) !== null;
  const known = BY_EXTENSION.get(extensionOf(filename));
  // A text extension on bytes with NULs (and no UTF-16 byte-order mark) is a mislabelled binary, not text.
  if (known) return utf16 || !head.includes(0) ? withCharset(known.type, head) : OCTET_STREAM;
  if (utf16 || isUtf8Text(head)) return withCharset(PLAIN_TEXT, head);
  return OCTET_STREAM;
}

function essenceOf(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * How a file's text is extracted, from its content type and (for generic text types) its name;
 * null when it is not extractable (images, audio, archives, office files, unknown binaries).
 */
export function extractionKindOf(contentType: string, filename: string): ExtractionKind | null {
  const essence = essenceOf(contentType);
  if (essence !== PLAIN_TEXT) {
    const kind = KIND_OF_TYPE.get(essence);
    if (kind) return kind;
    if (!essence.startsWith('text/')) return null;
  }
  // Plain or unknown text: the name may say more (`notes.md` sent as text/plain, a `Makefile`).
  const byName = BY_EXTENSION.get(extensionOf(filename))?.kind;
  if (byName) return byName;
  return CODE_NAMES.has(basename(filename).toLowerCase()) ? 'code' : 'text';
}

/** The `charset` parameter of a content type, lower-cased, or null when it has none. */
export function charsetOf(contentType: string): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType);
  return match?.[1]?.toLowerCase() ?? null;
}
