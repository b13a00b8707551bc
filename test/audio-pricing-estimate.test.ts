import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MediaEstimateObjectSchema, PricingObjectSchema } from '../protocols/pricing.js';
import { startServer, type TestServer } from './harness.js';
import { assertWire } from './wire-check.js';
import { balanceOf, usdDiff } from './audio-fixtures.js';

const test = suite('audio pricing and estimates: every engine rate in the tariff, estimates equal to the charge');
let server: TestServer;

test.before(async () => {
  server = await startServer();
});
test.after(async () => server.close());

test('GET /v1/pricing lists every audio engine with its cost and price (cost plus 25 %), per 1,000 characters or per minute', async () => {
  const tariff = assertWire(PricingObjectSchema, await server.request('GET', '/v1/pricing'), 200, 'pricing');
  const items = tariff.media.items;
  assert.is(items.speech.per, '1000_input_characters');
  assert.equal(items.speech.backends, [
    { backend: 'standard', engine: 'sim', cost_usd: 0.015, price_usd: 0.01875 },
    { backend: 'premium', engine: 'sim-premium', cost_usd: 0.03, price_usd: 0.0375 },
  ]);
  assert.is(items.transcription.per, 'minute');
  assert.equal(items.transcription.backends, [
    { backend: 'standard', engine: 'sim', cost_usd: 0.006, price_usd: 0.0075 },
  ]);
  assert.equal(items.music.backends, [{ backend: 'standard', engine: 'sim', cost_usd: 0.06, price_usd: 0.075 }]);
  assert.equal(items.sound_effect.backends, [{ backend: 'standard', engine: 'sim', cost_usd: 0.06, price_usd: 0.075 }]);
  assert.is(items.voice_clone.price_usd, 1);
});

async function estimate(body: Record<string, unknown>) {
  return server.request('POST', '/v1/estimate', { body });
}

test('POST /v1/estimate prices each audio modality without a token or a balance, and the hold is the price', async () => {
  const speech = assertWire(
    MediaEstimateObjectSchema,
    await estimate({ modality: 'speech', input: 'Hello there.', backend: 'premium' }),
    200,
    'speech',
  );
  assert.equal(speech.units, { basis: 'input_characters', min: 12, max: 12 });
  assert.equal(speech.our_cost_usd, { min: 0.00036, max: 0.00036 });
  assert.equal(speech.cost_usd, { min: 0.00045, max: 0.00045 });
  assert.is(speech.hold_usd, 0.00045);
  assert.is(speech.backend, 'premium');
  const transcription = assertWire(
    MediaEstimateObjectSchema,
    await estimate({ modality: 'transcription', duration_seconds: 90 }),
    200,
    'transcription',
  );
  assert.equal(transcription.units, { basis: 'audio_seconds', min: 90, max: 90 });
  assert.is(transcription.hold_usd, 0.01125);
  const music = assertWire(
    MediaEstimateObjectSchema,
    await estimate({ modality: 'music', prompt: 'a march' }),
    200,
    'music',
  );
  assert.equal(music.units, { basis: 'output_seconds', min: 30, max: 30 }, 'the default duration');
  assert.is(music.hold_usd, 0.0375);
  const effect = assertWire(
    MediaEstimateObjectSchema,
    await estimate({ modality: 'sound_effect', prompt: 'a door' }),
    200,
    'sound effect',
  );
  assert.equal(effect.units, { basis: 'output_seconds', min: 5, max: 5 }, 'the default duration');
  const voice = assertWire(
    MediaEstimateObjectSchema,
    await estimate({ modality: 'voice_clone', name: 'x' }),
    200,
    'voice clone',
  );
  assert.is(voice.hold_usd, 1);
});

test('an estimate refuses what the request would refuse: 422', async () => {
  assert.is((await estimate({ modality: 'speech', input: 'x', temperature: 1 })).status, 422);
  assert.is((await estimate({ modality: 'speech', input: '' })).status, 422);
  assert.is(
    (await estimate({ modality: 'transcription' })).status,
    422,
    'a transcription estimate needs duration_seconds',
  );
  assert.is((await estimate({ modality: 'music', prompt: 'x', duration_seconds: 1000 })).status, 422);
  assert.is((await estimate({ modality: 'voice_clone', backend: 'standard' })).status, 422);
});

test('the estimate equals the charge, and a configured sim cost moves both the tariff and the charge', async () => {
  const custom = await startServer({ SVC_SIM_SPEECH_COST_PER_1K_CHARS_MICROS: '20000' });
  try {
    const tariff = await custom.request('GET', '/v1/pricing');
    assert.is(tariff.body.media.items.speech.backends[0].cost_usd, 0.02);
    const input = 'Twenty-one characters';
    const quoted = await custom.request('POST', '/v1/estimate', { body: { modality: 'speech', input } });
    const account = await custom.account(1);
    const res = await custom.request('POST', '/v1/audio/speech', {
      token: account.token,
      body: { input, response_format: 'pcm' },
    });
    assert.is(Number(res.headers.get('x-svc-price-usd')), quoted.body.hold_usd);
    assert.is(usdDiff(1, await balanceOf(custom, account)), quoted.body.hold_usd);
    // 21 characters at 20,000 µ$ per 1,000: 420 µ$ cost, 525 µ$ price.
    assert.is(quoted.body.hold_usd, 0.000525);
  } finally {
    await custom.close();
  }
});

test.run();
