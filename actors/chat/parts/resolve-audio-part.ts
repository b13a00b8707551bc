import type { AudioFormat } from '../../../backends/transcription.js';
import { countTokens } from '../../../protocols/tokens.js';
import type { ContentPart } from '../../../protocols/chat.js';
import { decodeInlineMedia } from './load-media.js';
import { formatSeconds } from './media-labels.js';
import type { ResolveContext, ResolvedPart } from './part-context.js';
import { callMediaBackend, partError } from './part-errors.js';

type AudioPart = Extract<ContentPart, { type: 'input_audio' }>;

/** The `input_audio.format` names accepted, and the encoding each means. */
const FORMATS = new Map<string, AudioFormat>([
  ['wav', 'wav'],
  ['mp3', 'mp3'],
  ['pcm16', 'pcm16'],
  ['pcm', 'pcm16'],
]);

/** An `input_audio` part as text: `[audio transcript, 3.2 s: <text>]`. */
export async function resolveAudioPart(part: AudioPart, at: string, context: ResolveContext): Promise<ResolvedPart> {
  const label = `the audio in ${at}`;
  const { data, format: name } = part.input_audio;
  const format = FORMATS.get(name.toLowerCase());
  if (!format)
    throw partError(
      { label, param: `${at}.input_audio.format` },
      `Unsupported audio format "${name}" in ${at}; use wav, mp3 or pcm16 (24 kHz mono).`,
    );
  const ref = { label, param: `${at}.input_audio.data` };
  const audio = decodeInlineMedia(data, ref, context.options.fetch.maxBytes);
  const transcript = await callMediaBackend(ref, () =>
    context.options.transcription.transcribe({ audio, format, signal: context.signal }),
  );
  const text = `[audio transcript, ${formatSeconds(transcript.durationSeconds)}: ${transcript.text || '(no speech)'}]`;
  return { text, generatedTokens: countTokens(text) };
}
