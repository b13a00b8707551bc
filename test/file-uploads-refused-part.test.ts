import { createHash, randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';

const test = suite('file uploads: a refused part never reaches the assembled file');

/** Rounds to run, cut short once the time budget is spent (the suite stays well under 30 s). */
const ROUNDS = 200;
const BUDGET_MS = 15_000;
const BYTES = 4096;
/** The completion starts 0 to STAGGERS - 1 loop turns after v2, so the rounds sweep across v2's commit. */
const STAGGERS = 24;

let server: TestServer;
let account: TestAccount;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

test.before(async () => {
  server = await startServer();
  account = await server.account();
});

test.after(async () => {
  await server.close();
});

function putPart(id: string, body: Buffer) {
  return server.request('PUT', `/v1/files/uploads/${id}/parts/0`, {
    token: account.token,
    raw: body,
    headers: { 'content-type': 'application/octet-stream' },
  });
}

/** What one round broke (null: nothing) and how v2 was answered. */
interface RoundResult {
  problem: string | null;
  v2Status: number;
}

/** Resolves after `turns` turns of the event loop (the server runs in this process). */
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** One round: part 0 as v1, then v2 racing the completion, which starts `stagger` loop turns later. */
async function round(stagger: number): Promise<RoundResult> {
  const reserved = await server.request('POST', '/v1/files/uploads', {
    token: account.token,
    body: { filename: 'race.bin', bytes: BYTES },
  });
  assert.is(reserved.status, 200, JSON.stringify(reserved.body));
  const id = reserved.body.id as string;
  const v1 = randomBytes(BYTES);
  const v2 = randomBytes(BYTES);
  const first = await putPart(id, v1);
  assert.is(first.status, 200, JSON.stringify(first.body));
  const completing = turns(stagger).then(() =>
    server.request('POST', `/v1/files/uploads/${id}/complete`, { token: account.token }),
  );
  const [second, done] = await Promise.all([putPart(id, v2), completing]);
  const result = (problem: string | null): RoundResult => ({ problem, v2Status: second.status });
  if (second.status !== 200 && !(second.status === 409 && second.body.error.code === 'upload_closed'))
    return result(`v2 answered ${second.status} ${JSON.stringify(second.body)}`);
  // Every part was acknowledged before the completion: it must succeed, whichever version it takes.
  if (done.status !== 200)
    return result(`complete answered ${done.status} ${JSON.stringify(done.body)} (v2 ${second.status})`);
  const content = await fetch(`${server.url}/v1/files/${done.body.id}/content`, {
    headers: { authorization: `Bearer ${account.token}` },
  });
  const stored = Buffer.from(await content.arrayBuffer());
  const recorded = server.app.deps.uploads.status(account.id, id).upload.parts[0]?.sha256;
  const which = stored.equals(v1) ? 'v1' : stored.equals(v2) ? 'v2' : 'neither';
  const named = recorded === sha256(v1) ? 'v1' : recorded === sha256(v2) ? 'v2' : String(recorded);
  if (sha256(stored) !== recorded)
    return result(`the file holds ${which} but the upload records ${named} (v2 ${second.status})`);
  if (second.status === 409 && which === 'v2') return result('v2 was refused with 409 but is the file');
  if (done.body.sha256 !== recorded)
    return result(`the file object says ${String(done.body.sha256)}, the upload records ${named}`);
  return result(null);
}

test('part 0 re-sent while completing: the file is the part version the upload records, never a refused one', async () => {
  const started = Date.now();
  const broken: string[] = [];
  const v2 = { taken: 0, refused: 0 };
  let rounds = 0;
  while (rounds < ROUNDS && Date.now() - started < BUDGET_MS) {
    rounds++;
    const { problem, v2Status } = await round(rounds % STAGGERS);
    if (v2Status === 200) v2.taken++;
    else v2.refused++;
    if (problem) broken.push(`round ${rounds}: ${problem}`);
  }
  const summary = `${broken.length} of ${rounds} rounds broke the rules (v2 taken ${v2.taken}, refused ${v2.refused})`;
  assert.ok(rounds >= 20, `only ${rounds} rounds ran in the budget`);
  assert.ok(broken.length === 0, `${summary}:\n${broken.slice(0, 10).join('\n')}`);
});

test.run();
