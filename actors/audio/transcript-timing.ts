import type { Transcript, TranscriptSegment, TranscriptWord } from '../../backends/transcription.js';

/** A transcript with everything a response format may show: language, segments and word times. */
export interface TimedTranscript {
  text: string;
  durationSeconds: number;
  /** ISO-639-1. */
  language: string;
  segments: TranscriptSegment[];
  words: TranscriptWord[];
}

/** Longest segment made when the engine gives none, in words. */
const MAX_SEGMENT_WORDS = 30;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;
const round3 = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** Sentences (cut after . ! ?), long ones cut again every MAX_SEGMENT_WORDS words. */
export function splitSegments(text: string): string[] {
  const sentences = text
    .split(/(?<=[.!?…])\s+/u)
    .map((part) => part.trim())
    .filter(Boolean);
  return sentences.flatMap((sentence) => {
    const words = sentence.split(/\s+/);
    const pieces: string[] = [];
    for (let at = 0; at < words.length; at += MAX_SEGMENT_WORDS)
      pieces.push(words.slice(at, at + MAX_SEGMENT_WORDS).join(' '));
    return pieces;
  });
}

/** Pieces of text laid over `[start, end]` in proportion to their length in characters. */
function spread<T>(
  pieces: readonly string[],
  start: number,
  end: number,
  make: (piece: string, from: number, to: number) => T | null,
): T[] {
  const total = pieces.reduce((sum, piece) => sum + piece.length + 1, 0) || 1;
  const out: T[] = [];
  let done = 0;
  for (const piece of pieces) {
    const at = (chars: number) => round3(start + ((end - start) * chars) / total);
    const made = make(piece, at(done), at(done + piece.length));
    if (made) out.push(made);
    done += piece.length + 1;
  }
  return out;
}

/**
 * Fills in what an engine did not give: the language (the caller's hint, else English), segments
 * (sentences laid over the audio in proportion to their length) and word times (laid over their
 * segment the same way). Speaker labels are kept only when asked for; an engine that tells no
 * speakers apart labels every segment `A`.
 */
export function completeTimings(
  transcript: Transcript,
  options: { language: string | null; speakers: boolean },
): TimedTranscript {
  const duration = transcript.durationSeconds;
  const language = (transcript.language ?? options.language?.split('-')[0] ?? 'en').toLowerCase();
  let segments: TranscriptSegment[] = transcript.segments?.length
    ? transcript.segments
    : spread(splitSegments(transcript.text), 0, duration, (text, start, end) => ({ start, end, text }));
  segments = segments.map(({ speaker, ...segment }) =>
    options.speakers ? { ...segment, speaker: speaker ?? 'A' } : segment,
  );
  const words =
    transcript.words ??
    segments.flatMap((segment) =>
      spread(segment.text.split(/\s+/).filter(Boolean), segment.start, segment.end, (piece, start, end) => {
        const word = piece.replace(EDGE_PUNCTUATION, '');
        return word ? { word, start, end } : null;
      }),
    );
  return { text: transcript.text, durationSeconds: duration, language, segments, words };
}
