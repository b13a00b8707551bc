// Does a user's turn (a transcript or a typed message) end the call? Pure and table-driven.
//
// The rule that carries the weight: a farewell counts only as the WHOLE last meaningful clause of
// the turn, made of known lead-ins ("ok", "thanks"), the phrase, and known trailers ("then",
// "for now", a name). So "bye" mid-sentence, "how do you say goodbye", "don't hang up",
// "no cuelgues", "ne raccroche pas", "пока я думаю…" and "我不想说再见" never match: what precedes
// the phrase is not a lead-in. Quoted text is masked, and a question is not a farewell (though
// "can you hang up?" is a request).

import {
  TABLES,
  UNIVERSAL_FAREWELL,
  UNIVERSAL_LEAD,
  UNIVERSAL_TRAIL,
  type LanguageTable,
  type Reason,
} from './farewell-phrases.js';

/** What a user turn says about ending the call. */
export interface FarewellVerdict {
  ending: boolean;
  reason: 'farewell' | 'hang_up_request' | null;
  /** ISO-639-1 code of the language whose phrase matched. */
  language: string | null;
}

// ---- Normalisation -------------------------------------------------------------------------------

const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;
const ARABIC_MARKS = /[\u064b-\u065f\u0670\u0640]/g; // harakat, dagger alif, tatweel
const LETTER_MAP: Record<string, string> = {
  ß: 'ss',
  ł: 'l',
  ı: 'i',
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  đ: 'd',
  ё: 'е',
  أ: 'ا',
  إ: 'ا',
  آ: 'ا',
  ٱ: 'ا',
  ى: 'ي',
  ة: 'ه',
};
const MAPPED_LETTERS = /[ßłıøæœđёأإآٱىة]/g;

/**
 * Text all ASCII: every Unicode normalisation form leaves it as it is, lowercasing keeps it ASCII,
 * and none of the marks, mapped letters, invisible characters, symbols or typographic quotes below
 * is ASCII (checked for all 128 when this was written), so folding and clause splitting take their
 * short ways with the same result.
 */
const ASCII = /^[\x00-\x7f]*$/;

/** Case, accents (Latin only: kana voicing, Devanagari vowels and й must stay) and spelling variants folded. */
function fold(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase().replace(/`/g, "'");
  return text
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(LATIN_MARKS, '$1')
    .normalize('NFC')
    .replace(/[’‘ʼ`]/g, "'")
    .replace(MAPPED_LETTERS, (letter) => LETTER_MAP[letter] ?? letter)
    .replace(ARABIC_MARKS, '')
    .replace(/\u093c/g, ''); // Devanagari nukta: फ़ोन and फोन are both written
}

// Runs of one character are cut to two ("byeee" stays "byee", "ㅋㅋㅋㅋ" becomes "ㅋㅋ"), which keeps the
// patterns free of `x+` on single letters and the matching linear.
const REPEATS = /(.)\1{2,}/gu;

/** One written word folded for matching; the word "à" keeps its accent (French "à plus", "à+" are not the grade "A plus"). */
function foldWord(raw: string): string {
  const folded = fold(raw).replace(/\s+/g, '').replace(REPEATS, '$1$1');
  return ASCII.test(raw)
    ? folded
    : /^à(?!\p{L})/u.test(raw.normalize('NFC').toLowerCase())
      ? `à${folded.slice(1)}`
      : folded;
}

const INVISIBLE = /[\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
// Quoted text is a mention ("he said 'goodbye'"), never a farewell: it becomes one opaque word.
const QUOTED = [
  /"[^"]*(?:"|$)/g,
  /“[^“”]*(?:[“”]|$)/g,
  /„[^“”]*(?:[“”]|$)/g,
  /«[^»]*(?:»|$)/g,
  /‹[^›]*(?:›|$)/g,
  /「[^」]*(?:」|$)/g,
  /『[^』]*(?:』|$)/g,
  /‘[^’]*(?:’|$)/g,
  /(?<=^|[\s(])'[^']+'(?=$|[\s.,!?;:)])/g,
];
/** The quotes an ASCII text can hold (the others open with a typographic mark). */
const ASCII_QUOTED = [QUOTED[0]!, QUOTED[8]!];
const MENTION = ' ⟨quote⟩ ';
const SYMBOLS = /[\p{Extended_Pictographic}\p{So}\p{Emoji_Modifier}\ufe0f\u20e3]/gu;
const EMOTICON = /(?<=^|\s)(?:[:;=8][-'^o]?[()[\]dDpP3oO|\\/*]+|\^_*\^|<3+)(?=$|\s)/g;
const WORD_HYPHEN = /(?<=\p{L})[-‐‑‒](?=\p{L})/gu; // "good-bye", "пока-пока", "déconnecte-toi"
const TITLE_DOT = /(?<=^|\s)(Mr|Mrs|Ms|Dr|Prof|Sr|Sra|Srta|Mme|Mlle|Hr|Fr|Sig)\./g; // "Mr. Smith" is one clause
const DELIMITERS = /([.,!?;:…。、，！？；：¡¿()[\]{}|/\\~〜～・،؛؟।॥*_—–\-\n\r\t]+)/u;
/** Only the end of a turn matters; a long message is cut to its tail. */
const TAIL_CHARS = 600;

interface Clause {
  /** Words as written (for capitalised names). */
  raw: string[];
  folded: string;
  question: boolean;
  /** Set off from the previous clause by a comma only, as a name is: "bye, Anna". */
  afterComma: boolean;
}

function clausesOf(text: string): Clause[] {
  const ascii = ASCII.test(text);
  let prepared = ascii ? text.slice(-TAIL_CHARS) : text.normalize('NFKC').slice(-TAIL_CHARS).replace(INVISIBLE, '');
  for (const quoted of ascii ? ASCII_QUOTED : QUOTED) prepared = prepared.replace(quoted, MENTION);
  prepared = prepared.replace(EMOTICON, ' ');
  if (!ascii) prepared = prepared.replace(SYMBOLS, ' ');
  prepared = prepared.replace(WORD_HYPHEN, ' ').replace(TITLE_DOT, '$1');
  const parts = prepared.split(DELIMITERS);
  const clauses: Clause[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const before = parts[i - 1] ?? '';
    const after = parts[i + 1] ?? '';
    const words = parts[i]!.split(/\s+/)
      .map((raw) => ({ raw, folded: foldWord(raw) }))
      .filter((word) => word.folded !== '');
    if (words.length === 0) continue;
    clauses.push({
      raw: words.map((word) => word.raw),
      folded: words.map((word) => word.folded).join(' '),
      question: /[?؟]/.test(after) || before.includes('¿'),
      afterComma: /^[\s,、،]+$/.test(before),
    });
  }
  return clauses;
}

// ---- Matching ------------------------------------------------------------------------------------

interface CompiledTable {
  language: string;
  unspaced: boolean;
  strict: RegExp;
  loose: RegExp;
  looseAfterLead: RegExp;
  hang: RegExp;
  hangAsked: RegExp;
  trailOnly: RegExp;
  /** A clause made only of this language's words: evidence for it when several languages match. */
  vocabulary: RegExp;
  /** Every text `hang`, `hangAsked`, `strict`, `loose` or `looseAfterLead` matches, and more (unanchored source). */
  maybe: string;
}

function compile(table: LanguageTable): CompiledTable {
  const sep = table.unspaced ? ' ?' : ' ';
  const alt = (patterns: string[]) => `(?:${patterns.map((pattern) => fold(pattern).replace(/ /g, sep)).join('|')})`;
  const farewells = [...UNIVERSAL_FAREWELL, ...table.phrases].filter((rule) => rule.reason === 'farewell');
  const finals = alt(farewells.filter((rule) => rule.final).map((rule) => rule.pattern));
  const any = alt(farewells.map((rule) => rule.pattern));
  const hangUps = table.phrases.filter((rule) => rule.reason === 'hang_up_request');
  const hang = alt(hangUps.map((rule) => rule.pattern));
  const asking = hangUps.filter((rule) => rule.asks);
  const hangAsking = asking.length > 0 ? alt(asking.map((rule) => rule.pattern)) : '(?!)';
  const lead = alt([...UNIVERSAL_LEAD, ...table.lead]);
  const ask = alt(table.ask);
  const trail = alt([...UNIVERSAL_TRAIL, ...table.trail]);
  const tail = `(?:${sep}(?:${any}|${trail}))*`;
  const regex = (source: string) => new RegExp(`^${source}$`, 'u');
  const hangSource = `(?:(?:${ask}|${lead})${sep})*${hang}(?:${sep}${trail})*`;
  return {
    language: table.language,
    unspaced: table.unspaced ?? false,
    strict: regex(`(?:(?:${lead}|${any})${sep})*${finals}${tail}`),
    loose: regex(`${any}${tail}`),
    looseAfterLead: regex(`(?:${lead}${sep})+${any}${tail}`),
    hang: regex(hangSource),
    hangAsked: regex(
      `(?:(?:${ask}|${lead})${sep})*(?:${ask}${sep}(?:(?:${ask}|${lead})${sep})*${hang}|${hangAsking})(?:${sep}${trail})*`,
    ),
    trailOnly: regex(`${trail}(?:${sep}${trail})*`),
    vocabulary: regex(
      `(?:(?:${lead}|${ask}|${trail}|${any}|${hang})${sep})*(?:${lead}|${ask}|${trail}|${any}|${hang})`,
    ),
    // hangAsked is within hang (its asking phrases are hang-up phrases); strict, loose and
    // looseAfterLead are within "lead-ins or farewells, a farewell, then farewells or trailers".
    maybe: `${hangSource}|(?:(?:${lead}|${any})${sep})*${any}${tail}`,
  };
}

const COMPILED = TABLES.map(compile);
/**
 * A clause that no table could judge an ending matches none of these: one test per table instead
 * of four or five, and most turns are not farewells, so most end here. (One expression for every
 * table was several times slower, measured.)
 */
const MAYBE_ENDING = COMPILED.map((table) => new RegExp(`^(?:${table.maybe})$`, 'u'));
const anyMaybe = (text: string) => MAYBE_ENDING.some((regex) => regex.test(text));
const GOODBYES = new Map(TABLES.map((table) => [table.language, table.goodbye]));

// A farewell clause is short; longer ones are sentences that happen to contain one.
const MAX_WORDS = 16;
const MAX_UNSPACED_CHARS = 32;
const NAME = /^\p{Lu}[\p{Ll}\p{M}'’]*\.?$/u;
// Capitalised words that are not names: "Goodbye. Wait!" must not drop "Wait".
const NOT_NAMES = new Set(
  'no not never wait why what really maybe yes please stop hold hey hi hello sorry nein nicht warte halt non pas attends attendez espera espere nunca aspetta mai nao nee niet wacht nie czekaj hayir dur hola bonjour hallo ciao salut oh well'.split(
    ' ',
  ),
);

const isName = (word: string) => NAME.test(word) && !NOT_NAMES.has(fold(word).replace(/\.$/, ''));

/** Whether a clause is short enough to be a farewell (which also bounds the regular expressions' work). */
function fits(text: string, unspaced: boolean): boolean {
  let spaces = 0;
  for (let at = text.indexOf(' '); at !== -1; at = text.indexOf(' ', at + 1)) spaces++;
  return unspaced ? text.length - spaces <= MAX_UNSPACED_CHARS : spaces + 1 <= MAX_WORDS;
}

/** The clause as folded, then without one and two trailing capitalised names ("bye Anna", "tschüss Frau Meier"). */
function variants(clause: Clause, unspaced: boolean): string[] {
  if (!fits(clause.folded, unspaced)) return [];
  const out = [clause.folded];
  if (unspaced) return out;
  const words = clause.folded.split(' ');
  for (let drop = 1; drop <= 2 && words.length - drop >= 1 && isName(clause.raw[words.length - drop]!); drop++)
    out.push(words.slice(0, -drop).join(' '));
  return out;
}

/**
 * Whether some table might judge `clause` an ending: any text `judgeClause` tests of it, under
 * either spacing (its variants are the folded clause, and without trailing names when spaced),
 * matches MAYBE_ENDING. False means no table can (the full judgement would find nothing).
 */
function mayEnd(clause: Clause): boolean {
  const spaced = fits(clause.folded, false);
  if (!spaced && !fits(clause.folded, true)) return false;
  if (anyMaybe(clause.folded)) return true;
  return spaced && variants(clause, false).some(anyMaybe);
}

function judgeClause(table: CompiledTable, clauses: Clause[], index: number): Reason | null {
  const clause = clauses[index]!;
  const question = clauses.slice(index).some((c) => c.question);
  for (const text of variants(clause, table.unspaced)) {
    // "Can you hang up?" asks for it; "hang up?" and "should I hang up?" do not.
    if ((question ? table.hangAsked : table.hang).test(text)) return 'hang_up_request';
    if (question) continue; // "should I say goodbye?", "see you tomorrow?"
    if (table.strict.test(text) || table.looseAfterLead.test(text)) return 'farewell';
    if (index > 0 && table.loose.test(text)) return 'farewell';
  }
  return null;
}

function judge(table: CompiledTable, clauses: Clause[]): Reason | null {
  // Trailing "thanks", "for now", "everyone" and laughter do not end the turn's meaning.
  let index = clauses.length - 1;
  while (index > 0 && fits(clauses[index]!.folded, table.unspaced) && table.trailOnly.test(clauses[index]!.folded))
    index--;
  const reason = judgeClause(table, clauses, index);
  if (reason) return reason;
  // A name after a comma: "bye, Anna", "Tschüss, Frau Meier".
  const last = clauses[index]!;
  if (index > 0 && last.afterComma && last.raw.length <= 2 && last.raw.every(isName))
    return judgeClause(table, clauses, index - 1);
  return null;
}

/** Clauses from the end of the turn weighed when choosing between languages that both match. */
const EVIDENCE_CLAUSES = 4;
const NOT_ENDING: FarewellVerdict = { ending: false, reason: null, language: null };

/**
 * Whether a user turn ends the call: an explicit request to hang up ("please hang up", "cuelga",
 * "電話を切って"), or a farewell that is the turn's last clause ("thanks, bye!", "à plus",
 * "再见"). Mid-sentence, quoted, questioned or negated farewells do not count, nor do greetings
 * that are also farewells ("ciao", "salut") when they are all that was said.
 */
export function detectFarewell(text: string): FarewellVerdict {
  const clauses = clausesOf(text);
  if (!clauses.some(mayEnd)) return NOT_ENDING;
  let best: { verdict: FarewellVerdict; score: number } | null = null;
  for (const table of COMPILED) {
    const reason = judge(table, clauses);
    if (!reason) continue;
    // "Danke, bye" is German and "obrigado, nos vemos" Portuguese: the language whose words make up
    // more of the turn's last clauses wins; a tie goes to the earlier table.
    const score = clauses
      .slice(-EVIDENCE_CLAUSES)
      .filter((c) => fits(c.folded, table.unspaced) && table.vocabulary.test(c.folded)).length;
    if (!best || score > best.score) best = { verdict: { ending: true, reason, language: table.language }, score };
  }
  return best?.verdict ?? NOT_ENDING;
}

/** The brief goodbye spoken when a call ends, in `language` (ISO-639-1 or a tag like `es-MX`), English by default. */
export function goodbyeLine(language: string | null): string {
  const primary = language?.toLowerCase().split(/[-_]/)[0] ?? 'en';
  if (primary === 'zh' && /hant|tw|hk|mo/i.test(language ?? '')) return '再見！';
  return GOODBYES.get(primary) ?? GOODBYES.get('en')!;
}

/** The ISO-639-1 codes {@link detectFarewell} recognises and {@link goodbyeLine} speaks. */
export const FAREWELL_LANGUAGES: readonly string[] = TABLES.map((table) => table.language);
