import type { ContentPart } from '../../../protocols/chat.js';
import { ApiError } from '../../../protocols/errors.js';
import { parseDataUrl } from './base64-payload.js';
import { decodeInlineMedia } from './load-media.js';
import type { ResolveContext, ResolvedPart } from './part-context.js';
import { partError } from './part-errors.js';

type FilePart = Extract<ContentPart, { type: 'file' }>;

/** A file's text beyond this many characters is cut, so one file cannot swamp the conversation. */
export const MAX_FILE_TEXT_CHARS = 100_000;

/** The text of UTF-8 bytes, or null for binary data (a NUL byte or an invalid sequence). */
function utf8Text(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function capped(text: string): string {
  if (text.length <= MAX_FILE_TEXT_CHARS) return text;
  let end = MAX_FILE_TEXT_CHARS;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // never split a surrogate pair
  return `${text.slice(0, end)} … (truncated at ${MAX_FILE_TEXT_CHARS} characters)`;
}

function framed(filename: string, text: string): ResolvedPart {
  // Extracted text is read, not generated: it adds no generated tokens.
  return { text: `[file ${filename.replace(/[[\]\r\n\t]/g, ' ')}: ${capped(text)}]`, generatedTokens: 0 };
}

/**
 * A `file` part as text: `[file report.txt: <extracted text>]`. `file_id` reads the account's
 * stored file (404 when absent or foreign); `file_data` must be UTF-8 text.
 */
export async function resolveFilePart(part: FilePart, at: string, context: ResolveContext): Promise<ResolvedPart> {
  const { file_id: fileId, file_data: fileData, filename } = part.file;
  if (fileId !== undefined && fileData !== undefined)
    throw partError(
      { label: `the file in ${at}`, param: `${at}.file` },
      `The file in ${at} gives both file_id and file_data; give one.`,
    );
  if (fileId !== undefined) {
    const found = await context.options.files.extractedText(context.accountId, fileId);
    if (!found) throw new ApiError('not_found', `No file ${fileId}.`, { param: `${at}.file.file_id` });
    return framed(found.filename, found.text);
  }
  const ref = { label: `the file_data in ${at}`, param: `${at}.file.file_data` };
  const payload = /^data:/i.test(fileData ?? '') ? parseDataUrl(fileData!)?.base64 : fileData;
  if (payload === undefined) throw partError(ref, `The file_data in ${at} is a data: URL without a ;base64 payload.`);
  const text = utf8Text(decodeInlineMedia(payload, ref, context.options.fetch.maxBytes));
  if (text === null) {
    throw partError(
      ref,
      `The file_data in ${at} is not UTF-8 text, so no text can be extracted from it; PDF and other binary files are not read inline.`,
    );
  }
  return framed(filename ?? 'attachment', text);
}
