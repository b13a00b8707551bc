import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tesseractAvailable } from '../backends/local/tesseract-ocr.js';
import { ImagesResponseSchema } from '../protocols/images.js';
import { startServer, type TestAccount, type TestServer } from './harness.js';
import { charges, micros, money } from './media-fixture.js';
import { assertWire } from './wire-check.js';

const test = suite('images: text policies read back with OCR, repaired, billed per attempt');
let server: TestServer;
let account: TestAccount;
const ocr = tesseractAvailable();

test.before(async () => {
  server = await startServer();
  account = await server.account(20);
});
test.after(() => server.close());

const generate = (body: Record<string, unknown>) =>
  server.request('POST', '/v1/images/generations', {
    token: account.token,
    body: { prompt: 'a shop front at night', size: '1024x512', ...body },
  });

/** One attempt's price for this request shape (premium 1024x512, as exact text makes it). */
async function attemptPrice(): Promise<number> {
  const estimate = await server.request('POST', '/v1/estimate', {
    body: { modality: 'image', prompt: 'p', size: '1024x512', text_policy: 'exact', expected_text: ['X'] },
  });
  return micros(estimate.body.cost_usd.min);
}

if (!ocr) {
  test('OCR policies answer 503 ocr_unavailable where tesseract is missing (the OCR tests below are skipped: install tesseract-ocr)', async () => {
    const res = await generate({ text_policy: 'exact', expected_text: ['OPEN'] });
    assert.is(res.status, 503);
    assert.is(res.body.error.code, 'ocr_unavailable');
    assert.equal(await charges(server, account.token), []);
  });
} else {
  test('exact text that OCR reads back at once: one attempt, one attempt charged, premium tier', async () => {
    const before = await money(server, account.token);
    const body = assertWire(
      ImagesResponseSchema,
      await generate({ text_policy: 'exact', expected_text: ['GRAND OPENING'] }),
      200,
      'exact',
    );
    assert.is(body.svc.tier, 'premium');
    assert.is(body.svc.text_policy, 'exact');
    assert.equal(
      body.svc.attempts.map((a) => [a.attempt, a.outcome, a.ocr_text]),
      [[0, 'accepted', 'GRAND OPENING']],
    );
    const price = await attemptPrice();
    assert.is(micros(body.svc.price_usd), price);
    assert.is(before.balance - (await money(server, account.token)).balance, price);
  });

  test('a misspelled first attempt is repaired: two attempts, both charged, the second accepted', async () => {
    const before = await money(server, account.token);
    const body = assertWire(
      ImagesResponseSchema,
      await generate({
        expected_text: ['Fresh Bread', 'daily'],
        max_repairs: 2,
        metadata: { sim: { text_errors: 1 } },
      }),
      200,
      'repair',
    );
    assert.equal(
      body.svc.attempts.map((a) => a.outcome),
      ['text_mismatch', 'accepted'],
    );
    assert.is.not(body.svc.attempts[0]!.ocr_text, 'Fresh Bread daily');
    assert.is(body.svc.attempts[1]!.ocr_text, 'Fresh Bread daily');
    const price = await attemptPrice();
    assert.is(micros(body.svc.price_usd), 2 * price);
    assert.is(before.balance - (await money(server, account.token)).balance, 2 * price);
    const [charge] = await charges(server, account.token);
    assert.ok(charge!.description.includes('2 attempts'), charge!.description);
  });

  test('still wrong after max_repairs: 422 text_policy_unmet, every attempt made is charged, nothing held', async () => {
    const before = await money(server, account.token);
    const res = await generate({
      text_policy: 'exact',
      expected_text: ['SUMMER SALE'],
      max_repairs: 1,
      metadata: { sim: { text_errors: 5 } },
    });
    assert.is(res.status, 422);
    assert.is(res.body.error.code, 'text_policy_unmet');
    assert.is(res.body.error.param, 'expected_text');
    assert.is(res.body.detail[0].type, 'text_policy_unmet');
    const price = await attemptPrice();
    assert.is(micros(Number(res.headers.get('x-svc-price-usd'))), 2 * price);
    const after = await money(server, account.token);
    assert.is(before.balance - after.balance, 2 * price);
    assert.is(after.held, 0);
    const noRepairs = await generate({
      text_policy: 'exact',
      expected_text: ['SUMMER SALE'],
      max_repairs: 0,
      metadata: { sim: { text_errors: 1 } },
    });
    assert.is(noRepairs.status, 422);
    assert.is(micros(Number(noRepairs.headers.get('x-svc-price-usd'))), price, 'max_repairs 0: one attempt');
  });

  test('the no-text policy passes a picture without text and repairs one with a stray word', async () => {
    const clean = assertWire(
      ImagesResponseSchema,
      await generate({ text_policy: 'no_text', size: '512x512' }),
      200,
      'no_text',
    );
    assert.equal(
      clean.svc.attempts.map((a) => [a.outcome, a.ocr_text]),
      [['accepted', '']],
    );
    const repaired = assertWire(
      ImagesResponseSchema,
      await generate({ text_policy: 'no_text', size: '512x512', metadata: { sim: { stray_text: 1 } } }),
      200,
      'stray',
    );
    assert.equal(
      repaired.svc.attempts.map((a) => a.outcome),
      ['text_found', 'accepted'],
    );
    assert.is(repaired.svc.attempts[0]!.ocr_text, 'SALE');
    const failed = await generate({
      text_policy: 'no_text',
      size: '512x512',
      max_repairs: 0,
      metadata: { sim: { stray_text: 3 } },
    });
    assert.is(failed.status, 422);
    assert.is(failed.body.error.code, 'text_policy_unmet');
    assert.is(failed.body.error.param, 'text_policy');
  });

  test('n images under a policy: each is checked and repaired on its own', async () => {
    const body = assertWire(
      ImagesResponseSchema,
      await generate({ n: 2, expected_text: ['TWO SIGNS'], metadata: { sim: { text_errors: 1 } } }),
      200,
      'n=2',
    );
    assert.equal(
      body.svc.attempts.map((a) => [a.image, a.attempt, a.outcome]),
      [
        [0, 0, 'text_mismatch'],
        [0, 1, 'accepted'],
        [1, 0, 'text_mismatch'],
        [1, 1, 'accepted'],
      ],
    );
    assert.is(micros(body.svc.price_usd), 4 * (await attemptPrice()));
  });
}

test('contradictory policies are 422 before any spend', async () => {
  const calls = server.app.deps.images.backendCalls;
  for (const [body, field] of [
    [{ text_policy: 'exact' }, 'expected_text'],
    [{ text_policy: 'no_text', expected_text: ['A'] }, 'expected_text'],
    [{ text_policy: 'none', expected_text: ['A'] }, 'expected_text'],
    [{ text_policy: 'exact', expected_text: [] }, 'expected_text'],
    [{ text_policy: 'exact', expected_text: ['A'], max_repairs: 6 }, 'max_repairs'],
    [{ text_policy: 'sometimes' }, 'text_policy'],
  ] as const) {
    const res = await generate(body);
    assert.is(res.status, 422, JSON.stringify(body));
    assert.equal(res.body.detail[0].loc.slice(0, 2), ['body', field], JSON.stringify(res.body));
  }
  assert.is(server.app.deps.images.backendCalls, calls);
});

test.run();
