// The audio scenario: speech time to first audio byte and real-time factor, transcription
// real-time factor, and concurrent transcriptions per second, each against the gateway (a child
// process, as `npm start` runs it) and beside a same-run baseline that calls the same engine and
// encoder directly in this process (no HTTP, no auth, no billing). Local engines (espeak-ng,
// pocketsphinx) get rows of their own where they are installed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { createFfmpegAudioCodec } from '../../backends/audio/ffmpeg-audio-codec.js';
import { createSpeechBackend } from '../../backends/create-voice-backends.js';
import { espeakAvailable } from '../../backends/local/espeak-speech.js';
import {
  createPocketsphinxTranscriptionBackend,
  pocketsphinxAvailable,
} from '../../backends/local/pocketsphinx-transcription.js';
import { pcm16Samples, pcm16Wav } from '../../backends/pcm16-samples.js';
import { createSimTimedTranscriptionBackend } from '../../backends/sim/sim-timed-transcription.js';
import { encodeSimVoice } from '../../backends/sim/sim-voice-codec.js';
import type { SpeechBackend } from '../../backends/speech.js';
import type { TranscriptionBackend } from '../../backends/transcription.js';
import { startGateway, type ServerUnderTest } from '../load/servers.js';

/** Settings of the audio scenario. */
export interface AudioBenchSettings {
  /** Sequential requests per speech and transcription figure. */
  requests: number;
  /** Concurrent transcriptions in flight, and for how long (ms). */
  concurrency: number;
  durationMs: number;
  inProcess: boolean;
  target: { url: string; token: string } | null;
  /** Also measure espeak-ng and pocketsphinx where installed (default true). */
  localEngines?: boolean;
  onStep?: (text: string) => void;
}

/** One row: a figure for us or its baseline. */
export interface AudioRow {
  figure: 'speech' | 'transcription' | 'concurrent transcription';
  engine: string;
  role: 'ours' | 'baseline';
  name: string;
  /** Speech: send → first body byte, p50 / p99 ms. */
  firstByteMs?: { p50: number; p99: number };
  /** Wall time ÷ audio time (under 1 is faster than real time), p50 over requests. */
  realTimeFactor?: number;
  /** Concurrent transcriptions completed per second. */
  perSecond?: number;
  audioSeconds: number;
  errors: number;
}

/** The scenario's report. */
export interface AudioReport {
  scenario: 'audio';
  requests: number;
  concurrency: number;
  durationMs: number;
  rows: AudioRow[];
}

const SENTENCE =
  'The committee will publish its findings on the fourteenth, after a final review of the budget and the schedule for next year.';
const SHORT = 'Please call me back when you have a minute.';
const signal = () => new AbortController().signal;
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

type Runs = { first: number[]; total: number[]; errors: number };
type Run = () => Promise<{ firstMs: number; totalMs: number }>;

/**
 * Times `count` runs of ours and of the baseline, alternating (one warm-up pair first), so load
 * from anything else on the machine falls on both alike.
 */
async function timePairs(count: number, ours: Run, baseline: Run): Promise<{ ours: Runs; baseline: Runs }> {
  const result = {
    ours: { first: [], total: [], errors: 0 } as Runs,
    baseline: { first: [], total: [], errors: 0 } as Runs,
  };
  for (let i = -1; i < count; i++) {
    for (const [runs, once] of [
      [result.ours, ours],
      [result.baseline, baseline],
    ] as const) {
      try {
        const run = await once();
        if (i >= 0) {
          runs.first.push(run.firstMs);
          runs.total.push(run.totalMs);
        }
      } catch {
        runs.errors++;
      }
    }
  }
  return result;
}

async function speechOverHttp(pool: Pool, token: string): Promise<{ firstMs: number; totalMs: number }> {
  const started = performance.now();
  const res = await pool.request({
    method: 'POST',
    path: '/v1/audio/speech',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'pro-1', input: SENTENCE, voice: 'alloy' }),
  });
  if (res.statusCode !== 200) throw new Error(`speech → ${res.statusCode} ${await res.body.text()}`);
  let firstMs = 0;
  for await (const chunk of res.body)
    if (!firstMs && (chunk as Buffer).length > 0) firstMs = performance.now() - started;
  return { firstMs, totalMs: performance.now() - started };
}

async function speechDirect(engine: SpeechBackend): Promise<{ firstMs: number; totalMs: number }> {
  const started = performance.now();
  const codec = createFfmpegAudioCodec();
  let firstMs = 0;
  const pcm = engine.synthesize({ text: SENTENCE, voice: 'alloy', signal: signal() });
  for await (const chunk of codec.encode(pcm, {
    format: 'mp3',
    shape: { sampleRate: 24_000, channels: 1 },
    signal: signal(),
  }))
    if (!firstMs && chunk.length > 0) firstMs = performance.now() - started;
  return { firstMs, totalMs: performance.now() - started };
}

function speechRow(engine: string, role: AudioRow['role'], name: string, runs: Runs, audioSeconds: number): AudioRow {
  return {
    figure: 'speech',
    engine,
    role,
    name,
    firstByteMs: { p50: round(percentile(runs.first, 50)), p99: round(percentile(runs.first, 99)) },
    realTimeFactor: round(percentile(runs.total, 50) / 1000 / audioSeconds, 4),
    audioSeconds: round(audioSeconds),
    errors: runs.errors,
  };
}

function multipart(file: Buffer, filename: string): { body: Buffer; type: string } {
  const boundary = `bench${Math.random().toString(36).slice(2)}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\npro-1\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

async function transcribeOverHttp(pool: Pool, token: string, form: { body: Buffer; type: string }): Promise<number> {
  const started = performance.now();
  const res = await pool.request({
    method: 'POST',
    path: '/v1/audio/transcriptions',
    headers: { authorization: `Bearer ${token}`, 'content-type': form.type },
    body: form.body,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`transcription → ${res.statusCode} ${text.slice(0, 200)}`);
  return performance.now() - started;
}

async function transcribeDirect(engine: TranscriptionBackend, path: string): Promise<number> {
  const started = performance.now();
  const decoded = await createFfmpegAudioCodec().decode(
    { path },
    { sampleRate: 24_000, maxSeconds: 1500, signal: signal() },
  );
  await engine.transcribe({ audio: decoded.pcm, format: 'pcm16', signal: signal(), detail: { words: false } });
  return performance.now() - started;
}

/** Completions per second with `concurrency` lanes for `durationMs`. */
async function throughput(
  concurrency: number,
  durationMs: number,
  once: () => Promise<unknown>,
): Promise<{ perSecond: number; errors: number }> {
  let done = 0;
  let errors = 0;
  const until = performance.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        try {
          await once();
          done++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { perSecond: round(done / ((performance.now() - started) / 1000), 1), errors };
}

/** The gateway with `env`, or the `--target` deployment. */
async function gateway(
  settings: AudioBenchSettings,
  env: Record<string, string>,
): Promise<ServerUnderTest & { token: string }> {
  const server = settings.target
    ? { url: settings.target.url, token: settings.target.token, sample: null, close: () => Promise.resolve() }
    : await startGateway({ inProcess: settings.inProcess, env });
  return { ...server, token: server.token ?? '' };
}

/** Runs every audio figure with its baseline. */
export async function runAudioBench(settings: AudioBenchSettings): Promise<AudioReport> {
  const step = settings.onStep ?? (() => undefined);
  const rows: AudioRow[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'svc-audio-bench-'));
  const codec = createFfmpegAudioCodec();
  try {
    // Inputs: a 10 s sim-voice clip (MP3) for the real-time factor and a short WAV for throughput.
    const longPcm = Buffer.concat([encodeSimVoice(SENTENCE), Buffer.alloc(24_000 * 2)]);
    const longMp3 = await collect(
      codec.encode(once(longPcm), { format: 'mp3', shape: { sampleRate: 24_000, channels: 1 }, signal: signal() }),
    );
    const longPath = join(scratch, 'long.mp3');
    writeFileSync(longPath, longMp3);
    const longSeconds = longPcm.length / 48_000;
    const shortWav = pcm16Wav(pcm16Samples(encodeSimVoice(SHORT)), 24_000);
    const shortPath = join(scratch, 'short.wav');
    writeFileSync(shortPath, shortWav);

    const engines: {
      name: string;
      env: Record<string, string>;
      speech: SpeechBackend;
      transcription: TranscriptionBackend;
      requests: number;
    }[] = [
      {
        name: 'sim',
        env: {},
        speech: createSpeechBackend('sim'),
        transcription: createSimTimedTranscriptionBackend(),
        requests: settings.requests,
      },
    ];
    if ((settings.localEngines ?? true) && espeakAvailable() && pocketsphinxAvailable() && !settings.target) {
      // pocketsphinx takes about a quarter of real time: fewer runs keep the scenario under a minute.
      const requests = Math.min(3, settings.requests);
      engines.push({
        name: 'espeak-ng / pocketsphinx',
        env: { SVC_SPEECH_BACKEND: 'espeak-ng', SVC_TRANSCRIPTION_BACKEND: 'pocketsphinx' },
        speech: createSpeechBackend('espeak-ng'),
        transcription: createPocketsphinxTranscriptionBackend(),
        requests,
      });
    }
    for (const engine of engines) {
      const { requests } = engine;
      const server = await gateway(settings, engine.env);
      const pool = new Pool(server.url, { connections: settings.concurrency + 1, pipelining: 1 });
      try {
        const speechSeconds = await spokenSeconds(pool, server.token);
        step(`audio: ${engine.name}, speech and transcription, gateway and direct alternating`);
        const speech = await timePairs(
          requests,
          () => speechOverHttp(pool, server.token),
          () => speechDirect(engine.speech),
        );
        rows.push(
          speechRow(engine.name, 'ours', 'svc gateway, POST /v1/audio/speech (mp3)', speech.ours, speechSeconds),
        );
        rows.push(
          speechRow(engine.name, 'baseline', 'engine + ffmpeg encoder, in process', speech.baseline, speechSeconds),
        );
        const form = multipart(longMp3, 'long.mp3');
        const heard = await timePairs(
          requests,
          async () => ({ firstMs: 0, totalMs: await transcribeOverHttp(pool, server.token, form) }),
          async () => ({ firstMs: 0, totalMs: await transcribeDirect(engine.transcription, longPath) }),
        );
        rows.push({
          figure: 'transcription',
          engine: engine.name,
          role: 'ours',
          name: 'svc gateway, POST /v1/audio/transcriptions (mp3, multipart)',
          realTimeFactor: round(percentile(heard.ours.total, 50) / 1000 / longSeconds, 4),
          audioSeconds: round(longSeconds),
          errors: heard.ours.errors,
        });
        rows.push({
          figure: 'transcription',
          engine: engine.name,
          role: 'baseline',
          name: 'ffmpeg decoder + engine, in process',
          realTimeFactor: round(percentile(heard.baseline.total, 50) / 1000 / longSeconds, 4),
          audioSeconds: round(longSeconds),
          errors: heard.baseline.errors,
        });
        step(`audio: ${engine.name}, ${settings.concurrency} concurrent transcriptions, gateway then direct`);
        const shortForm = multipart(shortWav, 'short.wav');
        const concurrent = await throughput(settings.concurrency, settings.durationMs, () =>
          transcribeOverHttp(pool, server.token, shortForm),
        );
        rows.push({
          figure: 'concurrent transcription',
          engine: engine.name,
          role: 'ours',
          name: `svc gateway, ${settings.concurrency} in flight (${round(shortWav.length / 48_000)} s wav)`,
          perSecond: concurrent.perSecond,
          audioSeconds: round(shortWav.length / 48_000),
          errors: concurrent.errors,
        });
        const directConcurrent = await throughput(settings.concurrency, settings.durationMs, () =>
          transcribeDirect(engine.transcription, shortPath),
        );
        rows.push({
          figure: 'concurrent transcription',
          engine: engine.name,
          role: 'baseline',
          name: `ffmpeg decoder + engine, ${settings.concurrency} in flight`,
          perSecond: directConcurrent.perSecond,
          audioSeconds: round(shortWav.length / 48_000),
          errors: directConcurrent.errors,
        });
      } finally {
        await pool.close();
        await server.close();
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return {
    scenario: 'audio',
    requests: settings.requests,
    concurrency: settings.concurrency,
    durationMs: settings.durationMs,
    rows,
  };
}

/** How long the benchmark sentence is when spoken (one probe request, as PCM). */
async function spokenSeconds(pool: Pool, token: string): Promise<number> {
  const res = await pool.request({
    method: 'POST',
    path: '/v1/audio/speech',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ input: SENTENCE, response_format: 'pcm' }),
  });
  const bytes = (await res.body.arrayBuffer()).byteLength;
  if (res.statusCode !== 200) throw new Error(`speech probe → ${res.statusCode}`);
  return bytes / 48_000;
}

async function* once(pcm: Buffer): AsyncGenerator<Buffer, void, undefined> {
  yield pcm;
  await Promise.resolve();
}

async function collect(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}
