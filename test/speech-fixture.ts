// Spoken input for realtime tests: the sim's voice codec (which the sim transcriber reads back
// exactly), or real speech from espeak-ng where it is installed.
import { espeakAvailable, createEspeakSpeechBackend } from '../backends/local/espeak-speech.js';
import { createSimSpeechBackend } from '../backends/sim/sim-speech.js';
import type { SpeechBackend } from '../backends/speech.js';

async function collect(backend: SpeechBackend, text: string, language: string | null = null): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of backend.synthesize({ text, voice: 'alloy', language, signal: AbortSignal.timeout(30_000) }))
    chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** `text` as sim-codec speech: PCM16 24 kHz that the sim transcriber turns back into `text`. */
export function simSpoken(text: string): Promise<Buffer> {
  return collect(createSimSpeechBackend(), text);
}

/** `text` spoken by espeak-ng (PCM16 24 kHz), or null when espeak-ng is not installed. */
export async function espeakSpoken(text: string, language: string | null = null): Promise<Buffer | null> {
  if (!espeakAvailable()) return null;
  return collect(createEspeakSpeechBackend(), text, language);
}
