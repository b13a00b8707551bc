const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const WHITESPACE = /\s/;

/**
 * Decodes standard or URL-safe base64 strictly (Buffer.from alone skips bad characters
 * silently); line breaks are allowed, anything else outside the alphabet gives null.
 */
export function decodeBase64(text: string): Buffer | null {
  const clean = WHITESPACE.test(text) ? text.replace(/\s+/g, '') : text;
  if (!BASE64.test(clean)) return null;
  const padded = clean.endsWith('=');
  if ((padded && clean.length % 4 !== 0) || clean.length % 4 === 1) return null;
  return Buffer.from(clean, 'base64');
}

/** The decoded size of a base64 text, from its length alone (to refuse oversize data before decoding). */
export function base64DecodedLength(text: string): number {
  return Math.floor((text.length * 3) / 4);
}

/** A `data:` URL split into its media type (lowercase, '' when absent) and base64 payload. */
export interface DataUrl {
  mediaType: string;
  base64: string;
}

/** Splits a `data:<type>[;params];base64,<payload>` URL; null when it is no base64 data URL. */
export function parseDataUrl(url: string): DataUrl | null {
  if (!/^data:/i.test(url)) return null;
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const [type = '', ...params] = url.slice(5, comma).split(';');
  if (!params.some((param) => param.trim().toLowerCase() === 'base64')) return null;
  return { mediaType: type.trim().toLowerCase(), base64: url.slice(comma + 1) };
}
