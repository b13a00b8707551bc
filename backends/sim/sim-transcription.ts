import { pcm16Samples, resamplePcm16, wavMonoSamples } from '../pcm16-samples.js';
import { PCM16_SAMPLE_RATE } from '../speech.js';
import {
  PCM16_BYTES_PER_SECOND,
  type Transcript,
  type TranscriptionBackend,
  type TranscriptionRequest,
} from '../transcription.js';
import { UnreadableMediaError } from '../unreadable-media-error.js';
import { readWavHeader } from '../wav-header.js';
import { seedFromBytes, SIM_WORDS_PER_SECOND, simSpeech } from './sim-media-seed.js';
import { decodeSimVoice } from './sim-voice-codec.js';
import type { SimVoicePool } from './sim-voice-pool.js';

/** MP3 has no length field: the sim estimates it at 128 kbit/s. */
const MP3_BYTES_PER_SECOND = 128_000 / 8;

function isMp3(audio: Buffer): boolean {
  if (audio.length >= 3 && audio.toString('latin1', 0, 3) === 'ID3') return true;
  return audio.length >= 2 && audio[0] === 0xff && (audio[1]! & 0xe0) === 0xe0; // frame sync
}

function durationOf(request: TranscriptionRequest): number {
  const { audio } = request;
  switch (request.format) {
    case 'wav': {
      const header = readWavHeader(audio);
      if (!header) throw new UnreadableMediaError('not a WAV file (no RIFF/WAVE header with fmt and data chunks)');
      return header.dataBytes / header.byteRate;
    }
    case 'pcm16':
      return audio.length / PCM16_BYTES_PER_SECOND;
    case 'mp3':
      if (!isMp3(audio)) throw new UnreadableMediaError('not an MP3 file (no ID3 tag or frame sync)');
      return audio.length / MP3_BYTES_PER_SECOND;
  }
}

/** What the sim voice said in PCM or 16-bit PCM WAV audio (any rate, channels mixed), or null. */
function simVoiceIn(request: TranscriptionRequest): string | null {
  if (request.format === 'pcm16') return decodeSimVoice(pcm16Samples(request.audio));
  if (request.format !== 'wav') return null;
  const wav = wavMonoSamples(request.audio);
  return wav && decodeSimVoice(resamplePcm16(wav.samples, wav.sampleRate, PCM16_SAMPLE_RATE));
}

async function transcribe(request: TranscriptionRequest, pool: SimVoicePool | null): Promise<Transcript> {
  request.signal.throwIfAborted();
  const durationSeconds = durationOf(request);
  // PCM (a realtime turn) is read on the pool's threads when there is one; the result is the same.
  const spoken =
    pool && request.format === 'pcm16' ? await pool.read(request.audio, request.signal) : simVoiceIn(request);
  if (spoken !== null) return { text: spoken, durationSeconds };
  const words = Math.round(durationSeconds * SIM_WORDS_PER_SECOND);
  return { text: simSpeech(seedFromBytes(request.audio, 'speech'), words), durationSeconds };
}

/**
 * The embedded transcriber: duration from the WAV header (PCM by its length at 24 kHz, MP3
 * estimated at 128 kbit/s); the text is what the sim voice said when PCM or WAV carries it
 * (see sim-voice-codec.ts), else a few words per second chosen by a hash of the bytes. PCM is read
 * on the pool's worker threads when one is given (a realtime turn), else at once in the loop.
 */
export function createSimTranscriptionBackend(options: { pool?: SimVoicePool | null } = {}): TranscriptionBackend {
  const pool = options.pool ?? null;
  return {
    name: 'sim',
    transcribe: (request) => Promise.resolve(request).then((taken) => transcribe(taken, pool)),
  };
}
