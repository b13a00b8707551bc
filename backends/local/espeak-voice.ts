/** The espeak-ng voice used when the language is unknown or not installed. */
export const ESPEAK_FALLBACK_VOICE = 'en-us';

// A variant per OpenAI voice so each sounds distinct, male or female as the OpenAI voice is;
// alloy, being neutral, keeps the language's own voice.
const VARIANTS: Readonly<Record<string, string>> = {
  ash: 'm3',
  ballad: 'm2',
  echo: 'm1',
  verse: 'm4',
  cedar: 'm7',
  coral: 'f3',
  sage: 'f2',
  shimmer: 'f4',
  marin: 'f1',
};

// ISO-639-1 codes whose espeak-ng voice has another name.
const LANGUAGE_VOICES: Readonly<Record<string, string>> = { en: 'en-us', fr: 'fr-fr', zh: 'cmn' };

/** The languages an `espeak-ng --voices` listing offers, including each voice's "other languages". */
export function parseEspeakLanguages(listing: string): Set<string> {
  const languages = new Set<string>();
  for (const line of listing.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1]) languages.add(fields[1].toLowerCase());
    for (const [, other] of line.matchAll(/\(([A-Za-z-]+) \d+\)/g)) languages.add(other!.toLowerCase());
  }
  return languages;
}

function languageVoice(language: string | null | undefined, installed: ReadonlySet<string>): string {
  if (!language) return ESPEAK_FALLBACK_VOICE;
  const tag = language.trim().toLowerCase().replace(/_/g, '-');
  const primary = tag.split('-')[0] ?? '';
  // An empty set means the listing failed: trust the table rather than refuse every language.
  const has = (voice: string) => installed.size === 0 || installed.has(voice);
  for (const candidate of [tag.includes('-') ? tag : null, LANGUAGE_VOICES[primary], primary]) {
    if (candidate && /^[a-z]{2,3}(-[a-z0-9]+)*$/.test(candidate) && has(candidate)) return candidate;
  }
  return ESPEAK_FALLBACK_VOICE;
}

/**
 * The espeak-ng `-v` argument for an OpenAI voice name speaking `language` (an ISO-639-1 hint,
 * optionally with a region), given the languages installed: `es+f3` for coral in Spanish,
 * `en-us` for alloy with no hint or a language espeak-ng does not have.
 */
export function espeakVoice(
  voice: string,
  language: string | null | undefined,
  installed: ReadonlySet<string>,
): string {
  const variant = VARIANTS[voice.toLowerCase()];
  const base = languageVoice(language, installed);
  return variant ? `${base}+${variant}` : base;
}
