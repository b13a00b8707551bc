import { execFile, spawn } from 'node:child_process';
import { TerminalError } from '../errors.js';
import { PCM16_SAMPLE_RATE, type SpeechBackend, type SpeechRequest } from '../speech.js';
import { WavStreamDecoder } from '../wav-stream-decoder.js';
import { espeakVoice, parseEspeakLanguages } from './espeak-voice.js';
import { findBinary } from './find-binary.js';

const DEFAULT_BINARY = 'espeak-ng';
const STDERR_LIMIT = 2048;

/** Where espeak-ng is and how fast it talks. */
export interface EspeakSpeechOptions {
  /** The executable: a name looked up on PATH or a path (default `espeak-ng`). */
  binary?: string;
  /** Speaking rate (`-s`); espeak-ng's own default (175) when absent. */
  wordsPerMinute?: number;
}

/** Whether the espeak-ng executable (or `binary`) is on this machine; looked up once per name. */
export function espeakAvailable(binary: string = DEFAULT_BINARY): boolean {
  return findBinary(binary) !== null;
}

const languageLists = new Map<string, Promise<Set<string>>>();

/** The languages this espeak-ng installation has (an empty set when it cannot list them), once per binary. */
function installedLanguages(path: string): Promise<Set<string>> {
  let languages = languageLists.get(path);
  if (!languages) {
    languages = new Promise((resolve) => {
      execFile(path, ['--voices'], { timeout: 10_000 }, (error, stdout) =>
        resolve(error ? new Set() : parseEspeakLanguages(stdout)),
      );
    });
    languageLists.set(path, languages);
  }
  return languages;
}

function unavailable(binary: string): TerminalError {
  return new TerminalError(
    `espeak-ng speech: executable "${binary}" not found (install the espeak-ng package)`,
    'upstream_unavailable',
  );
}

async function* synthesize(
  request: SpeechRequest,
  binary: string,
  wordsPerMinute: number | undefined,
): AsyncGenerator<Buffer, void, undefined> {
  const { signal } = request;
  signal.throwIfAborted();
  const path = findBinary(binary);
  if (!path) throw unavailable(binary);
  if (!request.text.trim()) return;
  const voice = espeakVoice(request.voice, request.language, await installedLanguages(path));
  signal.throwIfAborted();
  const args = ['--stdout', '--stdin', '-b', '1', '-v', voice];
  if (wordsPerMinute) args.push('-s', String(Math.round(wordsPerMinute)));
  // Text goes in on stdin: never a shell, and a text starting with "-" is not an option.
  const child = spawn(path, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code }));
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    if (stderr.length < STDERR_LIMIT) stderr += text;
  });
  // An early exit closes the pipe under us; the exit code tells the story, not EPIPE.
  child.stdin.on('error', () => undefined);
  child.stdin.end(request.text, 'utf8');
  const kill = () => child.kill('SIGKILL');
  signal.addEventListener('abort', kill, { once: true });
  try {
    const decoder = new WavStreamDecoder(PCM16_SAMPLE_RATE);
    for await (const data of child.stdout as AsyncIterable<Buffer>) {
      let pcm: Buffer;
      try {
        pcm = decoder.push(data);
      } catch (err) {
        throw new TerminalError(`espeak-ng speech: ${(err as Error).message}`, 'upstream_error', { cause: err });
      }
      if (pcm.length) yield pcm;
      signal.throwIfAborted();
    }
    const { code, error } = await exited;
    signal.throwIfAborted();
    if (error)
      throw new TerminalError(`espeak-ng speech: could not run "${path}": ${error.message}`, 'upstream_unavailable', {
        cause: error,
      });
    if (code !== 0)
      throw new TerminalError(
        `espeak-ng speech: exited with code ${code} for voice ${voice}: ${stderr.trim() || 'no message'}`,
      );
  } finally {
    signal.removeEventListener('abort', kill);
    // The caller stopped early (or we failed): leave no engine running.
    if (child.exitCode === null && child.signalCode === null) kill();
  }
}

/**
 * Speech from the local espeak-ng engine: its streamed WAV (22,050 Hz on stock voice data)
 * resampled to PCM16 24 kHz and yielded as stdout delivers it. The OpenAI voice picks a male or
 * female variant and `language` the espeak-ng voice (en-us when absent or not installed). Abort
 * kills the process; a missing executable or a failed run is a TerminalError.
 */
export function createEspeakSpeechBackend(options: EspeakSpeechOptions = {}): SpeechBackend {
  const binary = options.binary ?? DEFAULT_BINARY;
  return { name: 'espeak-ng', synthesize: (request) => synthesize(request, binary, options.wordsPerMinute) };
}
