import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CallEvent } from '../actors/realtime/call-context.js';
import type { CallStreamEvent } from '../actors/realtime/call-events.js';
import { CallLine } from '../actors/realtime/call-line.js';
import type { CallSnapshot } from '../actors/realtime/call-machine.js';
import { defaultCallSession, type CallSession } from '../actors/realtime/call-session.js';
import { CallView } from '../actors/realtime/call-view.js';
import { parseClientBytes } from '../http/realtime/client-message.js';
import { SimulatedClock } from '../runtime/clock.js';

const test = suite(
  'realtime call line: audio in goes through the VAD, and only what the machine must decide reaches it',
);

/** A sine at -20 dBFS for `ms` (24 kHz PCM16LE mono): speech as far as the VAD is concerned. */
function tone(ms: number): Buffer {
  const samples = 24 * ms;
  const out = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    out.writeInt16LE(Math.round(0.1 * 32767 * Math.SQRT2 * Math.sin((2 * Math.PI * 440 * i) / 24_000)), i * 2);
  return out;
}
const silence = (ms: number) => Buffer.alloc(48 * ms);

function line(options: { session?: CallSession; ending?: boolean; accepts?: boolean } = {}) {
  const sent: CallEvent[] = [];
  const streamed: CallStreamEvent[] = [];
  const snapshot = {
    status: 'active',
    value: { live: 'idle' },
    context: {
      session: options.session ?? defaultCallSession('pro-1'),
      ending: options.ending ? { reason: 'farewell', language: 'en', ready: false } : null,
      closeReason: null,
      items: [],
    },
  } as unknown as CallSnapshot;
  const view = new CallView(snapshot.context.session);
  view.observe(snapshot);
  const port = {
    view,
    send: (event: CallEvent) => sent.push(event),
    accepts: () => options.accepts ?? false,
    whenDurable: () => Promise.resolve(),
  };
  return {
    line: new CallLine('rtc_1', port, new SimulatedClock(1000), (event) => streamed.push(event)),
    sent,
    streamed,
  };
}

test('a spoken turn: speech started is streamed at once; the committed turn goes to the machine with its audio parked', () => {
  const { line: call, sent, streamed } = line();
  call.append(Buffer.concat([silence(400), tone(600), silence(800)]), null);
  assert.equal(
    streamed.map((event) => event.type),
    ['speechStarted'],
  );
  assert.equal(
    sent.map((event) => event.type),
    ['SPEECH_STOPPED'],
    'SPEECH_STARTED is not sent when the machine would not take it',
  );
  const stopped = sent[0] as Extract<CallEvent, { type: 'SPEECH_STOPPED' }>;
  assert.is(
    stopped.itemId,
    (streamed[0] as Extract<CallStreamEvent, { type: 'speechStarted' }>).itemId,
    'one item id from start to stop',
  );
  assert.match(stopped.itemId, /^item_[A-Za-z0-9]{20}$/);
  assert.ok(stopped.audioMs > 600);
  assert.is(call.take(stopped.audioKey)?.length, stopped.audioMs * 48);
  assert.is(call.take(stopped.audioKey), undefined, 'handed over once');
});

test('speech started is sent to the machine when it would act on it (a response to cut)', () => {
  const { line: call, sent } = line({ accepts: true });
  call.append(Buffer.concat([silence(200), tone(300)]), null);
  assert.equal(
    sent.map((event) => event.type),
    ['SPEECH_STARTED'],
  );
});

test('once the call is ending, audio is ignored and commits do nothing; odd-length audio is refused even then', () => {
  const { line: call, sent, streamed } = line({ ending: true });
  call.append(Buffer.concat([silence(200), tone(600), silence(800)]), null);
  call.commit(null);
  assert.equal(sent, []);
  assert.equal(streamed, []);
  call.append(Buffer.alloc(3), 'evt_1');
  assert.equal(streamed, [
    {
      type: 'rejected',
      code: 'invalid_audio',
      message: 'Audio must be 16-bit PCM: an even number of bytes.',
      param: 'audio',
      clientEventId: 'evt_1',
    },
  ]);
});

test('without turn detection the client commits: too little is refused, enough becomes a turn; clear empties the buffer', () => {
  const { line: call, sent, streamed } = line({ session: { ...defaultCallSession('pro-1'), turnDetection: null } });
  call.append(tone(50), null);
  call.commit('evt_c');
  assert.is((streamed[0] as Extract<CallStreamEvent, { type: 'rejected' }>).code, 'input_audio_buffer_commit_empty');
  call.append(tone(300), null);
  call.clear();
  assert.is(streamed[1]!.type, 'audioCleared');
  call.commit(null);
  assert.is(
    (streamed[2] as Extract<CallStreamEvent, { type: 'rejected' }>).code,
    'input_audio_buffer_commit_empty',
    'cleared audio is gone',
  );
  call.append(tone(300), null);
  call.commit(null);
  assert.equal(
    sent.map((event) => event.type),
    ['AUDIO_COMMITTED'],
  );
  assert.is((sent[0] as Extract<CallEvent, { type: 'AUDIO_COMMITTED' }>).audioMs, 300);
});

test('appended audio is only lent: frames decoded into one reused buffer are kept whole for a manual commit and by the VAD', () => {
  const first = tone(100);
  const second = silence(60);
  const frame = (audio: Buffer) =>
    Buffer.from(JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.toString('base64') }));
  const appendAudio = (call: CallLine, audio: Buffer) => {
    const parsed = parseClientBytes(frame(audio));
    assert.ok('command' in parsed && parsed.command.type === 'appendAudio');
    if ('command' in parsed && parsed.command.type === 'appendAudio') call.append(parsed.command.audio, null);
  };
  const manual = line({ session: { ...defaultCallSession('pro-1'), turnDetection: null } });
  appendAudio(manual.line, first);
  appendAudio(manual.line, second);
  manual.line.commit(null);
  const committed = manual.sent[0] as Extract<CallEvent, { type: 'AUDIO_COMMITTED' }>;
  assert.equal(manual.line.take(committed.audioKey), Buffer.concat([first, second]));
  // With the VAD: a turn's audio is whole although every frame came through the same buffer.
  const voiced = line();
  const spoken = [silence(300), tone(600), silence(800)];
  for (const part of spoken)
    for (let at = 0; at < part.length; at += 960) appendAudio(voiced.line, part.subarray(at, at + 960));
  const stopped = voiced.sent[0] as Extract<CallEvent, { type: 'SPEECH_STOPPED' }>;
  const turn = voiced.line.take(stopped.audioKey)!;
  const whole = Buffer.concat(spoken);
  assert.ok(turn.length > 600 * 48, 'the whole turn');
  assert.ok(whole.indexOf(turn) >= 0, 'the turn is the audio as it was appended');
});

test.run();
