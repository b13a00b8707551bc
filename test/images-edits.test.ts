import { toFile } from 'openai';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ImagesResponseSchema } from '../protocols/images.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { charges, micros } from './media-fixture.js';
import { assertWire } from './wire-check.js';

const test = suite('images: edits, multipart as the SDK sends it and JSON with references');
let server: TestServer;
let account: TestAccount;
let other: TestAccount;
let base: Buffer;

test.before(async () => {
  server = await startServer();
  account = await server.account(20);
  other = await server.account(5);
  base = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
});
test.after(() => server.close());

const raw = async (b64: string) =>
  sharp(Buffer.from(b64, 'base64')).ensureAlpha().raw().toBuffer({ resolveWithObject: true });

test('images.edit with one image: size auto keeps the input size; the result is charged', async () => {
  const result = ImagesResponseSchema.parse(
    await server
      .openai(account.token)
      .images.edit({ image: await toFile(base, 'in.png', { type: 'image/png' }), prompt: 'add a red balloon' }),
  );
  assert.is(result.size, '640x480');
  const meta = await sharp(Buffer.from(result.data[0]!.b64_json!, 'base64')).metadata();
  assert.equal([meta.format, meta.width, meta.height], ['png', 640, 480]);
  const [charge] = await charges(server, account.token);
  assert.is(micros(-charge!.amount_usd), micros(result.svc.price_usd));
  assert.ok(result.svc.price_usd > 0);
});

test('images.edit with a mask changes only where the mask is transparent', async () => {
  // Transparent top half (may change), opaque bottom half (kept).
  // Built from raw RGBA: a 'source' composite would clear the whole canvas, not just its own area.
  const rgba = Buffer.alloc(512 * 512 * 4);
  for (let i = 512 * 256; i < 512 * 512; i++) rgba[i * 4 + 3] = 255;
  const mask = await sharp(rgba, { raw: { width: 512, height: 512, channels: 4 } })
    .png()
    .toBuffer();
  const square = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const client = server.openai(account.token);
  const result = await client.images.edit({
    image: await toFile(square, 'in.png'),
    mask: await toFile(mask, 'mask.png'),
    prompt: 'many bright shapes everywhere',
    size: '512x512',
    seed: 3,
  } as never);
  const { data, info } = await raw((result as { data: { b64_json: string }[] }).data[0]!.b64_json);
  const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 3)];
  let bottomChanged = 0;
  let topChanged = 0;
  for (let y = 0; y < 512; y += 8) {
    for (let x = 0; x < 512; x += 8) {
      const differs = pixel(x, y).some((value, i) => Math.abs(value - [0x33, 0x66, 0x99][i]!) > 3);
      if (y >= 264 && differs) bottomChanged++;
      if (y < 248 && differs) topChanged++;
    }
  }
  assert.is(bottomChanged, 0, 'opaque mask pixels are kept');
  assert.ok(topChanged > 0, 'transparent mask pixels are painted');
});

test('several image[] parts: multi-reference edit; a part that is no image is a 422 naming it; none at all too', async () => {
  const client = server.openai(account.token);
  const red = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#cc2222' } })
    .jpeg()
    .toBuffer();
  const result = ImagesResponseSchema.parse(
    await client.images.edit({
      image: [await toFile(base, 'a.png'), await toFile(red, 'b.jpg')],
      prompt: 'combine them',
      size: '1024x768',
      output_format: 'webp',
    }),
  );
  const meta = await sharp(Buffer.from(result.data[0]!.b64_json!, 'base64')).metadata();
  assert.equal([meta.format, meta.width, meta.height], ['webp', 1024, 768]);

  const form = new FormData();
  form.append('prompt', 'x');
  form.append('image[]', new Blob([base]), 'a.png');
  form.append('image[]', new Blob([Buffer.from('not an image at all')]), 'b.png');
  const bad = await fetch(`${server.url}/v1/images/edits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: form,
  });
  assert.is(bad.status, 422);
  assert.equal(((await bad.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc, ['body', 'image', 1]);

  const none = new FormData();
  none.append('prompt', 'x');
  const missing = await fetch(`${server.url}/v1/images/edits`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}` },
    body: none,
  });
  assert.is(missing.status, 422);
  assert.equal(((await missing.json()) as { detail: { loc: unknown[]; type: string }[] }).detail[0]!.loc, [
    'body',
    'image',
  ]);
});

test("JSON edits take input_references as stored file ids or data URLs; another account's file is 404", async () => {
  const uploaded = await server.request('POST', '/v1/files', {
    token: account.token,
    body: { filename: 'ref.png', file_data: base.toString('base64'), purpose: 'vision' },
  });
  assert.is(uploaded.status, 200, JSON.stringify(uploaded.body));
  const fileId = uploaded.body.id as string;
  const edit = (token: string, body: Record<string, unknown>) =>
    server.request('POST', '/v1/images/edits', { token, body: { prompt: 'a small boat', size: '512x384', ...body } });
  const byFile = assertWire(
    ImagesResponseSchema,
    await edit(account.token, { input_references: [{ file_id: fileId }] }),
    200,
    'file id',
  );
  assert.is(byFile.size, '512x384');
  const byUrl = assertWire(
    ImagesResponseSchema,
    await edit(account.token, {
      input_references: [
        { image_url: `data:image/png;base64,${base.toString('base64')}` },
        { image_url: { url: `data:image/png;base64,${base.toString('base64')}` } },
      ],
      mask: { file_id: fileId },
    }),
    200,
    'data url',
  );
  assert.is(byUrl.data.length, 1);
  const foreign = await edit(other.token, { input_references: [{ file_id: fileId }] });
  assert.is(foreign.status, 404);
  const text = await server.request('POST', '/v1/files', {
    token: account.token,
    body: { filename: 'notes.txt', file_data: Buffer.from('hello').toString('base64') },
  });
  const notImage = await edit(account.token, { input_references: [{ file_id: text.body.id }] });
  assert.is(notImage.status, 422);
  assert.equal(notImage.body.detail[0].loc, ['body', 'input_references', 0, 'file_id']);
  const neither = await edit(account.token, { input_references: [{}] });
  assert.is(neither.status, 422);
  const empty = await edit(account.token, { input_references: [] });
  assert.is(empty.status, 422);
  const otherType = await server.request('POST', '/v1/images/edits', {
    token: account.token,
    raw: 'prompt=x',
    headers: { 'content-type': 'text/plain' },
  });
  assert.is(otherType.status, 415);
});

test('generations take input_references too (multi-reference generation)', async () => {
  const res = await server.request('POST', '/v1/images/generations', {
    token: account.token,
    body: {
      prompt: 'in this style',
      size: '256x256',
      input_references: [{ image_url: `data:image/png;base64,${base.toString('base64')}` }],
    },
  });
  const body = assertWire(ImagesResponseSchema, res, 200, 'references');
  assert.is(body.size, '256x256');
});

test.run();
