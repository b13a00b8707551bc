import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OpenAIRealtimeWebSocket, RealtimeAgent, RealtimeSession, tool } from '@openai/agents-realtime';
import { z } from 'zod';
import { decodeSimVoice } from '../backends/sim/sim-voice-codec.js';
import { startServer, type TestServer } from './harness.js';
import { silence } from './realtime-client.js';
import { simSpoken } from './speech-fixture.js';

// The OpenAI Agents SDK's RealtimeSession with a RealtimeAgent that has a tool, on the websocket
// transport with its defaults (semantic_vad, input transcription), pointed at our server.

let server: TestServer;
const test = suite('realtime with the OpenAI Agents SDK: a RealtimeAgent calls a tool in a voice turn');

test.before(async () => {
  server = await startServer();
});
test.after(async () => {
  await server.close();
});

/** Resolves with the first value `pick` returns for an event of `emitter`, within `ms`. */
function waitFor<T>(
  subscribe: (listener: (event: any) => void) => void,
  pick: (event: any) => T | undefined,
  ms = 15_000,
) {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    subscribe((event) => {
      const value = pick(event);
      if (value !== undefined) {
        clearTimeout(timer);
        resolve(value);
      }
    });
  });
}

test('a voice turn calls the agent tool, the SDK sends its output, and the spoken answer is heard', async () => {
  const account = await server.account();
  const cities: string[] = [];
  const getWeather = tool({
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => {
      cities.push(city);
      return Promise.resolve(`sunny in ${city}`);
    },
  });
  const agent = new RealtimeAgent({ name: 'Weather', instructions: 'Answer briefly.', tools: [getWeather] });
  const transport = new OpenAIRealtimeWebSocket();
  const session = new RealtimeSession(agent, { transport, model: 'pro-1' });
  const raw: { type: string; [key: string]: any }[] = [];
  transport.on('*', (event: any) => raw.push(event));
  const errors: unknown[] = [];
  session.on('error', (error) => errors.push(error));
  const audio: Buffer[] = [];
  session.on('audio', (event) => audio.push(Buffer.from(event.data)));
  await session.connect({ apiKey: account.token, url: `${server.url.replace(/^http/, 'ws')}/v1/realtime?model=pro-1` });
  try {
    await waitFor(
      (l) => transport.on('*', l),
      (e) => (e.type === 'session.updated' ? true : undefined),
    );
    const toolEnd = waitFor(
      (l) => session.on('agent_tool_end', (_ctx, _agent, _tool, result) => l(result)),
      (result) => result as string,
    );
    const answered = waitFor(
      (l) => transport.on('*', l),
      (e) => (e.type === 'response.done' && e.response.output[0]?.type === 'message' ? e.response : undefined),
    );
    const speech = Buffer.concat([silence(300), await simSpoken('Please use get_weather for Paris.'), silence(1500)]);
    for (let at = 0; at < speech.length; at += 960) {
      const chunk = speech.subarray(at, at + 960);
      session.sendAudio(chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.length));
    }
    assert.is(await toolEnd, 'sunny in Paris');
    assert.equal(cities, ['Paris']);
    const response = await answered;
    const transcript = response.output[0].content[0].transcript as string;
    assert.is(transcript, 'get_weather returned sunny in Paris.');
    const pcm = Buffer.concat(audio);
    assert.is(
      decodeSimVoice(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2)),
      transcript,
      'the audio heard says it',
    );
    const call = raw.find((e) => e.type === 'response.output_item.done' && e.item.type === 'function_call');
    assert.ok(call, 'the call came as a function_call output item');
    assert.equal(JSON.parse(call.item.arguments), { city: 'Paris' });
    assert.equal(errors, [], 'no error events');
    const history = session.history.filter((item) => item.type === 'function_call');
    assert.is(history.length, 1);
  } finally {
    session.close();
  }
});

test.run();
