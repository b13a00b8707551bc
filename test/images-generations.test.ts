import type OpenAI from 'openai';
import sharp from 'sharp';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ImagesResponseSchema } from '../protocols/images.js';
import { MediaEstimateObjectSchema, PricingObjectSchema } from '../protocols/pricing.js';
import { SimulatedClock } from '../runtime/clock.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { charges, micros, money } from './media-fixture.js';
import { assertWire } from './wire-check.js';

const test = suite('images: generations with the SDK, formats, seeds, URLs and the charge');
let server: TestServer;
let account: TestAccount;
const clock = new SimulatedClock();

test.before(async () => {
  server = await startServer({ SVC_MEDIA_URL_TTL_S: '60' }, { clock });
  account = await server.account(20);
});
test.after(() => server.close());

/** `images.generate` with our extra fields (seed, aspect_ratio, …) the SDK's types do not list. */
const generate = (client: OpenAI, params: Record<string, unknown>) =>
  client.images.generate(params as unknown as OpenAI.ImageGenerateParamsNonStreaming);

test('images.generate (b64_json) returns a PNG of exactly the requested size, and charges what svc says', async () => {
  const before = await money(server, account.token);
  const result = await generate(server.openai(account.token), {
    model: 'pro-1',
    prompt: 'a red fox in a snowy forest',
    size: '1536x1024',
    seed: 7,
  });
  const body = ImagesResponseSchema.parse(result);
  assert.is(body.data.length, 1);
  const png = Buffer.from(body.data[0]!.b64_json!, 'base64');
  const meta = await sharp(png).metadata();
  assert.equal([meta.format, meta.width, meta.height], ['png', 1536, 1024]);
  assert.is(body.size, '1536x1024');
  assert.is(body.svc.tier, 'standard');
  assert.ok(body.svc.our_cost_usd > 0 && body.svc.price_usd > body.svc.our_cost_usd, 'cost-plus');
  assert.is(micros(body.svc.price_usd), Math.ceil(micros(body.svc.our_cost_usd) * 1.25));
  const after = await money(server, account.token);
  assert.is(before.balance - after.balance, micros(body.svc.price_usd));
  assert.is(after.held, 0);
  const [charge] = await charges(server, account.token);
  assert.is(micros(-charge!.amount_usd), micros(body.svc.price_usd));
});

test('the same seed gives the same image; another seed another', async () => {
  const client = server.openai(account.token);
  const one = await generate(client, { prompt: 'three boats at dawn', size: '512x512', seed: 42 });
  const two = await generate(client, { prompt: 'three boats at dawn', size: '512x512', seed: 42 });
  const three = await generate(client, { prompt: 'three boats at dawn', size: '512x512', seed: 43 });
  assert.is(one.data![0]!.b64_json, two.data![0]!.b64_json);
  assert.is.not(one.data![0]!.b64_json, three.data![0]!.b64_json);
});

test('output_format jpeg and webp with output_compression, transparent background, n images', async () => {
  const client = server.openai(account.token);
  const jpeg = await client.images.generate({
    prompt: 'a lighthouse',
    size: '768x512',
    output_format: 'jpeg',
    output_compression: 50,
  });
  assert.equal(await formatOf(jpeg.data![0]!.b64_json!), ['jpeg', 768, 512, false]);
  const webp = await client.images.generate({
    prompt: 'a lighthouse',
    size: '512x768',
    output_format: 'webp',
    background: 'transparent',
    n: 2,
  });
  assert.is(webp.data!.length, 2);
  for (const image of webp.data!) assert.equal(await formatOf(image.b64_json!), ['webp', 512, 768, true]);
  const light = await generate(client, {
    prompt: 'a lighthouse',
    size: '768x512',
    output_format: 'jpeg',
    output_compression: 90,
    seed: 1,
  });
  const heavy = await generate(client, {
    prompt: 'a lighthouse',
    size: '768x512',
    output_format: 'jpeg',
    output_compression: 5,
    seed: 1,
  });
  assert.ok(light.data![0]!.b64_json!.length < heavy.data![0]!.b64_json!.length, 'more compression, fewer bytes');
  const png = await client.images.generate({ prompt: 'a lighthouse', size: '256x256', background: 'opaque' });
  assert.equal(await formatOf(png.data![0]!.b64_json!), ['png', 256, 256, false]);
});

async function formatOf(
  b64: string,
): Promise<[string | undefined, number | undefined, number | undefined, boolean | undefined]> {
  const meta = await sharp(Buffer.from(b64, 'base64')).metadata();
  return [meta.format, meta.width, meta.height, meta.hasAlpha];
}

test('aspect_ratio with resolution gives the documented pixels exactly', async () => {
  const client = server.openai(account.token);
  const wide = (await client.images.generate({
    prompt: 'a wide valley',
    aspect_ratio: '16:9',
    resolution: '1K',
  } as never)) as unknown as { size: string; data: { b64_json: string }[] };
  assert.is(wide.size, '1024x576');
  assert.equal((await formatOf(wide.data[0]!.b64_json)).slice(1, 3), [1024, 576]);
  const tall = (await client.images.generate({
    prompt: 'a tall tower',
    aspect_ratio: '2:3',
    resolution: '1536',
  } as never)) as unknown as { size: string };
  assert.is(tall.size, '1024x1536');
});

test('quality selects the tier; larger images are premium; svc says which', async () => {
  const client = server.openai(account.token);
  const tierOf = async (params: Record<string, unknown>) =>
    ImagesResponseSchema.parse(await client.images.generate({ prompt: 'tiers', size: '512x512', ...params })).svc;
  assert.is((await tierOf({ quality: 'high' })).tier, 'premium');
  assert.is((await tierOf({ quality: 'low' })).tier, 'standard');
  assert.is((await tierOf({})).tier, 'standard');
  const big = await tierOf({ size: '2048x2048' });
  assert.is(big.tier, 'premium');
  const forcedLow = await tierOf({ size: '2048x2048', quality: 'low' });
  assert.is(forcedLow.tier, 'standard');
  assert.ok(big.price_usd > forcedLow.price_usd);
});

test('response_format url: a signed URL that works without a token, refuses tampering, and expires', async () => {
  // The official SDK asks for the URL; the body it hands back is checked against our strict wire schema.
  const body = ImagesResponseSchema.parse(
    await generate(server.openai(account.token), {
      prompt: 'a kite over a beach',
      size: '512x256',
      response_format: 'url',
    }),
  );
  const url = body.data[0]!.url!;
  assert.ok(url.startsWith(`${server.url}/v1/media/img_`), url);
  assert.is(body.svc.url_expires_at, Math.floor(clock.now() / 1000) + 60);
  const fetched = await fetch(url);
  assert.is(fetched.status, 200);
  assert.is(fetched.headers.get('content-type'), 'image/png');
  const meta = await sharp(Buffer.from(await fetched.arrayBuffer())).metadata();
  assert.equal([meta.width, meta.height], [512, 256]);

  const tampered = url.replace(/signature=([A-Za-z0-9_-])/, (_, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
  const bad = await fetch(tampered);
  assert.is(bad.status, 403);
  assert.is(((await bad.json()) as { error: { code: string } }).error.code, 'url_signature_invalid');
  const longer = url.replace(/expires=(\d+)/, (_, n: string) => `expires=${Number(n) + 3600}`);
  assert.is((await fetch(longer)).status, 403, 'the expiry is signed too');
  const unsigned = await fetch(url.split('?')[0]!);
  assert.is(unsigned.status, 403);

  clock.advance(61_000);
  const expired = await fetch(url);
  assert.is(expired.status, 403);
  assert.is(((await expired.json()) as { error: { code: string } }).error.code, 'url_expired');
});

test('POST /v1/estimate prices an image request as the call charges it, and the tariff lists the rates', async () => {
  const request = { prompt: 'estimate me', size: '1024x1024', n: 2 };
  const estimate = assertWire(
    MediaEstimateObjectSchema,
    await server.request('POST', '/v1/estimate', { body: { modality: 'image', ...request } }),
    200,
    'estimate',
  );
  const made = ImagesResponseSchema.parse(await server.openai(account.token).images.generate(request));
  assert.is(estimate.cost_usd.min, made.svc.price_usd);
  assert.is(estimate.our_cost_usd.min, made.svc.our_cost_usd);
  const policy = assertWire(
    MediaEstimateObjectSchema,
    await server.request('POST', '/v1/estimate', {
      body: { modality: 'image', ...request, text_policy: 'exact', expected_text: ['HELLO'], max_repairs: 2 },
    }),
  );
  assert.is(policy.units.max, 6, 'n × (1 + max_repairs) attempts at most');
  const bad = await server.request('POST', '/v1/estimate', {
    body: { modality: 'image', prompt: 'x', size: '1000x1000' },
  });
  assert.is(bad.status, 422);
  const tariff = assertWire(PricingObjectSchema, await server.request('GET', '/v1/pricing'));
  const sim = tariff.media.items.image.backends.find((rate) => rate.backend === 'sim' && rate.tier === 'standard')!;
  assert.is(micros(sim.cost_usd), 10_000);
  assert.ok(tariff.media.items.video.backends.length >= 2);
});

test('unknown model is 404; bad fields are 422 naming them; no token is 401', async () => {
  const res = await server.request('POST', '/v1/images/generations', {
    token: account.token,
    body: { prompt: 'x', model: 'dall-e-9' },
  });
  assert.is(res.status, 404);
  assert.is(res.body.error.code, 'model_not_found');
  for (const [body, field] of [
    [{}, 'prompt'],
    [{ prompt: '' }, 'prompt'],
    [{ prompt: 'x', n: 0 }, 'n'],
    [{ prompt: 'x', n: 11 }, 'n'],
    [{ prompt: 'x', output_format: 'gif' }, 'output_format'],
    [{ prompt: 'x', output_compression: 101 }, 'output_compression'],
    [{ prompt: 'x', response_format: 'file' }, 'response_format'],
    [{ prompt: 'x', quality: 'ultra' }, 'quality'],
    [{ prompt: 'x', stream: true }, 'stream'],
    [{ prompt: 'x', output_format: 'jpeg', background: 'transparent' }, 'background'],
  ] as const) {
    const bad = await server.request('POST', '/v1/images/generations', { token: account.token, body });
    assert.is(bad.status, 422, JSON.stringify(body));
    assert.equal(bad.body.detail[0].loc, ['body', field], JSON.stringify(bad.body));
  }
  assert.is((await server.request('POST', '/v1/images/generations', { body: { prompt: 'x' } })).status, 401);
});

test.run();
