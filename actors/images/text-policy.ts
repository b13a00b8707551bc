import { OCR_PASSES, type OcrPass, type OcrReading, type OcrWord } from '../../backends/ocr.js';
import type { TextPolicy } from './image-plan.js';

/** What one attempt's OCR check concluded. */
export type PolicyOutcome = 'accepted' | 'text_mismatch' | 'text_found';

/** Words read with less confidence than this are noise, not text (exact policy). */
const EXACT_MIN_CONFIDENCE = 40;
/** The no-text policy only fails on words read with at least this confidence and two letters or digits. */
const NO_TEXT_MIN_CONFIDENCE = 60;

const PUNCTUATION_EQUIVALENTS: [RegExp, string][] = [
  [/[\u2018\u2019\u201a\u201b\u2032]/g, "'"],
  [/[\u201c\u201d\u201e\u201f\u2033]/g, '"'],
  [/[\u2010-\u2015\u2212]/g, '-'],
  [/\u2026/g, '...'],
];

/**
 * Text as compared: Unicode NFKC, typographic quotes, dashes and ellipses as their ASCII forms
 * (OCR reads one for the other), whitespace collapsed. Case and spelling are kept: exact means exact.
 */
export function normaliseText(text: string): string {
  let out = text.normalize('NFKC');
  for (const [pattern, replacement] of PUNCTUATION_EQUIVALENTS) out = out.replace(pattern, replacement);
  return out.replace(/\s+/g, ' ').trim();
}

const hasAlnum = (word: OcrWord, min: number) => (word.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= min;

/** The text OCR read with enough confidence to count, lines joined by a space. */
export function readText(reading: OcrReading, policy: TextPolicy): string {
  const keep =
    policy === 'no_text'
      ? (word: OcrWord) => word.confidence >= NO_TEXT_MIN_CONFIDENCE && hasAlnum(word, 2)
      : (word: OcrWord) => word.confidence >= EXACT_MIN_CONFIDENCE && (hasAlnum(word, 1) || word.confidence >= 90);
  return normaliseText(
    reading.lines
      .map((line) =>
        line
          .filter(keep)
          .map((word) => word.text)
          .join(' '),
      )
      .join(' '),
  );
}

/** Edit distance of two texts (for choosing which pass's reading to report). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * Judges one attempt by reading it in OCR passes (`OCR_PASSES`, surest first) until the verdict
 * is known: `exact` accepts as soon as one pass reads exactly the expected lines joined by spaces
 * (after {@link normaliseText}); `no_text` fails as soon as one pass reads anything counting as
 * text and accepts only when none does. Returns the reading that decided (for a mismatch, the one
 * closest to the expected text), for the repair and the report.
 */
export async function judgeText(
  policy: Exclude<TextPolicy, 'none'>,
  expected: readonly string[],
  read: (pass: OcrPass) => Promise<OcrReading>,
): Promise<{ outcome: PolicyOutcome; read: string }> {
  const want = normaliseText(expected.join(' '));
  let closest: string | null = null;
  for (const pass of OCR_PASSES) {
    const text = readText(await read(pass), policy);
    if (policy === 'no_text') {
      if (text !== '') return { outcome: 'text_found', read: text };
      continue;
    }
    if (text === want) return { outcome: 'accepted', read: text };
    if (closest === null || distance(text, want) < distance(closest, want)) closest = text;
  }
  return policy === 'no_text' ? { outcome: 'accepted', read: '' } : { outcome: 'text_mismatch', read: closest ?? '' };
}
