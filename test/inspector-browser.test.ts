import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMachine } from 'xstate';
import { ADMIN_KEY, startServer, type TestAccount, type TestServer } from './harness.js';

// Functions handed to page.evaluate run in the browser, where `document` exists.
declare const document: any;

const test = suite('inspector: the /inspector page in headless Chromium');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where the screenshots are kept (git-ignored): the test's artefacts. */
export const ARTIFACTS = join(import.meta.dirname, 'artifacts');

let server: TestServer;
let user: TestAccount;
let browser: Browser;
const available = existsSync(CHROMIUM);

/** Waits until `#id`'s text satisfies `test` (polled in the page). */
async function textOf(page: Page, selector: string, pattern: RegExp, timeout = 15_000): Promise<string> {
  await page.waitForFunction(
    (sel: string, source: string) => new RegExp(source).test(document.querySelector(sel)?.textContent ?? ''),
    { timeout, polling: 20 },
    selector,
    pattern.source,
  );
  return page.$eval(selector, (node) => node.textContent ?? '');
}

async function connect(page: Page): Promise<void> {
  await page.goto(`${server.url}/inspector`);
  await page.type('#admin-key', ADMIN_KEY);
  await page.keyboard.press('Enter');
  await textOf(page, '#key-status', /Connected/);
}

// uvu swallows an error thrown by `before` (the suite shows 0 passed and nothing else): keep it and fail each test with it.
let setupError: Error | null = null;
test.before(async () => {
  if (!available) return;
  try {
    // The sim answers slowly enough that `running` is seen: 300 ms to the first token, 60 tokens/s.
    server = await startServer({ SVC_SIM_TTFT_MS: '300', SVC_SIM_TOKENS_PER_S: '60' });
    user = await server.account(5);
    // A loaded machine can miss Chromium's start-up window once: one more try before failing.
    const launch = () =>
      puppeteer.launch({
        executablePath: CHROMIUM,
        headless: true,
        timeout: 60_000,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
      });
    browser = await launch().catch(launch);
    mkdirSync(ARTIFACTS, { recursive: true });
  } catch (err) {
    setupError = err instanceof Error ? err : new Error(String(err));
  }
});
test.before.each(() => {
  if (setupError) throw setupError;
});
test.after(async () => {
  await browser?.close();
  await server?.close();
});

test('finds a live session by id, follows it awaiting_approval → running → completed, steps back through its history', async () => {
  if (!available) return console.log(`  (skipped: no Chromium at ${CHROMIUM}; .ci/run installs the Debian package)`);
  const created = await server.request('POST', '/v1/chat/sessions', {
    token: user.token,
    body: {
      model: 'pro-1',
      messages: [{ role: 'user', content: 'Watch me run' }],
      max_tokens: 30,
      require_approval: true,
    },
  });
  assert.is(created.status, 201);
  const id: string = created.body.id;
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.setViewport({ width: 1280, height: 900 });
  await connect(page);
  await page.type('#search', id);
  await page.keyboard.press('Enter');
  await textOf(page, '#actor-title', new RegExp(id));
  assert.is(await textOf(page, '#current-state', /awaiting_approval/), 'awaiting_approval');
  // The chart is drawn from the machine definition with the current state highlighted.
  await page.waitForSelector('#chart svg .node.active[data-path="awaiting_approval"]', { timeout: 10_000 });
  assert.ok((await page.$$('#chart svg .edge')).length > 5, 'transitions are drawn');

  assert.is((await server.request('POST', `/v1/chat/sessions/${id}/approve`, { token: user.token })).status, 200);
  assert.match(await textOf(page, '#current-state', /running/), /^running\./);
  await textOf(page, '#current-state', /completed/);
  await page.waitForSelector('#chart svg .node.active[data-path="completed"]');
  const steps = await page.$$eval('#history li', (items) => items.map((li) => li.textContent ?? ''));
  assert.ok(steps.length >= 4, `history: ${steps.join(' | ')}`);
  assert.match(steps[1], /^APPROVE → running/);

  // Time travel with the keyboard: Home is the first step, ArrowDown the next; Esc returns to live.
  await page.focus('#history');
  await page.keyboard.press('Home');
  assert.is(await textOf(page, '#current-state', /awaiting_approval/), 'awaiting_approval');
  assert.match(await textOf(page, '#viewing', /Viewing step 1/), /not live/);
  await page.waitForSelector('#chart svg .node.active[data-path="awaiting_approval"]');
  assert.match(await page.$eval('#context', (node) => node.textContent ?? ''), /requireApproval/);
  await page.keyboard.press('ArrowDown');
  assert.match(await textOf(page, '#current-state', /running/), /^running\./);
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-session.png'), fullPage: true });
  await page.keyboard.press('Escape');
  await textOf(page, '#current-state', /completed/);
  assert.is(await page.$eval('#viewing', (node) => node.textContent), '');
  assert.equal(errors, []);
  await page.close();
});

test('on a narrow screen nothing scrolls sideways and the list works with the keyboard alone', async () => {
  if (!available) return;
  const page = await browser.newPage();
  await page.setViewport({ width: 380, height: 800 });
  await connect(page);
  await page.waitForSelector('#actor-list li button');
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  assert.ok(overflow <= 0, `horizontal overflow ${overflow}px`);
  await page.focus('#actor-list li button');
  await page.keyboard.press('Enter');
  await textOf(page, '#actor-title', /\S/);
  await page.screenshot({ path: join(ARTIFACTS, 'inspector-narrow.png'), fullPage: true });
  await page.close();
});

test('with 10,000 live actors the page shows its first page in under a second', async () => {
  if (!available) return;
  const idle = createMachine({
    id: 'idle',
    initial: 'waiting',
    states: { waiting: { on: { GO: 'gone' } }, gone: { type: 'final' } },
  });
  server.app.deps.host.register({ name: 'inspector-idle', logic: idle });
  const spawns: Promise<unknown>[] = [];
  for (let i = 0; i < 10_000; i++)
    spawns.push(server.app.deps.host.spawn('inspector-idle', { id: `idle_${i}`, ownerId: user.id, input: {} }));
  await Promise.all(spawns);
  const page = await browser.newPage();
  await connect(page);
  const started = Date.now();
  await page.reload();
  await page.waitForFunction(
    () =>
      document.querySelectorAll('#actor-list li').length >= 50 &&
      /\(\d{5,}\)/.test(document.getElementById('actor-total')?.textContent ?? ''),
    { polling: 10 },
  );
  const elapsed = Date.now() - started;
  console.log(`  inspector loaded with 10,000+ live actors in ${elapsed} ms`);
  assert.ok(elapsed < 1000, `loaded in ${elapsed} ms`);
  assert.is(await page.$$eval('#actor-list li', (items) => items.length), 50, 'one page drawn, not all');
  await page.close();
});

test.run();
