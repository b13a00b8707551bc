import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FileTextSource } from '../backends/file-text-source.js';
import { countTokens, partTokens } from '../protocols/tokens.js';
import { createPartResolverOptions, type PartResolverOptions } from '../actors/chat/parts/part-context.js';
import { createMediaAnalysisBackends } from '../backends/create-media-analysis.js';
import { resolveParts } from '../actors/chat/parts/resolve-parts.js';
import type { ChatMessage, ContentPart } from '../protocols/chat.js';
import { ApiError } from '../protocols/errors.js';
import { loadConfig } from '../runtime/config.js';
import { dataUrl, gif, jpeg, mp4, png, wav, webp } from './media-fixtures.js';

const test = suite('chat content parts: non-text parts become text before the backend runs');

const MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 200;

/** Resolver options from configuration, as the server builds them (private fetches allowed unless said). */
function options(env: Record<string, string> = {}, overrides: Partial<PartResolverOptions> = {}): PartResolverOptions {
  const config = loadConfig({
    SVC_FETCH_MAX_BYTES: String(MAX_BYTES),
    SVC_FETCH_TIMEOUT_MS: String(TIMEOUT_MS),
    SVC_FETCH_ALLOW_PRIVATE: 'true',
    ...env,
  });
  return createPartResolverOptions(config, createMediaAnalysisBackends(), overrides);
}

const open = options();
const guarded = options({ SVC_FETCH_ALLOW_PRIVATE: 'false' });

function context(resolver: PartResolverOptions = open, signal = new AbortController().signal) {
  return { accountId: 'acct_test', signal, options: resolver };
}

function user(...content: ContentPart[]): ChatMessage {
  return { role: 'user', content };
}

const image = (url: string, detail?: 'low' | 'high'): ContentPart => ({
  type: 'image_url',
  image_url: detail ? { url, detail } : { url },
});

async function textOf(part: ContentPart, resolver = open): Promise<string> {
  const { messages } = await resolveParts([user(part)], context(resolver));
  const resolved = (messages[0]!.content as ContentPart[])[0]!;
  assert.is(resolved.type, 'text');
  return (resolved as { text: string }).text;
}

async function refusal(part: ContentPart, resolver = open): Promise<ApiError> {
  try {
    await resolveParts(
      [{ role: 'system', content: 'Be brief.' }, user({ type: 'text', text: 'look' }, part)],
      context(resolver),
    );
  } catch (err) {
    assert.instance(err, ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

// A local media server: images, a 404, a page that never answers, an endless body, plain text, a redirect.
let server: Server;
let base: string;
const endless = { written: 0, closed: null as Promise<void> | null };
const hanging: ServerResponse[] = [];
/** Called when a request to /slow.png has arrived (and hangs). */
let onHang: (() => void) | null = null;

function pump(res: ServerResponse): void {
  const chunk = Buffer.alloc(16 * 1024, 0x41);
  while (!res.destroyed) {
    endless.written += chunk.length;
    if (!res.write(chunk)) return void res.once('drain', () => pump(res));
  }
}

test.before(async () => {
  server = createServer((req, res) => {
    switch (req.url) {
      case '/cat.png':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(png(320, 200));
      case '/clip.mp4':
        return void res.writeHead(200, { 'content-type': 'video/mp4' }).end(mp4(1920, 1080, 3));
      case '/moved':
        return void res.writeHead(302, { location: '/cat.png' }).end();
      case '/notes.txt':
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end('just some text');
      case '/slow.png':
        hanging.push(res); // never answers
        return void onHang?.();
      case '/endless.png':
        endless.closed = new Promise((resolve) => res.once('close', resolve));
        res.writeHead(200, { 'content-type': 'image/png' });
        return pump(res);
      case '/declared-huge.png':
        return void res
          .writeHead(200, { 'content-type': 'image/png', 'content-length': String(MAX_BYTES * 100) })
          .write(png(4, 4));
      default:
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('PNG, JPEG, GIF and WebP data URLs are described with their format and dimensions', async () => {
  const cases: [string, Buffer, RegExp][] = [
    ['image/png', png(640, 480), /^\[image 640×480 PNG, \d+\.\d KB: landscape picture in .+\]$/],
    ['image/jpeg', jpeg(600, 800), /^\[image 600×800 JPEG, 41 B: portrait picture in .+\]$/],
    ['image/gif', gif(64, 64), /^\[image 64×64 GIF, 14 B: square picture in .+\]$/],
    ['image/webp', webp(1024, 768), /^\[image 1024×768 WebP, 30 B: landscape picture in .+\]$/],
  ];
  for (const [type, bytes, expected] of cases) assert.match(await textOf(image(dataUrl(type, bytes))), expected);
});

test('a remote image on a private address is fetched when the config allows it, redirects followed', async () => {
  assert.match(await textOf(image(`${base}/cat.png`)), /^\[image 320×200 PNG, \d+ B: /);
  assert.match(await textOf(image(`${base}/moved`)), /^\[image 320×200 PNG, /);
});

test('the same private URL is refused with 400 when private addresses are not allowed', async () => {
  const urls = [
    `${base}/cat.png`,
    base.replace('127.0.0.1', 'localhost') + '/cat.png',
    base.replace('127.0.0.1', '[::ffff:127.0.0.1]') + '/cat.png',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/x.png',
    'http://10.0.0.1/x.png',
  ];
  for (const url of urls) {
    const err = await refusal(image(url), guarded);
    assert.is(err.status, 400, url);
    assert.is(err.code, 'invalid_request');
    assert.is(err.param, 'messages[1].content[1].image_url.url');
    assert.match(err.message, /private/);
  }
});

test('a URL answering 404 is a 400 that says so', async () => {
  const err = await refusal(image(`${base}/missing.png`));
  assert.is(err.status, 400);
  assert.is(err.param, 'messages[1].content[1].image_url.url');
  assert.match(err.message, /HTTP 404/);
});

test('a URL that never answers is a 400 once the time cap passes', async () => {
  const started = Date.now();
  const err = await refusal(image(`${base}/slow.png`));
  assert.is(err.status, 400);
  assert.match(err.message, new RegExp(`${TIMEOUT_MS} ms`));
  assert.ok(Date.now() - started < 5000, 'gave up near the time cap, not at some default');
});

test('a body past the byte cap is a 400 and the connection is cut mid-body', async () => {
  const err = await refusal(image(`${base}/endless.png`));
  assert.is(err.status, 400);
  assert.match(err.message, /larger than/);
  await endless.closed;
  assert.ok(endless.written < 64 * 1024 * 1024, `the server stopped writing after ${endless.written} bytes`);
});

test('a declared Content-Length past the byte cap is refused before reading', async () => {
  const err = await refusal(image(`${base}/declared-huge.png`));
  assert.is(err.status, 400);
  assert.match(err.message, /larger than/);
});

test('bad base64, unsupported schemes and unsupported data types are 400s naming the field', async () => {
  const cases = [
    'data:image/png;base64,@@@not-base64@@@',
    'ftp://example.com/cat.png',
    'file:///etc/passwd',
    'not a url',
    'data:image/svg+xml;base64,PHN2Zy8+',
    'data:image/png,rawbytes',
  ];
  for (const url of cases) {
    const err = await refusal(image(url));
    assert.is(err.status, 400, url);
    assert.is(err.param, 'messages[1].content[1].image_url.url', url);
  }
});

test('text is not an image: inline or served as text/plain, it is a 400', async () => {
  const inline = await refusal(image(dataUrl('image/png', Buffer.from('just some text, honestly'))));
  assert.is(inline.status, 400);
  assert.match(inline.message, /not a recognised image/);
  const served = await refusal(image(`${base}/notes.txt`));
  assert.is(served.status, 400);
  assert.match(served.message, /text\/plain/);
});

test('input_audio WAV becomes a transcript with its duration; unknown formats and bad base64 are 400s', async () => {
  const text = await textOf({
    type: 'input_audio',
    input_audio: { data: wav(3.2, 8000).toString('base64'), format: 'wav' },
  });
  assert.match(text, /^\[audio transcript, 3\.2 s: [A-Z][a-z ]+\.\]$/);
  const format = await refusal({
    type: 'input_audio',
    input_audio: { data: wav(1).toString('base64'), format: 'flac' },
  });
  assert.is(format.param, 'messages[1].content[1].input_audio.format');
  const data = await refusal({ type: 'input_audio', input_audio: { data: '***', format: 'wav' } });
  assert.is(data.param, 'messages[1].content[1].input_audio.data');
  const broken = await refusal({
    type: 'input_audio',
    input_audio: { data: Buffer.from('no header').toString('base64'), format: 'wav' },
  });
  assert.is(broken.status, 400);
});

test('a file_id with no stored file is a 404, as a foreign one would be', async () => {
  const err = await refusal({ type: 'file', file: { file_id: 'file-abc123' } });
  assert.is(err.status, 404);
  assert.is(err.code, 'not_found');
  assert.is(err.param, 'messages[1].content[1].file.file_id');
  assert.is(err.message, 'No file file-abc123.');
});

test('a stored file is read through the FileTextSource for the calling account', async () => {
  const asked: string[] = [];
  const files: FileTextSource = {
    extractedText: (accountId, fileId) => {
      asked.push(`${accountId}/${fileId}`);
      return Promise.resolve({ filename: 'report.txt', text: 'Quarterly numbers are up.' });
    },
  };
  const text = await textOf({ type: 'file', file: { file_id: 'file-1' } }, options({}, { files }));
  assert.is(text, '[file report.txt: Quarterly numbers are up.]');
  assert.equal(asked, ['acct_test/file-1']);
});

test('file_data text is included; binary file_data is a 400', async () => {
  const data = Buffer.from('name,score\nada,3\n').toString('base64');
  assert.is(
    await textOf({ type: 'file', file: { file_data: data, filename: 'scores.csv' } }),
    '[file scores.csv: name,score\nada,3\n]',
  );
  assert.is(
    await textOf({ type: 'file', file: { file_data: `data:text/plain;base64,${data}` } }),
    '[file attachment: name,score\nada,3\n]',
  );
  const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2, 0xff])]).toString('base64');
  const err = await refusal({ type: 'file', file: { file_data: pdf, filename: 'paper.pdf' } });
  assert.is(err.status, 400);
  assert.is(err.param, 'messages[1].content[1].file.file_data');
});

test('input_video data and url are described by container, size, frames and speech; file_id is a 404', async () => {
  const inline = await textOf({ type: 'input_video', input_video: { data: mp4(1280, 720, 4).toString('base64') } });
  assert.match(inline, /^\[video MP4 1280×720, 4\.0 s, \d+ B: frames 0\.0 s: .+; 2\.0 s: .+; speech: [A-Z].+\.\]$/);
  assert.match(
    await textOf({ type: 'input_video', input_video: { url: `${base}/clip.mp4` } }),
    /^\[video MP4 1920×1080, 3\.0 s, /,
  );
  const missing = await refusal({ type: 'input_video', input_video: { file_id: 'file-vid' } });
  assert.is(missing.status, 404);
  assert.is(missing.param, 'messages[1].content[1].input_video.file_id');
  const none = await refusal({ type: 'input_video', input_video: {} });
  assert.is(none.param, 'messages[1].content[1].input_video');
  const notVideo = await refusal({
    type: 'input_video',
    input_video: { data: Buffer.from('plain words').toString('base64') },
  });
  assert.is(notVideo.param, 'messages[1].content[1].input_video.data');
});

test('added prompt tokens are the parts surcharges; added completion tokens those of the generated descriptions', async () => {
  const parts: ContentPart[] = [
    image(dataUrl('image/png', png(10, 10)), 'low'),
    image(dataUrl('image/jpeg', jpeg(10, 10))),
    { type: 'input_audio', input_audio: { data: wav(1).toString('base64'), format: 'wav' } },
    { type: 'file', file: { file_data: Buffer.from('hello file').toString('base64') } },
    { type: 'input_video', input_video: { data: mp4(2, 2, 2).toString('base64') } },
  ];
  const messages: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    user({ type: 'text', text: 'see these' }, ...parts.slice(0, 2)),
    user(...parts.slice(2)),
  ];
  const { messages: out, added } = await resolveParts(messages, context());
  assert.is(
    added.promptTokens,
    parts.reduce((sum, part) => sum + partTokens(part), 0),
  );
  const texts = out
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .map((p) => (p as { text: string }).text);
  const generated = texts.filter((text) => /^\[(image|audio|video) /.test(text));
  assert.is(generated.length, 4);
  assert.is(
    added.completionTokens,
    generated.reduce((sum, text) => sum + countTokens(text), 0),
  );
  assert.is(out[0], messages[0], 'a string message is the same object');
  assert.is(
    (out[1]!.content as ContentPart[])[0],
    (messages[1]!.content as ContentPart[])[0],
    'text parts are kept as they are',
  );
  assert.ok(out.every((m) => (Array.isArray(m.content) ? m.content.every((p) => p.type === 'text') : true)));
  assert.is((messages[1]!.content as ContentPart[])[1]!.type, 'image_url', 'the input is not changed');
});

test('a text-only conversation comes back as the very same array, with nothing added', async () => {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'sys' },
    user({ type: 'text', text: 'hi' }),
    { role: 'assistant', content: null },
  ];
  const resolved = await resolveParts(messages, context());
  assert.is(resolved.messages, messages);
  assert.equal(resolved.added, { promptTokens: 0, completionTokens: 0 });
});

test('a client that leaves stops resolution with its abort, not a 400', async () => {
  const controller = new AbortController();
  const arrived = new Promise<void>((resolve) => (onHang = resolve));
  const pending = resolveParts(
    [user(image(`${base}/slow.png`))],
    context(options({ SVC_FETCH_TIMEOUT_MS: '10000' }), controller.signal),
  );
  // The client leaves while the fetch is in flight (the server has the request and never answers).
  await arrived;
  controller.abort();
  try {
    await pending;
    assert.unreachable('expected the abort');
  } catch (err) {
    assert.not.instance(err, ApiError);
    assert.is((err as Error).name, 'AbortError');
  }
});

test.run();
