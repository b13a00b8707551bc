// What a 20-chunk stream's relay costs per stream in the parts issue 28's streaming lever changed,
// the old way beside the new in one process (tinybench p50, load-independent enough to compare):
// reading the upstream's chunks (JSON.parse each, or the template learned from them), encoding
// chat chunks and Responses text deltas (an object stringified per delta, or one template spliced).
// Run: npx tsx bench/proxy/stream-encoding-micro.ts
import { Bench } from 'tinybench';
import { UpstreamAnswer } from '../../backends/openai-compatible/upstream-answer.js';
import { UpstreamChunkTemplate } from '../../backends/openai-compatible/upstream-chunk-template.js';
import { plainChunk } from '../../backends/openai-compatible/upstream-plain-shapes.js';
import type { UpstreamChunk } from '../../backends/openai-compatible/upstream-schemas.js';
import type { ChatBackendEvent } from '../../backends/chat-backend.js';
import { chunkObject, deltaChoice, type CompletionHeader } from '../../protocols/chat-response.js';
import { outputTextDelta } from '../../protocols/responses.js';
import { SSE_HOLE, sseData, sseNamed, sseTemplate } from '../../protocols/sse.js';
import { microResults } from '../micro.js';

const CHUNKS = 20;
// The instant upstream's stream (bench/proxy/instant-upstream-main.ts), as data lines.
const upstreamChunk = (content: string | null, finish: string | null, usage?: object) =>
  JSON.stringify({
    id: 'chatcmpl-instant',
    object: 'chat.completion.chunk',
    created: 1764300000,
    model: 'instant',
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
    ...(usage && { usage }),
  });
const DATAS = [
  ...Array.from({ length: CHUNKS }, (_, i) => upstreamChunk(`word${i} `, null)),
  upstreamChunk(null, 'stop', { prompt_tokens: 12, completion_tokens: CHUNKS }),
];
const TEXTS = Array.from({ length: CHUNKS }, (_, i) => `word${i} `);
const header: CompletionHeader = {
  id: 'chatcmpl-0123456789abcdef01234567',
  created: 1764300000,
  model: 'pro-1',
  legacyFunctions: false,
};

let sink = 0;
const bench = new Bench({ time: Number(process.env.MICRO_MS ?? 1500) });
const groups: Record<string, { name: string; baseline: boolean }> = {};
const add = (group: string, name: string, baseline: boolean, fn: () => void) => {
  groups[name] = { name: group, baseline };
  bench.add(name, fn);
};

add('upstream chunks read, per 21-chunk stream', 'JSON.parse per chunk (before)', true, () => {
  const answer = new UpstreamAnswer();
  const out: ChatBackendEvent[] = [];
  for (const data of DATAS) answer.applyChunk(plainChunk(JSON.parse(data))!, out);
  sink += out.length;
});
add('upstream chunks read, per 21-chunk stream', 'template learned from the stream (after)', false, () => {
  const answer = new UpstreamAnswer();
  const out: ChatBackendEvent[] = [];
  const template = new UpstreamChunkTemplate();
  for (const data of DATAS) {
    let chunk: UpstreamChunk | null = template.match(data);
    if (!chunk) {
      chunk = plainChunk(JSON.parse(data))!;
      template.learn(data, chunk);
    }
    answer.applyChunk(chunk, out);
  }
  sink += out.length;
});
add('chat text chunks encoded, per 20 deltas', 'chunk object stringified (before)', true, () => {
  for (const text of TEXTS)
    sink += sseData(chunkObject(header, [deltaChoice(0, { content: text })], { usage: null })).length;
});
add('chat text chunks encoded, per 20 deltas', 'spliced into the chunk encoded once (after)', false, () => {
  const t = sseTemplate(sseData(chunkObject(header, [deltaChoice(0, { content: SSE_HOLE })], { usage: null })))!;
  for (const text of TEXTS) sink += (t.head + JSON.stringify(text) + t.tail).length;
});
add('Responses text deltas encoded, per 20 deltas', 'event object stringified (before)', true, () => {
  let seq = 4;
  for (const text of TEXTS)
    sink += sseNamed('response.output_text.delta', {
      ...outputTextDelta('msg_0123456789abcdef01234567', 0, text),
      sequence_number: seq++,
    }).length;
});
add('Responses text deltas encoded, per 20 deltas', 'spliced into the event encoded once (after)', false, () => {
  const t = sseTemplate(
    sseNamed('response.output_text.delta', outputTextDelta('msg_0123456789abcdef01234567', 0, SSE_HOLE)),
  )!;
  const tail = t.tail.slice(0, -3);
  let seq = 4;
  for (const text of TEXTS) sink += `${t.head}${JSON.stringify(text)}${tail},"sequence_number":${seq++}}\n\n`.length;
});

await bench.run();
for (const row of microResults(bench, groups))
  process.stdout.write(`${row.group} | ${row.name} | p50 ${row.p50Us} µs | ${row.opsPerSecond} ops/s\n`);
if (sink === 0) process.stdout.write('nothing measured\n');
