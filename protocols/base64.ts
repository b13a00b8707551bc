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
