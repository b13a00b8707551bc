import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseClientBytes, parseClientMessage } from '../http/realtime/client-message.js';
import { base64DecodedLength, decodeBase64Into, decodeBase64Strict } from '../protocols/base64.js';

const test = suite('realtime appends: strict base64 without a regex, and the flat-envelope fast path');

test('valid base64 decodes as Node decodes it; anything else is refused', () => {
  for (const bytes of [0, 1, 2, 3, 4, 959, 960, 4800]) {
    const buffer = Buffer.from(Array.from({ length: bytes }, (_, i) => (i * 37 + bytes) % 256));
    assert.equal(decodeBase64Strict(buffer.toString('base64')), buffer, `${bytes} bytes`);
  }
  for (const bad of ['###', 'abc', 'ab=c', 'YQ=', '====', 'YW-_', 'YW Jj', 'YWJj\n', 'Y===', 'é===', 'YWJ\u0000']) {
    assert.is(decodeBase64Strict(bad), null, JSON.stringify(bad));
  }
});

test('base64 decoded from bytes into a buffer of its own length gives the same verdict and bytes', () => {
  const texts = ['', 'YQ==', 'YWI=', 'YWJj', 'YR==', Buffer.alloc(960, 7).toString('base64')];
  texts.push(
    '###',
    'abc',
    'ab=c',
    'YQ=',
    '====',
    'YW-_',
    'YWJ_',
    'YW Jj',
    'YWJj\n',
    'Y===',
    'é===',
    'YWJ\u0000',
    'YQ==YQ==',
  );
  for (const text of texts) {
    const source = Buffer.from(` ${text}"`, 'utf8'); // the characters at an offset, as in a frame
    const end = source.length - 1;
    const length = base64DecodedLength(source, 1, end);
    const expected = decodeBase64Strict(text);
    const target = Buffer.alloc(Math.max(0, length));
    const decoded = length >= 0 && decodeBase64Into(source, 1, end, target);
    assert.is(decoded, expected !== null, JSON.stringify(text));
    if (expected) assert.equal(target, expected, JSON.stringify(text));
  }
});

test('an append is parsed to the same command by the fast path and refused with the same error', () => {
  const audio = Buffer.from([1, 2, 3, 4]);
  const plain = parseClientMessage(
    JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.toString('base64') }),
  );
  assert.equal(plain, { command: { type: 'appendAudio', audio, clientEventId: null } });
  const withId = parseClientMessage(
    JSON.stringify({ event_id: 'e1', type: 'input_audio_buffer.append', audio: audio.toString('base64') }),
  );
  assert.equal(withId, { command: { type: 'appendAudio', audio, clientEventId: 'e1' } });
  // Other fields take the general path (the schema accepts and drops them): the same command.
  const extra = parseClientMessage(
    JSON.stringify({ type: 'input_audio_buffer.append', audio: audio.toString('base64'), x: { y: 1 } }),
  );
  assert.equal(extra, plain);
  for (const message of [
    { type: 'input_audio_buffer.append', audio: '###', event_id: 'e2' },
    { type: 'input_audio_buffer.append', audio: 'abc' },
  ]) {
    const parsed = parseClientMessage(JSON.stringify(message));
    assert.ok('error' in parsed);
    if ('error' in parsed) {
      assert.is(parsed.error.error.code, 'invalid_value');
      assert.is(parsed.error.error.param, 'audio');
      assert.is(parsed.error.error.event_id, message.event_id ?? null);
      assert.match(parsed.error.error.message, /base64/);
    }
  }
  const numberId = parseClientMessage(
    JSON.stringify({ type: 'input_audio_buffer.append', audio: 'AAAA', event_id: 5 }),
  );
  assert.ok('error' in numberId, 'a non-string event_id is the schema’s to refuse');
  const noAudio = parseClientMessage(JSON.stringify({ type: 'input_audio_buffer.append' }));
  assert.ok('error' in noAudio);
});

test('a frame read from its bytes parses as its text does, whatever its shape', () => {
  const audio = Buffer.from(Array.from({ length: 960 }, (_, i) => (i * 37) % 256)).toString('base64');
  const texts = [
    `{"type":"input_audio_buffer.append","audio":"${audio}"}`,
    `{"type":"input_audio_buffer.append","audio":""}`,
    `{"type":"input_audio_buffer.append","audio":"${audio}","event_id":"e1"}`,
    `{ "type": "input_audio_buffer.append", "audio": "${audio}" }`,
    `{"type":"input_audio_buffer.append","audio":"${audio.slice(0, 8)}\\/${audio.slice(10)}"}`,
    `{"type":"input_audio_buffer.append","audio":"${audio.slice(0, 8)}\\u0041${audio.slice(9)}"}`,
    `{"type":"input_audio_buffer.append","audio":"AAé="}`,
    `{"type":"input_audio_buffer.append","audio":"AA\u00e9A"}`,
    `{"type":"input_audio_buffer.append","audio":"abc"}`,
    `{"type":"input_audio_buffer.append","audio":"AAAA"}"}`,
    `{"type":"input_audio_buffer.append","audio":"AA"AA"}`,
    `{"type":"input_audio_buffer.append","audio":"AAAA"`,
    `{"type":"input_audio_buffer.commit"}`,
    `{"type":"session.update","session":{"instructions":"dis « bonjour » 👋"}}`,
    'not json',
  ];
  for (const text of texts) {
    assert.equal(parseClientBytes(Buffer.from(text, 'utf8')), parseClientMessage(text), text.slice(0, 80));
  }
  const fast = parseClientBytes(Buffer.from(texts[0]!));
  assert.equal(fast, { command: { type: 'appendAudio', audio: Buffer.from(audio, 'base64'), clientEventId: null } });
});

test.run();
