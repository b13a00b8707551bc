/**
 * Decodes standard base64 strictly, without a regular expression over the payload: Node's decoder
 * skips characters outside the alphabet and stops at padding, so a payload decodes to exactly the
 * bytes its length promises only when every character was valid. Null when it is not base64.
 */
export function decodeBase64Strict(text: string): Buffer | null {
  if (text.length % 4 !== 0) return null;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== (text.length / 4) * 3 - padding) return null;
  // Base64url characters decode too: the standard alphabet only.
  if (text.includes('-') || text.includes('_')) return null;
  return bytes;
}

const EQUALS = 0x3d;
const MINUS = 0x2d;
const UNDERSCORE = 0x5f;

/** Bytes that the characters `source[start, end)` decode to as strict base64 (padding subtracted); -1 when their length cannot be base64. */
export function base64DecodedLength(source: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length % 4 !== 0) return -1;
  const padding = length === 0 ? 0 : source[end - 1] !== EQUALS ? 0 : source[end - 2] === EQUALS ? 2 : 1;
  return (length / 4) * 3 - padding;
}

/** Whether `byte` occurs in `source[start, end)` (a native search, no view made). */
const occurs = (source: Buffer, byte: number, start: number, end: number): boolean => {
  const at = source.indexOf(byte, start);
  return at !== -1 && at < end;
};

/**
 * Decodes the base64 characters `source[start, end)` (one byte each, as a JSON text's ASCII is)
 * into `target`, which holds exactly {@link base64DecodedLength} bytes, with the verdict
 * {@link decodeBase64Strict} gives their text; false when they are not base64 (`target` then holds
 * anything). The decoded bytes need no buffer of their own: a frame's audio can go into one reused.
 */
export function decodeBase64Into(source: Buffer, start: number, end: number, target: Buffer): boolean {
  if (base64DecodedLength(source, start, end) !== target.length) return false;
  if (occurs(source, MINUS, start, end) || occurs(source, UNDERSCORE, start, end)) return false;
  // Node decodes from a string only: a one-byte string, measured cheaper than decoding in JS.
  return target.write(source.toString('latin1', start, end), 0, 'base64') === target.length;
}
