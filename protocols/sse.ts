/** The SSE terminator chat streams end with. */
export const SSE_DONE = 'data: [DONE]\n\n';

/** One `data:` event carrying JSON (JSON.stringify never emits a raw newline, so one line is enough). */
export function sseData(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/** A named event carrying JSON, as the Responses API streams them (`event:` then `data:`). */
export function sseNamed(event: string, value: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(value)}\n\n`;
}

/**
 * A Responses stream event carrying a response whose JSON text is already made: the same bytes
 * {@link sseNamed} writes for `{ type, response, sequence_number }`, without walking the object again.
 */
export function sseResponseEvent(type: string, responseJson: string, sequenceNumber: number): string {
  return `event: ${type}\ndata: {"type":${JSON.stringify(type)},"response":${responseJson},"sequence_number":${sequenceNumber}}\n\n`;
}

/** A named event with an id, for resumable streams; refuses CR/LF in `event` and `id`. */
export function sseEvent(event: string, id: string | number, value: unknown): string {
  const idText = String(id);
  if (/[\r\n]/.test(event) || /[\r\n]/.test(idText)) throw new Error('SSE event and id must not contain CR or LF');
  return `id: ${idText}\nevent: ${event}\ndata: ${JSON.stringify(value)}\n\n`;
}

/** A comment line: keeps proxies from closing an idle stream. */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

/** Headers of an SSE response. */
export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * Stands for a string value in an event encoded once as a template: its JSON text, `"\u0000"`,
 * occurs nowhere else in what we encode (our ids and names carry no NUL).
 */
export const SSE_HOLE = '\u0000';
const HOLE_JSON = JSON.stringify(SSE_HOLE);

/**
 * An encoded SSE event cut where {@link SSE_HOLE} stands: `head + JSON.stringify(value) + tail` is
 * then the same text as encoding the event with `value` in the hole, without walking the event
 * again. Null when the hole is not there exactly once (the caller encodes the event whole).
 */
export function sseTemplate(encoded: string): { head: string; tail: string } | null {
  const at = encoded.indexOf(HOLE_JSON);
  if (at < 0 || encoded.includes(HOLE_JSON, at + HOLE_JSON.length)) return null;
  return { head: encoded.slice(0, at), tail: encoded.slice(at + HOLE_JSON.length) };
}
