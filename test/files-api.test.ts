import { createHash } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { png } from './media-fixtures.js';
import { makePdf } from './pdf-fixture.js';

let server: TestServer;

interface FileObject {
  id: string;
  object: string;
  bytes: number;
  created_at: number;
  filename: string;
  purpose: string;
  status: string;
  status_details: string | null;
  sha256: string;
  content_type: string;
  extraction: { status: string; kind?: string; chars?: number; truncated?: boolean; pages?: number; reason?: string };
}

interface SearchHit {
  object: string;
  file_id: string;
  filename: string;
  score: number;
  snippet: string;
  matches: { start: number; end: number }[];
  start: number;
  end: number;
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Uploads `content` as `filename` through the SDK (multipart), returning our full file object. */
async function upload(
  account: TestAccount,
  filename: string,
  content: Buffer | string,
  purpose: OpenAI.FilePurpose = 'assistants',
): Promise<FileObject> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const created = await server.openai(account.token).files.create({ file: await toFile(bytes, filename), purpose });
  return created as unknown as FileObject;
}

/** POST /v1/files as JSON; fails the test unless 200. */
async function uploadJson(account: TestAccount, body: Record<string, unknown>): Promise<FileObject> {
  const res = await server.request('POST', '/v1/files', { token: account.token, body });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body as FileObject;
}

/** POST /v1/files/search; fails the test unless 200. */
async function search(account: TestAccount, body: Record<string, unknown>): Promise<SearchHit[]> {
  const res = await server.request('POST', '/v1/files/search', { token: account.token, body });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.object, 'list');
  assert.is(res.body.query, body.query);
  return res.body.data as SearchHit[];
}

async function download(account: TestAccount, id: string) {
  const res = await fetch(`${server.url}/v1/files/${id}/content`, {
    headers: { authorization: `Bearer ${account.token}` },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Every hit's matches point at a word of the snippet equal (case-insensitively) to one of `words`. */
function assertMatchesPointAt(hit: SearchHit, words: string[]): void {
  assert.ok(hit.matches.length > 0, `hit has matches: ${JSON.stringify(hit)}`);
  for (const match of hit.matches) {
    assert.ok(match.start >= 0 && match.end <= hit.snippet.length && match.start < match.end, JSON.stringify(match));
    const matched = hit.snippet.slice(match.start, match.end).normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
    assert.ok(words.includes(matched), `"${matched}" is one of ${words.join(', ')} in ${JSON.stringify(hit.snippet)}`);
  }
}

const test = suite('files api: upload, list, read, download, delete and search stored files');

test.before(async () => {
  server = await startServer();
});

test.after(async () => {
  await server.close();
});

test('files.create sends multipart and returns a processed file with checksum, type and extracted text', async () => {
  const account = await server.account();
  const text = 'Meeting notes: the quarterly plan is approved.\n';
  const before = Math.floor(Date.now() / 1000);
  const file = await upload(account, 'notes.txt', text);
  assert.match(file.id, /^file-[A-Za-z0-9]{24}$/);
  assert.is(file.object, 'file');
  assert.is(file.bytes, Buffer.byteLength(text));
  assert.is(file.filename, 'notes.txt');
  assert.is(file.purpose, 'assistants');
  assert.is(file.status, 'processed');
  assert.is(file.status_details, null);
  assert.is(file.sha256, sha256(text));
  assert.is(file.content_type, 'text/plain; charset=utf-8');
  assert.is(file.extraction.status, 'extracted');
  assert.is(file.extraction.kind, 'text');
  assert.is(file.extraction.chars, text.length);
  assert.is(file.extraction.truncated, false);
  assert.ok(file.created_at >= before && file.created_at <= Math.ceil(Date.now() / 1000), String(file.created_at));
});

test('files.retrieve returns the same object and files.list includes it', async () => {
  const account = await server.account();
  const client = server.openai(account.token);
  const file = await upload(account, 'readme.md', '# Title\n\nSome words.');
  const retrieved = (await client.files.retrieve(file.id)) as unknown as FileObject;
  assert.equal(retrieved, file);
  const page = await client.files.list();
  assert.equal(
    page.data.map((f) => f.id),
    [file.id],
  );
  assert.is((page.data[0] as unknown as FileObject).extraction.kind, 'markdown');
});

test('the SDK auto-paginates five files two at a time, newest first, and asc reverses the order', async () => {
  const account = await server.account();
  const client = server.openai(account.token);
  const created: string[] = [];
  for (let i = 0; i < 5; i++) created.push((await upload(account, `page-${i}.txt`, `file number ${i}`)).id);

  const seen: string[] = [];
  for await (const file of client.files.list({ limit: 2 })) seen.push(file.id);
  assert.equal(seen, [...created].reverse());

  const ascending: string[] = [];
  for await (const file of client.files.list({ limit: 2, order: 'asc' })) ascending.push(file.id);
  assert.equal(ascending, created);

  const first = await server.request('GET', '/v1/files?limit=2', { token: account.token });
  assert.is(first.status, 200);
  assert.is(first.body.object, 'list');
  assert.is(first.body.has_more, true);
  assert.is(first.body.first_id, created[4]);
  assert.is(first.body.last_id, created[3]);
  const last = await server.request('GET', `/v1/files?limit=2&after=${created[1]}`, { token: account.token });
  assert.equal(
    last.body.data.map((f: FileObject) => f.id),
    [created[0]],
  );
  assert.is(last.body.has_more, false);
});

test('listing filters by purpose, and an empty page has null cursors', async () => {
  const account = await server.account();
  const vision = await upload(account, 'a.txt', 'for vision', 'vision');
  await upload(account, 'b.txt', 'for assistants');
  const res = await server.request('GET', '/v1/files?purpose=vision', { token: account.token });
  assert.is(res.status, 200);
  assert.equal(
    res.body.data.map((f: FileObject) => f.id),
    [vision.id],
  );
  const none = await server.request('GET', '/v1/files?purpose=batch', { token: account.token });
  assert.equal(none.body, { object: 'list', data: [], first_id: null, last_id: null, has_more: false });
});

test('content returns the exact bytes of a binary holding all 256 byte values, with length and checksum headers', async () => {
  const account = await server.account();
  const bytes = Buffer.alloc(256 * 40);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  const file = await upload(account, 'blob.bin', bytes);
  assert.is(file.bytes, bytes.length);
  assert.is(file.sha256, sha256(bytes));
  assert.is(file.content_type, 'application/octet-stream');
  assert.is(file.extraction.status, 'unsupported');

  const sdk = await server.openai(account.token).files.content(file.id);
  assert.ok(Buffer.from(await sdk.arrayBuffer()).equals(bytes), 'the SDK gets the same bytes');
  const raw = await download(account, file.id);
  assert.is(raw.status, 200);
  assert.ok(raw.bytes.equals(bytes), 'fetch gets the same bytes');
  assert.is(raw.headers.get('content-type'), 'application/octet-stream');
  assert.is(raw.headers.get('content-length'), String(bytes.length));
  assert.is(raw.headers.get('x-content-sha256'), sha256(bytes));
  assert.match(raw.headers.get('content-disposition') ?? '', /filename\*=UTF-8''blob\.bin/);
  assert.is(new Set(bytes).size, 256, 'every byte value was sent');
});

test('files.delete answers deleted: true, then retrieve is a NotFoundError and content a 404', async () => {
  const account = await server.account();
  const client = server.openai(account.token);
  const file = await upload(account, 'gone.txt', 'ephemeral wombat');
  const deleted = await client.files.delete(file.id);
  assert.equal(deleted, { id: file.id, object: 'file', deleted: true });
  try {
    await client.files.retrieve(file.id);
    assert.unreachable('retrieve of a deleted file must fail');
  } catch (err) {
    assert.instance(err, OpenAI.NotFoundError);
    assert.is((err as InstanceType<typeof OpenAI.NotFoundError>).code, 'not_found');
  }
  const content = await server.request('GET', `/v1/files/${file.id}/content`, { token: account.token });
  assert.is(content.status, 404);
  assert.is(content.body.error.code, 'not_found');
  assert.equal(await search(account, { query: 'wombat' }), []);
  const list = await server.request('GET', '/v1/files', { token: account.token });
  assert.equal(list.body.data, []);
});

test('JSON uploads take bare base64 and data: URLs, and default the purpose to assistants', async () => {
  const account = await server.account();
  const text = 'name,score\nada,3\ngrace,5\n';
  const bare = await uploadJson(account, { filename: 'scores.csv', file_data: Buffer.from(text).toString('base64') });
  assert.is(bare.purpose, 'assistants');
  assert.is(bare.bytes, text.length);
  assert.is(bare.sha256, sha256(text));
  const image = png(3, 2);
  const url = await uploadJson(account, {
    filename: 'pixel.png',
    file_data: `data:image/png;base64,${image.toString('base64')}`,
    purpose: 'vision',
  });
  assert.is(url.purpose, 'vision');
  assert.is(url.bytes, image.length);
  assert.is(url.content_type, 'image/png');
  assert.ok((await download(account, url.id)).bytes.equals(image));
  assert.ok((await download(account, bare.id)).bytes.equals(Buffer.from(text)));
});

test('file names keep their last path segment and non-ASCII characters, and downloads name them', async () => {
  const account = await server.account();
  const nested = await uploadJson(account, {
    filename: 'reports/2024/q1.txt',
    file_data: Buffer.from('q1').toString('base64'),
  });
  assert.is(nested.filename, 'q1.txt');
  const windows = await uploadJson(account, {
    filename: 'C:\\Users\\ada\\notes.txt',
    file_data: Buffer.from('win').toString('base64'),
  });
  assert.is(windows.filename, 'notes.txt');
  const accented = await upload(account, 'résumé café 日本.txt', 'accented name');
  assert.is(accented.filename, 'résumé café 日本.txt');
  const disposition = (await download(account, accented.id)).headers.get('content-disposition') ?? '';
  assert.is(decodeURIComponent(disposition.split("UTF-8''")[1] ?? ''), 'résumé café 日本.txt');
});

test('a PDF whose text cannot be extracted is still stored, with the reason in status_details', async () => {
  const account = await server.account();
  const locked = await upload(account, 'locked.pdf', makePdf([['secret']], { encrypted: true }));
  assert.is(locked.status, 'processed');
  assert.is(locked.extraction.status, 'failed');
  assert.type(locked.extraction.reason, 'string');
  assert.match(locked.status_details ?? '', /^text extraction failed: /);
  const corrupt = Buffer.from('%PDF-1.4\nthis is not a real PDF body\n');
  const broken = await upload(account, 'broken.pdf', corrupt);
  assert.is(broken.extraction.status, 'failed');
  assert.ok((await download(account, broken.id)).bytes.equals(corrupt), 'the bytes are kept as sent');
  assert.equal(await search(account, { query: 'secret' }), []);
});

test('content types are sniffed: PNG magic whatever the name, .csv as text/csv, PDF magic', async () => {
  const account = await server.account();
  const image = await upload(account, 'picture.dat', png(4, 4));
  assert.is(image.content_type, 'image/png');
  assert.is(image.extraction.status, 'unsupported');
  assert.is((await download(account, image.id)).headers.get('content-type'), 'image/png');
  const csv = await upload(account, 'table.csv', 'a,b\n1,2\n');
  assert.is(csv.content_type, 'text/csv; charset=utf-8');
  assert.is((await download(account, csv.id)).headers.get('content-type'), 'text/csv; charset=utf-8');
  const pdf = await upload(account, 'no-extension', makePdf([['hello']]));
  assert.is(pdf.content_type, 'application/pdf');
  assert.is(pdf.extraction.kind, 'pdf');
});

test('a two-page PDF is extracted and a word from page two is found by search', async () => {
  const account = await server.account();
  const pdf = makePdf([['Introduction to the report'], ['Appendix: the narwhal census', 'counted in spring']]);
  const file = await upload(account, 'report.pdf', pdf);
  assert.is(file.extraction.status, 'extracted');
  assert.is(file.extraction.kind, 'pdf');
  assert.is(file.extraction.pages, 2);
  const hits = await search(account, { query: 'narwhal' });
  assert.is(hits.length, 1);
  assert.is(hits[0]!.file_id, file.id);
  assert.is(hits[0]!.filename, 'report.pdf');
  assert.is(hits[0]!.object, 'file.search_hit');
  assert.match(hits[0]!.snippet, /narwhal census/);
  assertMatchesPointAt(hits[0]!, ['narwhal']);
});

test('a CSV is extracted as csv and its cells are searchable', async () => {
  const account = await server.account();
  const file = await upload(account, 'inventory.csv', 'item,count\nmarmalade,12\nteapot,3\n');
  assert.is(file.extraction.kind, 'csv');
  const hits = await search(account, { query: 'teapot' });
  assert.is(hits.length, 1);
  assert.is(hits[0]!.file_id, file.id);
  assert.match(hits[0]!.snippet, /teapot,3/);
});

test('a file naming the term many times ranks above one naming it once', async () => {
  const account = await server.account();
  const once = await upload(
    account,
    'once.txt',
    'A report about budgets, travel and one capybara in the garden of the office.',
  );
  const often = await upload(
    account,
    'often.txt',
    'capybara capybara: the capybara sat with another capybara near a capybara pond.',
  );
  const hits = await search(account, { query: 'capybara' });
  const files = [...new Set(hits.map((hit) => hit.file_id))];
  assert.equal(files, [often.id, once.id]);
  const score = (id: string) => hits.find((hit) => hit.file_id === id)!.score;
  assert.ok(score(often.id) > score(once.id), `${score(often.id)} > ${score(once.id)}`);
});

test('search ignores case and accents on both sides', async () => {
  const account = await server.account();
  const file = await upload(account, 'menu.txt', 'Today: Café Crème and a slice of Tarte Tatin.');
  for (const query of ['cafe creme', 'CAFÉ', 'crème', 'CREME']) {
    const hits = await search(account, { query });
    assert.is(hits.length, 1, query);
    assert.is(hits[0]!.file_id, file.id, query);
    assertMatchesPointAt(hits[0]!, ['cafe', 'creme']);
  }
  const stored = await upload(account, 'plain.txt', 'resume of the naive cafe owner');
  const hits = await search(account, { query: 'Résumé NAÏVE' });
  assert.equal(
    hits.map((hit) => hit.file_id),
    [stored.id],
  );
});

test('a quoted phrase matches only its words in a row; unquoted, the words match anywhere', async () => {
  const account = await server.account();
  const together = await upload(account, 'together.txt', 'In the story the red fox jumps over the fence.');
  const apart = await upload(account, 'apart.txt', 'A red barn, and later a fox in the field.');
  const phrase = await search(account, { query: '"red fox"' });
  assert.equal([...new Set(phrase.map((hit) => hit.file_id))], [together.id]);
  assert.match(phrase[0]!.snippet, /red fox/);
  const loose = await search(account, { query: 'red fox' });
  assert.equal(new Set(loose.map((hit) => hit.file_id)), new Set([together.id, apart.id]));
  assert.equal(await search(account, { query: '"fox red"' }), []);
  // A phrase is required; free words beside it only rank.
  const mixed = await search(account, { query: '"red fox" barn' });
  assert.equal([...new Set(mixed.map((hit) => hit.file_id))], [together.id]);
});

test('snippets contain the match with context, and match offsets point at the matched words', async () => {
  const account = await server.account();
  const words = Array.from({ length: 200 }, (_, i) => `word${i}`);
  words[120] = 'Pangolin';
  const text = words.join(' ');
  const file = await upload(account, 'long.txt', text);
  const [hit, ...rest] = await search(account, { query: 'pangolin' });
  assert.is(rest.length, 0);
  assert.ok(hit);
  assert.ok(hit.snippet.includes('Pangolin'));
  assert.ok(hit.snippet.includes('word119') && hit.snippet.includes('word121'), 'context on both sides');
  assert.ok(hit.snippet.length < text.length, 'a passage, not the whole file');
  assert.is(
    `…${text.slice(hit.start, hit.end)}…`,
    hit.snippet,
    'start and end locate the passage in the text; ellipses mark the cuts',
  );
  assertMatchesPointAt(hit, ['pangolin']);
  assert.is(hit.file_id, file.id);
  assert.type(hit.score, 'number');
});

test('file_id limits search to one file and max_hits caps the hits', async () => {
  const account = await server.account();
  const files: FileObject[] = [];
  for (let i = 0; i < 4; i++)
    files.push(await upload(account, `lemur-${i}.txt`, `Field note ${i}: a lemur was seen at dawn.`));
  const all = await search(account, { query: 'lemur' });
  assert.is(new Set(all.map((hit) => hit.file_id)).size, 4);
  const one = await search(account, { query: 'lemur', file_id: files[2]!.id });
  assert.ok(one.length >= 1);
  assert.ok(one.every((hit) => hit.file_id === files[2]!.id));
  assert.is((await search(account, { query: 'lemur', max_hits: 2 })).length, 2);
  assert.is((await search(account, { query: 'lemur', max_hits: 1 })).length, 1);

  const many = Array.from(
    { length: 40 },
    (_, i) => `Paragraph ${i} mentions the lemur once and then talks at length about ${'other things '.repeat(20)}`,
  ).join('\n\n');
  const big = await upload(account, 'lemur-book.txt', many);
  const capped = await search(account, { query: 'lemur', file_id: big.id, max_hits: 2 });
  assert.is(capped.length, 2);
});

test('a word found only past the snippet scan limit is still a hit, shown with the file opening', async () => {
  const account = await server.account();
  const text = `Opening line of the log.\n${'filler words here '.repeat(60_000)}\nthe last word is quokka`;
  const file = await upload(account, 'long-log.txt', text);
  const hits = await search(account, { query: 'quokka' });
  assert.is(hits.length, 1);
  assert.is(hits[0]!.file_id, file.id);
  assert.ok(hits[0]!.snippet.startsWith('Opening line of the log.'), hits[0]!.snippet);
  assert.equal(hits[0]!.matches, []);
});

test('a deleted file disappears from search and its content route is a 404', async () => {
  const account = await server.account();
  const keep = await upload(account, 'keep.txt', 'the ocelot stays');
  const drop = await upload(account, 'drop.txt', 'the ocelot leaves');
  assert.is(new Set((await search(account, { query: 'ocelot' })).map((hit) => hit.file_id)).size, 2);
  const res = await server.request('DELETE', `/v1/files/${drop.id}`, { token: account.token });
  assert.equal(res.body, { id: drop.id, object: 'file', deleted: true });
  assert.equal(
    (await search(account, { query: 'ocelot' })).map((hit) => hit.file_id),
    [keep.id],
  );
  assert.is((await download(account, drop.id)).status, 404);
  const again = await server.request('DELETE', `/v1/files/${drop.id}`, { token: account.token });
  assert.is(again.status, 404);
  assert.is(again.body.error.code, 'not_found');
});

test('another account gets 404 for a file it does not own and never sees it in list or search', async () => {
  const owner = await server.account();
  const other = await server.account();
  const file = await upload(owner, 'secret.txt', 'The vault code mentions the armadillo.');
  await upload(other, 'mine.txt', 'My own armadillo notes.');
  for (const [method, path] of [
    ['GET', `/v1/files/${file.id}`],
    ['GET', `/v1/files/${file.id}/content`],
    ['DELETE', `/v1/files/${file.id}`],
  ] as const) {
    const res = await server.request(method, path, { token: other.token });
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.body.error.code, 'not_found');
  }
  const scoped = await server.request('POST', '/v1/files/search', {
    token: other.token,
    body: { query: 'armadillo', file_id: file.id },
  });
  assert.is(scoped.status, 404);
  assert.is(scoped.body.error.code, 'not_found');
  const theirs = await search(other, { query: 'armadillo vault' });
  assert.ok(theirs.length > 0);
  assert.ok(theirs.every((hit) => hit.file_id !== file.id));
  const list = await server.request('GET', '/v1/files', { token: other.token });
  assert.ok(list.body.data.every((f: FileObject) => f.id !== file.id));
  assert.is((await server.request('GET', `/v1/files?after=${file.id}`, { token: other.token })).status, 404);
  // Still there for its owner.
  assert.is((await server.request('GET', `/v1/files/${file.id}`, { token: owner.token })).status, 200);
});

test('a chat file part with a stored file_id reads its extracted text; a foreign file_id is a NotFoundError', async () => {
  const owner = await server.account();
  const other = await server.account();
  const file = await upload(owner, 'notes.txt', 'Zebra crossings need paint before winter arrives.');
  const client = server.openai(owner.token);
  const messages = (fileId: string): OpenAI.ChatCompletionMessageParam[] => [
    { role: 'user', content: [{ type: 'file', file: { file_id: fileId } }] },
  ];
  const completion = await client.chat.completions.create({
    model: 'pro-1',
    messages: messages(file.id),
    max_tokens: 64,
  });
  // The sim echoes the start of the last user message, which is now "[file notes.txt: Zebra crossings ...]".
  assert.match(completion.choices[0]!.message.content ?? '', /^On: file notes txt Zebra crossi ngs/);
  const short = await upload(owner, 'short.txt', 'Hi.');
  const small = await client.chat.completions.create({ model: 'pro-1', messages: messages(short.id), max_tokens: 64 });
  assert.ok(completion.usage!.prompt_tokens > small.usage!.prompt_tokens, 'the longer text costs more prompt tokens');

  try {
    await server
      .openai(other.token)
      .chat.completions.create({ model: 'pro-1', messages: messages(file.id), max_tokens: 64 });
    assert.unreachable('a foreign file must not be readable');
  } catch (err) {
    assert.instance(err, OpenAI.NotFoundError);
    assert.is((err as InstanceType<typeof OpenAI.NotFoundError>).code, 'not_found');
    assert.is((err as InstanceType<typeof OpenAI.NotFoundError>).param, 'messages[0].content[0].file.file_id');
  }
});

test.run();
