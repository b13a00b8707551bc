// What every active call says, over and over: one short sentence in the sim's voice (tones the
// server's VAD hears as speech and the sim transcriber reads back exactly), then silence long
// enough for the server VAD to end the turn. Cut into 20 ms `input_audio_buffer.append` messages,
// encoded once and shared by every call.
import { createSimSpeechBackend } from '../../backends/sim/sim-speech.js';
import { PCM16_BYTES_PER_SECOND } from '../../backends/transcription.js';

/** Input audio is sent as one append per this many ms, as a live microphone would. */
export const INPUT_FRAME_MS = 20;

const FRAME_BYTES = (PCM16_BYTES_PER_SECOND / 1000) * INPUT_FRAME_MS;

/** One turn of the caller, as ready-to-send messages. */
export interface SpeechLoop {
  sentence: string;
  /** JSON text of each speech frame's append, in order. */
  speech: string[];
  /** JSON text of a silent frame's append (every silent frame is the same). */
  silence: string;
  /** Silent frames after the speech. */
  silenceFrames: number;
  /** Speech plus silence, ms. */
  cycleMs: number;
}

function append(pcm: Buffer): string {
  return JSON.stringify({ type: 'input_audio_buffer.append', audio: pcm.toString('base64') });
}

/** The sentence spoken by the sim speech backend, padded to whole frames, then `silenceMs` of silence. */
export async function buildSpeechLoop(sentence: string, silenceMs: number): Promise<SpeechLoop> {
  const chunks: Buffer[] = [];
  for await (const chunk of createSimSpeechBackend().synthesize({
    text: sentence,
    voice: 'alloy',
    signal: new AbortController().signal,
  }))
    chunks.push(chunk);
  const pcm = Buffer.concat(chunks);
  const speech: string[] = [];
  for (let at = 0; at < pcm.length; at += FRAME_BYTES) {
    const frame = Buffer.alloc(FRAME_BYTES); // the last frame is padded with silence
    pcm.copy(frame, 0, at, Math.min(pcm.length, at + FRAME_BYTES));
    speech.push(append(frame));
  }
  const silenceFrames = Math.ceil(silenceMs / INPUT_FRAME_MS);
  return {
    sentence,
    speech,
    silence: append(Buffer.alloc(FRAME_BYTES)),
    silenceFrames,
    cycleMs: (speech.length + silenceFrames) * INPUT_FRAME_MS,
  };
}
