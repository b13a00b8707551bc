// An instant OpenAI-compatible upstream for the proxy scenario: plain node:http, a fixed chat
// completion for JSON requests and a fixed 20-chunk stream for `stream: true`, no work per request
// beyond reading the body. Prints `upstream listening on <port>`.
import { createServer } from 'node:http';

const CHUNKS = 20;
const created = Math.floor(Date.now() / 1000);
const completion = JSON.stringify({
  id: 'chatcmpl-instant',
  object: 'chat.completion',
  created,
  model: 'instant',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'The quick brown fox jumps over the lazy dog.' },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 },
});
const chunk = (content: string | null, finish: string | null, usage?: object) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-instant', object: 'chat.completion.chunk', created, model: 'instant', choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }], ...(usage && { usage }) })}\n\n`;
const stream = Buffer.from(
  [
    ...Array.from({ length: CHUNKS }, (_, i) => chunk(`word${i} `, null)),
    chunk(null, 'stop', { prompt_tokens: 12, completion_tokens: CHUNKS, total_tokens: 12 + CHUNKS }),
    'data: [DONE]\n\n',
  ].join(''),
);
const json = Buffer.from(completion);

const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (part: Buffer) => parts.push(part));
  req.on('end', () => {
    const body = Buffer.concat(parts).toString('utf8');
    if (body.includes('"stream":true')) {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'content-length': stream.length,
      });
      res.end(stream);
    } else {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': json.length });
      res.end(json);
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`upstream listening on ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
