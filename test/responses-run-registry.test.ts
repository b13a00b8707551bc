import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestAccount, type TestServer } from './harness.js';

// A response runs as a chat completion whose id the client never sees: nothing can name that run
// once it ends, so the registry keeps no record of it (a chat completion stays reachable for its grace).
const test = suite('responses: a finished run leaves nothing in the actor registry');
let server: TestServer;
let account: TestAccount;

test.before(async () => {
  server = await startServer();
  account = await server.account(5);
});
test.after(() => server.close());

test('JSON and streamed responses retire their run at once; a chat completion keeps its grace', async () => {
  const client = server.openai(account.token);
  const actors = server.app.deps.actors;
  const before = actors.size;
  await client.responses.create({ model: 'pro-1', input: 'Registry probe, plain' });
  const stream = await client.responses.create({ model: 'pro-1', input: 'Registry probe, streamed', stream: true });
  for await (const event of stream) void event;
  await client.responses.create({ model: 'pro-1', input: 'Registry probe, not stored', store: false });
  assert.is(actors.size, before, 'no run of a response is reachable after it ended');
  const chat = await client.chat.completions.create({
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Registry probe, chat' }],
  });
  assert.is(actors.size, before + 1, 'the chat completion stays reachable for its grace');
  const status = await server.request('GET', `/v1/chat/completions/${chat.id}/live-input`, { token: account.token });
  assert.is(status.status, 200);
});

test.run();
