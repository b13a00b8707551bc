import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RUN_SEQUENCE_SPAN } from '../actors/responses/response-service.js';
import { startChildServer, type ChildServer } from './child-server.js';
import { ADMIN_KEY, tempDataDir } from './harness.js';

const test = suite('responses: a background response re-run after kill -9 numbers its events after the earlier run');
const dataDir = tempDataDir();
const env = { SVC_DATA_DIR: dataDir, SVC_ADMIN_KEY: ADMIN_KEY, SVC_CHAT_CACHE_TTL_S: '0' };
let server: ChildServer | undefined;

test.after(async () => {
  await server?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Event {
  type: string;
  sequence_number: number;
}

/** Reads a response's event stream from `after` until `enough` says stop or the server ends it. */
async function follow(id: string, token: string, after: number | null, enough: (events: Event[]) => boolean) {
  const query = after === null ? 'stream=true' : `stream=true&starting_after=${after}`;
  const res = await fetch(`${server!.url}/v1/responses/${id}?${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: Event[] = [];
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return events;
    text += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const data = text
        .slice(0, end)
        .split('\n')
        .find((line) => line.startsWith('data: '));
      text = text.slice(end + 2);
      if (data) events.push(JSON.parse(data.slice(6)) as Event);
    }
    if (enough(events)) {
      await reader.cancel();
      return events;
    }
  }
}

async function call(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(server!.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

function assertIncreasing(events: Event[], above: number): void {
  let last = above;
  for (const event of events) {
    assert.ok(event.sequence_number > last, `${event.type} #${event.sequence_number} comes after #${last}`);
    last = event.sequence_number;
  }
}

test('starting_after the last event seen before the crash resumes with the whole re-run, in order', async () => {
  server = await startChildServer(env);
  const admin = await call('POST', '/admin/v1/accounts', ADMIN_KEY, {
    email: 'sequence-responses@example.com',
    password: 'sequence-pass-1',
    credit_usd: 5,
  });
  const token = admin.body.api_token.token as string;
  const created = await call('POST', '/v1/responses', token, {
    model: 'pro-1',
    input: 'Number your events across a crash please',
    background: true,
    max_output_tokens: 60,
    metadata: { sim: { tokens_per_s: 20 } },
  });
  assert.is(created.body.status, 'queued');
  const id = created.body.id as string;
  const before = await follow(id, token, null, (events) => events.filter((e) => e.type.endsWith('.delta')).length >= 3);
  assertIncreasing(before, -1);
  assert.is(before[0]!.sequence_number, 0, 'the first run numbers from 0');
  const seen = before.at(-1)!.sequence_number;
  await server.kill('SIGKILL');

  server = await startChildServer(env);
  const resumed = await follow(id, token, seen, () => false);
  assert.ok(resumed.length > 0);
  assertIncreasing(resumed, seen);
  assert.is(resumed[0]!.type, 'response.created', 'the re-run starts over, and says so');
  assert.is(resumed[0]!.sequence_number, RUN_SEQUENCE_SPAN, 'the second run numbers from one span up');
  assert.is(resumed.at(-1)!.type, 'response.completed');
  // Contiguous within the run: a client can tell a gap from a restart.
  resumed.forEach((event, index) => assert.is(event.sequence_number, RUN_SEQUENCE_SPAN + index));

  // Once it ended, the stored events replay the same way from the same point.
  const done = await call('GET', `/v1/responses/${id}`, token);
  assert.is(done.body.status, 'completed');
  const replayed = await follow(id, token, seen, () => false);
  assert.equal(
    replayed.map((e) => [e.type, e.sequence_number]),
    resumed.map((e) => [e.type, e.sequence_number]),
  );
  const usage = await call('GET', '/v1/account/usage', token);
  assert.is(usage.body.recent.filter((entry: { type: string }) => entry.type === 'charge').length, 1);
});

test.run();
