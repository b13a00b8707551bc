// The fixed events of a streamed response's text message, written as SSE text from their fields:
// each is the same bytes as `sseNamed(type, event)` for the event object the assembler would build
// (test/responses-sse-fields.test.ts holds them equal), with no object made or walked. The answer's
// text is encoded once for its three `done` events.

const stringify = JSON.stringify;

/** A message item's `response.output_item.added` then its empty part's `response.content_part.added`. */
export function sseMessageAdded(itemId: string, outputIndex: number, sequenceNumber: number): string {
  const id = stringify(itemId);
  return (
    `event: response.output_item.added\ndata: {"type":"response.output_item.added","output_index":${outputIndex}` +
    `,"item":{"id":${id},"type":"message","role":"assistant","status":"in_progress","content":[]}` +
    `,"sequence_number":${sequenceNumber}}\n\n` +
    `event: response.content_part.added\ndata: {"type":"response.content_part.added","item_id":${id}` +
    `,"output_index":${outputIndex},"content_index":0` +
    `,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]},"sequence_number":${sequenceNumber + 1}}\n\n`
  );
}

/**
 * A message item's end: `response.output_text.done`, `response.content_part.done` and
 * `response.output_item.done` (its one `output_text` part with `text`, the item with `status`).
 */
export function sseMessageDone(
  itemId: string,
  outputIndex: number,
  status: 'in_progress' | 'completed' | 'incomplete',
  text: string,
  sequenceNumber: number,
): string {
  const id = stringify(itemId);
  const textJson = stringify(text);
  const part = `{"type":"output_text","text":${textJson},"annotations":[],"logprobs":[]}`;
  return (
    `event: response.output_text.done\ndata: {"type":"response.output_text.done","item_id":${id}` +
    `,"output_index":${outputIndex},"content_index":0,"text":${textJson},"logprobs":[]` +
    `,"sequence_number":${sequenceNumber}}\n\n` +
    `event: response.content_part.done\ndata: {"type":"response.content_part.done","item_id":${id}` +
    `,"output_index":${outputIndex},"content_index":0,"part":${part},"sequence_number":${sequenceNumber + 1}}\n\n` +
    `event: response.output_item.done\ndata: {"type":"response.output_item.done","output_index":${outputIndex}` +
    `,"item":{"id":${id},"type":"message","role":"assistant","status":"${status}","content":[${part}]}` +
    `,"sequence_number":${sequenceNumber + 2}}\n\n`
  );
}

/**
 * A `response.output_text.delta` cut where its text goes: `head + JSON.stringify(delta) + tail +
 * sequenceNumber + '}\n\n'` is the event (its number comes last).
 */
export function sseTextDeltaTemplate(itemId: string, outputIndex: number): { head: string; tail: string } {
  return {
    head:
      `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":${stringify(itemId)}` +
      `,"output_index":${outputIndex},"content_index":0,"delta":`,
    tail: ',"logprobs":[],"sequence_number":',
  };
}
