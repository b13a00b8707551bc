// What encoding one Responses stream's events costs in process, the old way beside the new
// (tinybench p50): the instant upstream's 20-delta answer through a ResponseAssembler, every event
// an object stringified (`response.created` / `.in_progress` sharing one stringify of the response
// object, deltas spliced into a template, as before issue 26's stream round) against the events
// written from their fields. Each stream's text is written to a Buffer as uWS does, so the cost of
// flattening the concatenated strings is counted. The final event is left out (before, it also made
// the response object with its svc and cost objects; after, it is the JSON text alone).
// Run: npx tsx bench/proxy/response-stream-micro.ts
import { Bench } from 'tinybench';
import { ResponseAssembler, type ResponseEmitter } from '../../actors/responses/response-assembler.js';
import type { ResponseHead } from '../../actors/responses/response-object.js';
import { sseTextDeltaTemplate } from '../../protocols/response-sse.js';
import { ResponseCreateRequestSchema, type ResponseStreamEvent } from '../../protocols/responses.js';
import { sseNamed, sseResponseEvent } from '../../protocols/sse.js';
import { SseResponseEmitter } from '../../http/response-sse-emitter.js';
import { SseTextCollector } from '../../test/sse-text-collector.js';
import { microResults } from '../micro.js';

const TEXTS = Array.from({ length: 20 }, (_, i) => `word${i} `);
const head: ResponseHead = {
  id: 'resp_01a22103073fjvPJSljzeCiCO5x7iB3T',
  createdAt: 1_795_850_176,
  model: 'pro-1',
  request: ResponseCreateRequestSchema.parse({
    model: 'pro-1',
    input: 'Proxy probe',
    max_output_tokens: 64,
    stream: true,
  }),
};

/** Before: objects, the response stringified once for created and in_progress, deltas from a template. */
class ObjectEmitter implements ResponseEmitter {
  text = '';
  private encoded: { response: object; json: string } | null = null;
  private deltas: { head: string; tail: string } | null = null;
  emit(event: ResponseStreamEvent): void {
    if (!('response' in event)) {
      this.text += sseNamed(event.type, event);
      return;
    }
    const json = event.response === this.encoded?.response ? this.encoded.json : JSON.stringify(event.response);
    this.encoded = { response: event.response, json };
    this.text += sseResponseEvent(event.type, json, event.sequence_number);
  }
  textDelta(itemId: string, outputIndex: number, delta: string, sequenceNumber: number): void {
    this.deltas ??= sseTextDeltaTemplate(itemId, outputIndex);
    this.text += `${this.deltas.head}${JSON.stringify(delta)}${this.deltas.tail}${sequenceNumber}}\n\n`;
  }
  ready(): null {
    return null;
  }
}

let sink = 0;
const stream = (emitter: ResponseEmitter, written: { text: string }) => {
  const assembler = new ResponseAssembler(head, emitter);
  for (const text of TEXTS) assembler.event({ type: 'delta', choice: 0, text });
  assembler.close('completed');
  sink += Buffer.from(written.text).length;
};
/** After: the SSE route's emitter, the events written from their fields. */
const routeStream = () => {
  const collector = new SseTextCollector();
  stream(new SseResponseEmitter(collector, null), collector);
};

const group = 'Responses stream events encoded and written to a Buffer, per 20-delta stream (no final event)';
const bench = new Bench({ time: Number(process.env.MICRO_MS ?? 1500) });
bench.add('event objects stringified (before)', () => {
  const objects = new ObjectEmitter();
  stream(objects, objects);
});
bench.add('written from their fields (after)', routeStream);
await bench.run();
const groups = {
  'event objects stringified (before)': { name: group, baseline: true },
  'written from their fields (after)': { name: group, baseline: false },
};
for (const row of microResults(bench, groups))
  process.stdout.write(`${row.group} | ${row.name} | p50 ${row.p50Us} µs | ${row.opsPerSecond} ops/s\n`);
if (sink === 0) process.stdout.write('nothing measured\n');
