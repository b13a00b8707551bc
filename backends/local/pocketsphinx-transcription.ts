import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TerminalError } from '../errors.js';
import { pcm16Samples, pcm16Wav, resamplePcm16, wavMonoSamples } from '../pcm16-samples.js';
import { PCM16_SAMPLE_RATE } from '../speech.js';
import type { Transcript, TranscriptionBackend, TranscriptionRequest } from '../transcription.js';
import { UnreadableMediaError } from '../unreadable-media-error.js';
import { findBinary } from './find-binary.js';

const DEFAULT_BINARY = 'pocketsphinx_continuous';
/** The acoustic model's rate. */
const MODEL_SAMPLE_RATE = 16_000;
/** Less than this is no speech worth starting the engine (and loading its model) for. */
const MIN_SECONDS = 0.1;

/** Where pocketsphinx is. */
export interface PocketsphinxOptions {
  /** The executable: a name looked up on PATH or a path (default `pocketsphinx_continuous`). */
  binary?: string;
}

/** Whether pocketsphinx_continuous (or `binary`) is on this machine; looked up once per name. */
export function pocketsphinxAvailable(binary: string = DEFAULT_BINARY): boolean {
  return findBinary(binary) !== null;
}

/** The request's audio as mono samples and their rate; UnreadableMediaError for MP3 or a WAV that is not 16-bit PCM. */
function samplesOf(request: TranscriptionRequest): { samples: Int16Array; sampleRate: number } {
  switch (request.format) {
    case 'pcm16':
      return { samples: pcm16Samples(request.audio), sampleRate: PCM16_SAMPLE_RATE };
    case 'wav': {
      const wav = wavMonoSamples(request.audio);
      if (!wav) throw new UnreadableMediaError('pocketsphinx transcription reads 16-bit PCM WAV only');
      return wav;
    }
    case 'mp3':
      throw new UnreadableMediaError('pocketsphinx transcription reads WAV or pcm16 audio, not MP3');
  }
}

/** Runs the engine to its end: its output, or why it failed (the process error and its stderr). */
function run(
  path: string,
  args: string[],
  signal: AbortSignal,
): Promise<{ stdout: string; failure: { error: Error; stderr: string } | null }> {
  return new Promise((resolve) => {
    execFile(
      path,
      args,
      { signal, killSignal: 'SIGKILL', maxBuffer: 1 << 20, encoding: 'utf8' },
      (error, stdout, stderr) => {
        resolve({ stdout, failure: error ? { error, stderr } : null });
      },
    );
  });
}

/** Why pocketsphinx failed: the last error line of its log (a missing model, mostly), else of its stderr. */
async function failureReason(logPath: string, stderr: string): Promise<string> {
  const log = await readFile(logPath, 'utf8').catch(() => '');
  for (const text of [log, stderr]) {
    const lines = text.split('\n').filter((line) => line.trim());
    const line = lines.findLast((candidate) => /ERROR|FATAL/.test(candidate)) ?? lines.at(-1);
    if (line) return line.trim();
  }
  return 'no message';
}

async function transcribe(request: TranscriptionRequest, binary: string): Promise<Transcript> {
  const { signal } = request;
  signal.throwIfAborted();
  const path = findBinary(binary);
  if (!path)
    throw new TerminalError(
      `pocketsphinx transcription: executable "${binary}" not found (install the pocketsphinx and pocketsphinx-en-us packages)`,
      'upstream_unavailable',
    );
  const { samples, sampleRate } = samplesOf(request);
  const durationSeconds = samples.length / sampleRate;
  if (durationSeconds < MIN_SECONDS) return { text: '', durationSeconds };
  const dir = await mkdtemp(join(tmpdir(), 'pocketsphinx-'));
  try {
    const wavPath = join(dir, 'audio.wav');
    const logPath = join(dir, 'log.txt');
    await writeFile(wavPath, pcm16Wav(resamplePcm16(samples, sampleRate, MODEL_SAMPLE_RATE), MODEL_SAMPLE_RATE));
    const { stdout, failure } = await run(
      path,
      ['-infile', wavPath, '-samprate', String(MODEL_SAMPLE_RATE), '-logfn', logPath],
      signal,
    );
    if (failure) {
      signal.throwIfAborted();
      throw new TerminalError(
        `pocketsphinx transcription failed: ${await failureReason(logPath, failure.stderr)}`,
        'upstream_error',
        { cause: failure.error },
      );
    }
    // One line per utterance it heard.
    const text = stdout
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .join(' ');
    return { text, durationSeconds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Transcription by the local pocketsphinx engine (CMU Sphinx, US English model): the audio
 * resampled to 16 kHz mono, written to a temporary WAV and read by `pocketsphinx_continuous`.
 * English only whatever the language hint; MP3 is refused. Abort kills the process.
 */
export function createPocketsphinxTranscriptionBackend(options: PocketsphinxOptions = {}): TranscriptionBackend {
  const binary = options.binary ?? DEFAULT_BINARY;
  return { name: 'pocketsphinx', transcribe: (request) => transcribe(request, binary) };
}
