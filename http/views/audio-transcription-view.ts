import type { AudioBill } from '../../actors/audio/audio-billing.js';
import type { TranscriptionResult } from '../../actors/audio/transcription-service.js';
import type { TimedTranscript } from '../../actors/audio/transcript-timing.js';
import { sseData } from '../../protocols/sse.js';
import { audioSvc, billHeaders } from './audio-view.js';

/** ISO-639-1 codes as Whisper names languages in `verbose_json`. */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: 'english',
  fr: 'french',
  de: 'german',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  ja: 'japanese',
  zh: 'chinese',
  ru: 'russian',
  ko: 'korean',
  pl: 'polish',
  tr: 'turkish',
  ar: 'arabic',
  hi: 'hindi',
  sv: 'swedish',
  da: 'danish',
  fi: 'finnish',
  no: 'norwegian',
  cs: 'czech',
  el: 'greek',
  uk: 'ukrainian',
};

/** A rendered transcription: its body, Content-Type and headers. */
export interface RenderedTranscription {
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

const usage = (transcript: TimedTranscript) => ({
  type: 'duration' as const,
  seconds: Math.round(transcript.durationSeconds * 1000) / 1000,
});

function verbose(transcript: TimedTranscript, bill: AudioBill, words: boolean, segments: boolean) {
  return {
    task: 'transcribe' as const,
    language: LANGUAGE_NAMES[transcript.language] ?? transcript.language,
    duration: usage(transcript).seconds,
    text: transcript.text,
    ...(segments && {
      segments: transcript.segments.map((segment, id) => ({
        id,
        seek: 0,
        start: segment.start,
        end: segment.end,
        text: segment.text,
        tokens: [],
        temperature: 0,
        avg_logprob: 0,
        compression_ratio: 1,
        no_speech_prob: 0,
        ...(segment.speaker && { speaker: segment.speaker }),
      })),
    }),
    ...(words && { words: transcript.words }),
    usage: usage(transcript),
    svc: audioSvc(bill),
  };
}

function diarized(transcript: TimedTranscript, bill: AudioBill) {
  return {
    task: 'transcribe' as const,
    duration: usage(transcript).seconds,
    text: transcript.text,
    segments: transcript.segments.map((segment, index) => ({
      type: 'transcript.text.segment' as const,
      id: `seg_${index}`,
      start: segment.start,
      end: segment.end,
      text: segment.text,
      speaker: segment.speaker ?? 'A',
    })),
    usage: usage(transcript),
    svc: audioSvc(bill),
  };
}

/** `HH:MM:SS,mmm` (SRT) or `HH:MM:SS.mmm` (WebVTT). */
function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

/** A cue's text: with speakers, `A: …` in SRT and `<v A>…` in WebVTT. */
function cueText(text: string, speaker: string | undefined, format: 'srt' | 'vtt'): string {
  if (!speaker) return text;
  return format === 'srt' ? `${speaker}: ${text}` : `<v ${speaker}>${text}`;
}

/** SRT subtitles, one cue per segment. */
export function srt(transcript: TimedTranscript): string {
  return transcript.segments
    .map(
      (s, i) =>
        `${i + 1}\n${timestamp(s.start, ',')} --> ${timestamp(s.end, ',')}\n${cueText(s.text, s.speaker, 'srt')}\n`,
    )
    .join('\n');
}

/** WebVTT subtitles, one cue per segment. */
export function vtt(transcript: TimedTranscript): string {
  return `WEBVTT\n\n${transcript.segments.map((s) => `${timestamp(s.start, '.')} --> ${timestamp(s.end, '.')}\n${cueText(s.text, s.speaker, 'vtt')}\n`).join('\n')}`;
}

/** A finished transcription in its response format (spec 2.9): JSON shapes as OpenAI's, text ones as plain text. */
export function renderTranscription({ transcript, options, bill }: TranscriptionResult): RenderedTranscription {
  const headers = billHeaders(bill);
  const json = (value: unknown): RenderedTranscription => ({
    contentType: 'application/json',
    body: JSON.stringify(value),
    headers,
  });
  const granularities = options.timestamp_granularities;
  switch (options.response_format) {
    case 'json':
      return json({ text: transcript.text, usage: usage(transcript), svc: audioSvc(bill) });
    case 'verbose_json':
      return json(
        verbose(
          transcript,
          bill,
          granularities.includes('word'),
          granularities.includes('segment') || !granularities.includes('word') || options.diarization,
        ),
      );
    case 'diarized_json':
      return json(diarized(transcript, bill));
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', body: `${transcript.text}\n`, headers };
    case 'srt':
      return { contentType: 'text/plain; charset=utf-8', body: srt(transcript), headers };
    case 'vtt':
      return { contentType: 'text/vtt; charset=utf-8', body: vtt(transcript), headers };
  }
}

/** The transcript as OpenAI's stream events: a `transcript.text.delta` per word (with its leading space), then `transcript.text.done`. */
export function transcriptionEvents({ transcript, bill }: TranscriptionResult): string[] {
  const pieces = transcript.text.split(/(?=\s)/u).filter(Boolean);
  return [
    ...pieces.map((delta) => sseData({ type: 'transcript.text.delta', delta })),
    sseData({ type: 'transcript.text.done', text: transcript.text, usage: usage(transcript), svc: audioSvc(bill) }),
  ];
}
