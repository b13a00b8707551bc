// Audio for the audio suites: sim-voice speech in any container (made by ffmpeg from the sim's
// PCM), probing and decoding answers, and the account's money before and after.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pcm16Samples, pcm16Wav } from '../backends/pcm16-samples.js';
import { encodeSimVoice } from '../backends/sim/sim-voice-codec.js';
import { ffprobe, type ProbeResult } from '../backends/ffmpeg/ffmpeg.js';
import type { TestAccount, TestServer } from './harness.js';

/** Containers the transcription suites send, with the ffmpeg output options that make each. */
export const INPUT_CONTAINERS: Record<string, string[]> = {
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  mp3: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
  ogg: ['-c:a', 'libvorbis', '-f', 'ogg'],
  webm: ['-c:a', 'libopus', '-b:a', '48k', '-f', 'webm'],
  m4a: ['-c:a', 'aac', '-b:a', '96k', '-f', 'mp4'],
};

/** `text` as sim voice, PCM16 24 kHz mono, with `padSeconds` of silence before and after. */
export function simVoicePcm(text: string, padSeconds = 0.2): Buffer {
  const pad = Buffer.alloc(Math.round(padSeconds * 24_000) * 2);
  return Buffer.concat([pad, encodeSimVoice(text), pad]);
}

/** `text` as sim voice in a WAV file. */
export function simVoiceWav(text: string, padSeconds = 0.2): Buffer {
  return pcm16Wav(pcm16Samples(simVoicePcm(text, padSeconds)), 24_000);
}

/** Runs ffmpeg on `input` (a file written to a scratch directory), returning its output file. */
export function ffmpegFile(input: Buffer, inputName: string, outputArgs: string[], outputName = 'out.bin'): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'audio-fixture-'));
  try {
    const from = join(dir, inputName);
    const to = join(dir, outputName);
    writeFileSync(from, input);
    execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', from, ...outputArgs, to]);
    return readFileSync(to);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A WAV re-encoded in one of INPUT_CONTAINERS. */
export function inContainer(wav: Buffer, container: string): Buffer {
  return ffmpegFile(wav, 'in.wav', INPUT_CONTAINERS[container]!, `out.${container}`);
}

/** A tone of `hz` for `seconds` as WAV (24 kHz mono). */
export function toneWav(seconds: number, hz = 220, amplitude = 0.3): Buffer {
  const samples = new Int16Array(Math.round(seconds * 24_000));
  for (let n = 0; n < samples.length; n++)
    samples[n] = Math.round(amplitude * 32_767 * Math.sin((2 * Math.PI * hz * n) / 24_000));
  return pcm16Wav(samples, 24_000);
}

/** What ffprobe says of answered audio. */
export function probe(bytes: Buffer): Promise<ProbeResult> {
  return ffprobe(bytes);
}

/** Answered audio decoded to PCM16 samples (mono or interleaved stereo) at its own rate. */
export function decodeSamples(bytes: Buffer, channels = 1, rate = 24_000): Int16Array {
  const pcm = ffmpegFile(bytes, 'in.bin', ['-ac', String(channels), '-ar', String(rate), '-f', 's16le'], 'out.pcm');
  return pcm16Samples(Buffer.from(pcm));
}

/** The account's balance in USD. */
export async function balanceOf(server: TestServer, account: TestAccount): Promise<number> {
  const res = await server.request('GET', '/v1/account', { token: account.token });
  return res.body.balance_usd as number;
}

/** The account's newest ledger entry. */
export async function lastEntry(
  server: TestServer,
  account: TestAccount,
): Promise<{ amount_usd: number; description: string; type: string } | undefined> {
  const res = await server.request('GET', '/v1/account/usage', { token: account.token });
  return res.body.recent[0];
}

/** USD difference, rounded to the micro-dollar (floats on the wire). */
export const usdDiff = (before: number, after: number) => Math.round((before - after) * 1e6) / 1e6;
