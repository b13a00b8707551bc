import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { charges, money } from './media-fixture.js';

const test = suite('images: geometry is checked before any spend');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(20);
});
test.after(() => server.close());

/** Every request here is refused: 422 naming `field`, no hold left, no ledger entry, no backend call. */
const INVALID: [Record<string, unknown>, string][] = [
  [{ size: '1000x1000' }, 'size'], // not multiples of 16
  [{ size: '1024x1000' }, 'size'],
  [{ size: '240x240' }, 'size'], // below 256
  [{ size: '128x1024' }, 'size'],
  [{ size: '4112x1024' }, 'size'], // above 4096
  [{ size: '8192x8192' }, 'size'],
  [{ size: '4096x512' }, 'size'], // 8:1, above 4:1
  [{ size: '256x1280' }, 'size'], // 5:1
  [{ size: '1024' }, 'size'],
  [{ size: '1024×1024' }, 'size'],
  [{ size: 'x' }, 'size'],
  [{ size: '-1024x1024' }, 'size'],
  [{ size: '0x0' }, 'size'],
  [{ size: '1024x1024', aspect_ratio: '16:9' }, 'aspect_ratio'],
  [{ size: '1024x1024', resolution: '2K' }, 'resolution'],
  [{ aspect_ratio: '16-9' }, 'aspect_ratio'],
  [{ aspect_ratio: '0:1' }, 'aspect_ratio'],
  [{ aspect_ratio: '9:1' }, 'aspect_ratio'],
  [{ aspect_ratio: '1:1', resolution: '8K' }, 'resolution'],
  [{ aspect_ratio: '1:1', resolution: '5000' }, 'resolution'],
  [{ aspect_ratio: '1:1', resolution: '128' }, 'resolution'],
  [{ aspect_ratio: '4:1', resolution: '512' }, 'resolution'], // 512x128: short side below 256
  [{ resolution: 'huge' }, 'resolution'],
];

test('every unsupported geometry is a 422 naming the field, with no hold, no charge and no backend call', async () => {
  const { images } = server.app.deps;
  const callsBefore = images.backendCalls;
  const before = await money(server, account.token);
  for (const [fields, field] of INVALID) {
    const res = await server.request('POST', '/v1/images/generations', {
      token: account.token,
      body: { prompt: 'geometry', ...fields },
    });
    assert.is(res.status, 422, `${JSON.stringify(fields)}: ${JSON.stringify(res.body)}`);
    assert.is(res.body.error.code, 'validation_error');
    assert.equal(res.body.detail[0].loc, ['body', field], JSON.stringify(fields));
    const estimate = await server.request('POST', '/v1/estimate', {
      body: { modality: 'image', prompt: 'geometry', ...fields },
    });
    assert.is(estimate.status, 422, `estimate ${JSON.stringify(fields)}`);
  }
  assert.is(images.backendCalls, callsBefore, 'no backend call');
  assert.equal(await money(server, account.token), before, 'no money moved or held');
  assert.equal(await charges(server, account.token), []);
});

test('invalid geometry on an edit (multipart and JSON) is refused the same way', async () => {
  const { images } = server.app.deps;
  const callsBefore = images.backendCalls;
  const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  for (const size of ['1000x1000', '64x64', '4096x256']) {
    const form = new FormData();
    form.append('prompt', 'edit geometry');
    form.append('size', size);
    form.append('image', new Blob([png], { type: 'image/png' }), 'in.png');
    const res = await fetch(`${server.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.token}` },
      body: form,
    });
    const body = (await res.json()) as { detail: { loc: string[] }[] };
    assert.is(res.status, 422, size);
    assert.equal(body.detail[0]!.loc, ['body', 'size']);
    const json = await server.request('POST', '/v1/images/edits', {
      token: account.token,
      body: {
        prompt: 'edit geometry',
        size,
        input_references: [{ image_url: `data:image/png;base64,${png.toString('base64')}` }],
      },
    });
    assert.is(json.status, 422, `json ${size}`);
  }
  assert.is(images.backendCalls, callsBefore);
  assert.equal(await charges(server, account.token), []);
});

test('the edges of the supported set are served with exactly those pixels', async () => {
  const client = server.openai(account.token);
  for (const size of ['256x256', '256x1024', '1024x256', '4096x1024', '272x1088'] as const) {
    const result = await client.images.generate({ prompt: 'edge', size: size, quality: 'low' });
    const meta = await sharp(Buffer.from(result.data![0]!.b64_json!, 'base64')).metadata();
    assert.is(`${meta.width}x${meta.height}`, size);
  }
});

test.run();
