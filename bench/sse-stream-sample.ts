// A chat completion stream as an OpenAI-compatible upstream sends it, cut into the awkward pieces a
// network hands over, for the SSE decode micro benchmark.

const CHUNKS = 20;
const created = 1_700_000_000;
const chunk = (content: string | null, finish: string | null, usage?: object) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created,
    model: 'bench',
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
    ...(usage && { usage }),
  })}\n\n`;

/** The 20-chunk stream (plus the finishing chunk with usage and `[DONE]`) as one text. */
const SSE_STREAM_TEXT = [
  // Words of 1 to 4 UTF-8 bytes per character, so some cuts fall inside a character.
  ...Array.from({ length: CHUNKS }, (_, i) => chunk(`wörd${i} 漢字 🚀 `, null)),
  chunk(null, 'stop', { prompt_tokens: 12, completion_tokens: CHUNKS, total_tokens: 12 + CHUNKS }),
  'data: [DONE]\n\n',
].join('');

/** Events in {@link SSE_STREAM_TEXT}. */
export const SSE_STREAM_EVENTS = CHUNKS + 2;

/** Cut sizes in bytes, cycled: cuts land inside `data:`, between the two line feeds and inside characters. */
const CUTS = [1, 7, 61, 2, 131, 13, 5, 97];

/** {@link SSE_STREAM_TEXT} as UTF-8 bytes cut at awkward places. */
export function awkwardSseChunks(): Uint8Array[] {
  const bytes = Buffer.from(SSE_STREAM_TEXT, 'utf8');
  const pieces: Uint8Array[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = CUTS[i % CUTS.length]!;
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return pieces;
}
