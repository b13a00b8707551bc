import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { charges, micros, money, svcUpstreamEnv } from './media-fixture.js';

const test = suite('images: the openai-compatible backend passes through /images/generations and /images/edits');
let upstream: TestServer;
let upstreamAccount: TestAccount;
let gateway: TestServer;
let account: TestAccount;

test.before(async () => {
  upstream = await startServer();
  upstreamAccount = await upstream.account(20);
  gateway = await startServer(
    svcUpstreamEnv(upstream, upstreamAccount.token, { SVC_IMAGE_BACKEND: 'openai-compatible' }),
  );
  account = await gateway.account(20);
});
test.after(async () => {
  await gateway.close();
  await upstream.close();
});

test('images.generate through the gateway: the upstream makes it, the size and format hold, charged at the upstream rate', async () => {
  const result = await gateway
    .openai(account.token)
    .images.generate({ prompt: 'a windmill at dusk', size: '768x512', output_format: 'webp' });
  const meta = await sharp(Buffer.from(result.data![0]!.b64_json!, 'base64')).metadata();
  assert.equal([meta.format, meta.width, meta.height], ['webp', 768, 512]);
  const svc = (result as unknown as { svc: { backend: string; price_usd: number; our_cost_usd: number } }).svc;
  assert.is(svc.backend, 'openai-compatible');
  assert.is(micros(svc.price_usd), Math.ceil(micros(svc.our_cost_usd) * 1.25));
  assert.is((await charges(upstream, upstreamAccount.token)).length, 1, 'the upstream made (and billed) one image');
  assert.is(20_000_000 - (await money(gateway, account.token)).balance, micros(svc.price_usd));
});

test('images.edit (multipart) goes upstream as /images/edits with the reference', async () => {
  const reference = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer();
  const file = new File([reference], 'ref.png', { type: 'image/png' });
  const before = (await charges(upstream, upstreamAccount.token)).length;
  const result = await gateway.openai(account.token).images.edit({ image: file, prompt: 'add a moon' });
  const meta = await sharp(Buffer.from(result.data![0]!.b64_json!, 'base64')).metadata();
  assert.equal([meta.width, meta.height], [512, 512]);
  assert.is((await charges(upstream, upstreamAccount.token)).length, before + 1);
});

test('an upstream refusal (its account has no balance) is an explicit error here and charges nothing', async () => {
  const broke = await upstream.account(0);
  const refusing = await startServer(svcUpstreamEnv(upstream, broke.token, { SVC_IMAGE_BACKEND: 'openai-compatible' }));
  try {
    const payer = await refusing.account(5);
    const res = await refusing.request('POST', '/v1/images/generations', {
      token: payer.token,
      body: { prompt: 'refused', size: '512x512' },
    });
    assert.ok(res.status >= 400 && res.status !== 500, `status ${res.status}`);
    assert.ok(res.body.error.code, JSON.stringify(res.body));
    assert.equal(await money(refusing, payer.token), { balance: 5_000_000, held: 0 });
  } finally {
    await refusing.close();
  }
});

test.run();
