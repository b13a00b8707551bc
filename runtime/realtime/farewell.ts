/** What a user turn says about ending the call. */
export interface FarewellVerdict {
  ending: boolean;
  reason: 'farewell' | 'hang_up_request' | null;
  /** ISO-639-1 of the phrase that matched. */
  language: string | null;
}

interface Phrase {
  language: string;
  reason: 'farewell' | 'hang_up_request';
  /** Matches a whole final clause (spaced scripts) or its end (scripts without spaces). */
  pattern: RegExp;
  /** A greeting as often as a farewell: counts only after something else was said in the turn. */
  ambiguous?: boolean;
  /** Matched at the end of the clause (no spaces between words), so negations are checked apart. */
  suffix?: boolean;
}

// Spaced scripts match the WHOLE last clause, after fillers: anchoring is what keeps out "bye" in the
// middle of a sentence and negations ("don't hang up", "no cuelgues", "ne raccroche pas"). Latin
// text is matched without accents or case.
const spaced = (language: string, reason: Phrase['reason'], body: string, ambiguous = false): Phrase => ({
  language,
  reason,
  pattern: new RegExp(`^(?:${body})$`, 'u'),
  ambiguous,
});
// Scripts without spaces (Chinese, Japanese) match the END of the last clause.
const ending = (language: string, reason: Phrase['reason'], body: string): Phrase => ({ language, reason, pattern: new RegExp(`(?:${body})$`, 'u'), suffix: true });

const PLEASE = '(?:(?:please|you can|you may|go ahead and|can you|could you|would you|just|ok|okay) )*';
const NOW = '(?: (?:now|please|then|thanks|thank you))*';

const PHRASES: Phrase[] = [
  // English
  spaced('en', 'farewell', `(?:good ?)?bye(?: bye)*(?: now)?|bye-bye|goodbye|farewell|see (?:you|ya)(?: (?:later|soon|tomorrow|next time|around|then))?|talk (?:to you )?(?:later|soon|tomorrow)|take care(?: of yourself)?|have a (?:good|nice|great|lovely) (?:day|night|evening|weekend|one)|good ?night|catch you later|so long|cheers,? bye|that'?s all,? (?:good)?bye`),
  spaced('en', 'hang_up_request', `${PLEASE}(?:hang up(?: the (?:call|phone))?|end (?:the|this) call|disconnect(?: the call)?|end call)${NOW}`),
  // Spanish
  spaced('es', 'farewell', 'adios|hasta (?:luego|pronto|manana|la vista|la proxima)|nos vemos(?: pronto| manana)?|chao|chau|cuidate|que (?:tengas|tenga) (?:un )?buen (?:dia|fin de semana)|me despido'),
  spaced('es', 'hang_up_request', '(?:(?:por favor|ya|puedes|puede|ahora) )*(?:cuelga|cuelgue|colgar|termina la llamada|termine la llamada|finaliza la llamada|corta la llamada)(?: (?:ya|ahora|por favor))*'),
  // French
  spaced('fr', 'farewell', 'au revoir|a plus(?: tard)?|a bientot|a demain|adieu|bonne (?:journee|soiree|nuit)'),
  spaced('fr', 'farewell', 'salut|tchao', true),
  spaced('fr', 'hang_up_request', "(?:(?:s'il te plait|s'il vous plait|tu peux|vous pouvez) )*(?:raccroche|raccrochez|raccrocher|termine l'appel|terminez l'appel|mets fin a l'appel|mettez fin a l'appel)(?: (?:maintenant|s'il te plait|s'il vous plait))*"),
  // German
  spaced('de', 'farewell', "tschuss|tschau|auf wiedersehen|auf wiederhoren|bis (?:bald|spater|morgen|dann|zum nachsten mal)|mach'?s gut|(?:einen )?schonen tag(?: noch)?|gute nacht"),
  spaced('de', 'hang_up_request', '(?:(?:bitte|du kannst|sie konnen|jetzt) )*(?:leg auf|legen sie auf|auflegen|beende den anruf|beenden sie den anruf|anruf beenden)(?: (?:bitte|jetzt))*'),
  // Italian
  spaced('it', 'farewell', 'arrivederci|arrivederla|ciao ciao|a (?:presto|dopo|domani)|buona (?:giornata|serata|notte)|buonanotte|ci vediamo(?: presto| domani)?'),
  spaced('it', 'farewell', 'ciao', true),
  spaced('it', 'hang_up_request', '(?:(?:per favore|puoi|adesso|ora) )*(?:riattacca|riaggancia|riattaccare|chiudi la chiamata|termina la chiamata)(?: (?:ora|adesso|per favore))*'),
  // Portuguese
  spaced('pt', 'farewell', 'tchau(?: tchau)?|adeus|ate (?:logo|mais|amanha|breve|a proxima)|fica bem|tenha um (?:bom|otimo|excelente) dia'),
  spaced('pt', 'hang_up_request', '(?:(?:por favor|pode|podes|agora) )*(?:desliga|desligue|desligar|encerre a chamada|encerra a chamada|termina a chamada|termine a chamada)(?: (?:agora|por favor))*'),
  // Russian (пока means "while" mid-sentence: only a whole final clause counts)
  spaced('ru', 'farewell', 'до свидания|пока(?: пока)?|до встречи|до завтра|всего (?:доброго|хорошего)|прощай(?:те)?|спокойной ночи|счастливо'),
  spaced('ru', 'hang_up_request', '(?:(?:пожалуйста|можешь|можете|теперь) )*(?:положи трубку|положите трубку|положить трубку|заверши звонок|завершите звонок|заверши разговор|сбрось звонок|отключись)(?: (?:пожалуйста|сейчас))*'),
  // Dutch, Polish, Turkish, Korean, Hindi
  spaced('nl', 'farewell', 'tot ziens|doei|tot (?:straks|later|morgen)|fijne dag'),
  spaced('pl', 'farewell', 'do widzenia|do zobaczenia|pa pa|na razie|milego dnia|miłego dnia'),
  spaced('tr', 'farewell', 'hosca kal(?:in)?|gule gule|gorusuruz|iyi gunler'),
  spaced('ko', 'farewell', '안녕히 (?:계세요|가세요)|잘 가(?:요)?|또 봐요|다음에 봐요'),
  spaced('hi', 'farewell', 'अलविदा|फिर मिलेंगे|नमस्ते अलविदा'),
  // Arabic
  spaced('ar', 'farewell', 'مع السلامة|(?:إلى|الى) اللقاء|وداعا|وداعاً|في (?:أمان|امان) الله|تصبح على خير'),
  spaced('ar', 'hang_up_request', '(?:من فضلك )?(?:أغلق|اغلق|أنه|انه|أنهِ) (?:المكالمة|الخط)'),
  // Chinese (simplified and traditional) and Japanese
  ending('zh', 'hang_up_request', '挂断(?:吧|电话)?|挂电话吧?|挂了吧|你可以挂了|结束通话吧?|掛斷(?:吧|電話)?|掛電話吧?|結束通話'),
  ending('zh', 'farewell', '再见|再見|拜拜|回头见|回頭見|明天见|明天見|下次见|下次見|晚安|我先挂了|我先掛了'),
  ending('ja', 'hang_up_request', '電話を切って(?:ください)?|切ってください|通話を終了して(?:ください)?|切っていいよ'),
  ending('ja', 'farewell', 'さようなら|さよなら|じゃあね|じゃあまた|またね|また明日|バイバイ|おやすみなさい|おやすみ|失礼します'),
];

/** Words before a farewell that do not change it ("ok, thanks, bye"). */
const LEADING_FILLERS = /^(?:ok(?:ay)?|well|alright|all right|so|and|right|thanks|thank you(?: so much| very much)?|yes|yeah|oh|ah|great|perfect|bueno|pues|vale|gracias|muchas gracias|bon|eh bien|merci(?: beaucoup)?|alors|also|gut|danke(?: schon)?|va bene|grazie(?: mille)?|allora|bem|entao|obrigad[oa]|ну|спасибо|ладно|хорошо|ок)[ ,]+/u;
/** Words after a farewell that do not change it ("bye for now", "adios amigo"). */
const TRAILING_FILLERS = /[ ,]+(?:then|now|for now|everyone|everybody|all|guys|my friend|friend|again|amigo|amiga|pues|alors|dann|allora|entao|друг)$/u;

// Clause ends in every script served (Latin, CJK full-width, Arabic, Devanagari).
const CLAUSE_END = /[.!?;:。！？；؟،…\n,，、।]+/u;
const QUESTION = /[?？؟]\s*$/u;
const CJK_NEGATION = /[不别別没沒]|ない|なで|な$|って言|と言/u;

function normalise(text: string): string {
  return text
    .normalize('NFKD')
    // Accents go from Latin letters only: kana voicing marks, Devanagari vowels and й must stay.
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/ё/g, 'е')
    .replace(/["“”«»„]/g, '')
    .replace(/\p{Extended_Pictographic}/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The clause as spoken, without the fillers around a farewell. */
function core(clause: string): string {
  let text = clause.trim();
  for (let previous = ''; previous !== text; ) {
    previous = text;
    text = text.replace(LEADING_FILLERS, '').replace(TRAILING_FILLERS, '').trim();
  }
  return text;
}

function match(clause: string, hasEarlierContent: boolean): Phrase | null {
  const text = core(clause);
  if (!text) return null;
  for (const phrase of PHRASES) {
    if (!phrase.pattern.test(text)) continue;
    if (phrase.ambiguous && !hasEarlierContent) continue;
    if (phrase.suffix && CJK_NEGATION.test(text)) continue;
    return phrase;
  }
  return null;
}

const NONE: FarewellVerdict = { ending: false, reason: null, language: null };

/**
 * Whether a user turn ends the call: an explicit request to hang up, or an unambiguous farewell
 * as its LAST clause ("thanks, bye!" ends; "I said bye to Anna and left" does not). Questions,
 * negations and mentions do not count; a name after the farewell ("bye, Anna") does not hide it.
 */
export function detectFarewell(text: string): FarewellVerdict {
  const normalised = normalise(text);
  if (!normalised) return NONE;
  const question = QUESTION.test(normalised);
  const clauses = normalised.split(CLAUSE_END).map((clause) => clause.trim()).filter(Boolean);
  if (clauses.length === 0) return NONE;
  const last = clauses.length - 1;
  // A short last clause (a name, "you too") may follow the farewell itself.
  const candidates = clauses[last]!.split(' ').length <= 2 && last > 0 ? [last, last - 1] : [last];
  for (const index of candidates) {
    const phrase = match(clauses[index]!, index > 0);
    if (!phrase) continue;
    // "Can you hang up?" asks for it; "should I say goodbye?" does not say it.
    if (question && !(phrase.reason === 'hang_up_request' && index === last)) return NONE;
    return { ending: true, reason: phrase.reason, language: phrase.language };
  }
  return NONE;
}

const GOODBYES: Record<string, string> = {
  en: 'Goodbye! Have a great day.',
  es: 'Que tengas un buen día. ¡Adiós!',
  fr: 'Bonne journée. Au revoir !',
  de: 'Einen schönen Tag noch. Auf Wiedersehen!',
  it: 'Buona giornata. Arrivederci!',
  pt: 'Tenha um ótimo dia. Tchau!',
  ru: 'Всего доброго. До свидания!',
  zh: '祝你愉快，再见！',
  ja: '良い一日を。さようなら。',
  ar: 'يومك سعيد، مع السلامة!',
  nl: 'Fijne dag, tot ziens!',
  pl: 'Miłego dnia, do widzenia!',
  tr: 'İyi günler, hoşça kal!',
  ko: '좋은 하루 되세요. 안녕히 계세요!',
  hi: 'आपका दिन शुभ हो। अलविदा!',
};

/** The one brief goodbye spoken when a call ends, in the caller's language (English by default). */
export function goodbyeLine(language: string | null): string {
  return GOODBYES[language ?? 'en'] ?? GOODBYES.en!;
}
