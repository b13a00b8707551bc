import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { recycledFrameMemory } from '../http/realtime/frame-slabs.js';
import { startServer, type TestServer } from './harness.js';
import { connectCall, type RealtimeClient } from './realtime-client.js';

const test = suite('realtime output audio: frame memory reused, the bytes on the wire unchanged under backpressure');

let server: TestServer;
test.before(async () => {
  // Nothing dropped nor closed for slowness: every frame rendered must arrive.
  server = await startServer({
    SVC_REALTIME_DROP_AUDIO_BYTES: String(256 * 1024 * 1024),
    SVC_REALTIME_CLOSE_BYTES: String(512 * 1024 * 1024),
  });
});
test.after(async () => {
  await server.close();
});

/** About 100 s of sim speech (~14 MB of audio deltas): more than a paused loopback reader's kernel buffers hold. */
const REPLY = Array.from({ length: 72 }, (_, i) => `Sentence ${i} keeps this line busy for a while. `).join('');

/** Asks for the scripted long answer and returns the call's socket, its response not yet read. */
async function longAnswer(paused: boolean): Promise<RealtimeClient> {
  const account = await server.account();
  const client = await connectCall(server, account.token);
  await client.next('session.created');
  client.send({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Talk for a while.' }] },
  });
  await client.next('conversation.item.added');
  const socket = (client.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  if (paused) socket.pause();
  client.send({ type: 'response.create', response: { metadata: { sim: { reply: REPLY } } } });
  if (paused) {
    // The server renders the whole answer while the client reads nothing: uWS holds what the
    // kernel does not, copied from frames whose memory is written again meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    socket.resume();
  }
  await client.next('response.done', 30_000);
  return client;
}

/** The response's audio deltas as received (base64 text, in order). */
function deltas(client: RealtimeClient): string[] {
  return client.events.filter((e) => e.type === 'response.output_audio.delta').map((e) => e.delta as string);
}

test('a paused reader gets the same audio, byte for byte, as a prompt one', async () => {
  const prompt = await longAnswer(false);
  const slow = await longAnswer(true);
  const expected = deltas(prompt);
  const got = deltas(slow);
  const bytes = expected.reduce((total, delta) => total + delta.length, 0);
  assert.ok(bytes > 8 * 1024 * 1024, `the answer outgrows the kernel's buffers (${bytes} bytes)`);
  assert.is(got.length, expected.length, 'no frame dropped');
  for (let i = 0; i < expected.length; i++) assert.ok(got[i] === expected[i], `frame ${i} unchanged`);
  prompt.close();
  slow.close();
});

/** `count` frames of 60 KB taken now, each filled with its own byte. */
function framesTaken(count: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => recycledFrameMemory.take(60 * 1024).fill(i));
}

test('recycled frame memory is written again only once the task that filled it is over', async () => {
  const sameTask = framesTaken(40); // ten slabs' worth: each fills and is retired
  sameTask.forEach((frame, i) =>
    assert.ok(
      frame.every((byte) => byte === i),
      `frame ${i} intact within its task`,
    ),
  );
  await new Promise((resolve) => setImmediate(resolve));
  const used = new Set(sameTask.map((frame) => frame.buffer));
  assert.ok(
    framesTaken(40).some((frame) => used.has(frame.buffer)),
    'from the next check phase, retired slabs are used again',
  );
});

test.run();
