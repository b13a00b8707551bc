// The phrase tables of farewell detection (farewell.ts): per language, the lead-ins, trailers,
// farewells and hang-up requests, and the goodbye line spoken back.

/** Why a turn ends the call. */
export type Reason = 'farewell' | 'hang_up_request';

/**
 * One phrase: a regular expression over folded text (lowercase, Latin accents stripped), words
 * separated by single spaces. `final` farewells end a call on their own; the others ("ciao",
 * "salut", "buenas noches") are greetings as often as farewells and count only after something
 * else in the turn ("grazie, ciao" ends a call, "Ciao!" alone does not).
 */
export interface PhraseRule {
  reason: Reason;
  pattern: string;
  final: boolean;
  /** A hang-up request phrased as a question by itself ("可以挂断吗"), so valid in a question. */
  asks?: boolean;
}

/** How one language ends a call. */
export interface LanguageTable {
  language: string;
  /** Written without spaces between words (Chinese, Japanese) or with loose spacing (Korean). */
  unspaced?: boolean;
  /** Words that may come before a farewell: "ok", "thanks", "that's all". */
  lead: string[];
  /** Words that may come before a hang-up request and keep it a request: "please", "can you". */
  ask: string[];
  /** Words that may follow either, or stand as the turn's last clauses: "then", "for now", "everyone". */
  trail: string[];
  phrases: PhraseRule[];
  /** The brief goodbye spoken when a call ends in this language. */
  goodbye: string;
}

const final = (...patterns: string[]): PhraseRule[] => patterns.map((pattern) => ({ reason: 'farewell', pattern, final: true }));
const ambiguous = (...patterns: string[]): PhraseRule[] => patterns.map((pattern) => ({ reason: 'farewell', pattern, final: false }));
const hangUp = (...patterns: string[]): PhraseRule[] => patterns.map((pattern) => ({ reason: 'hang_up_request', pattern, final: true }));
const hangUpAsking = (...patterns: string[]): PhraseRule[] => patterns.map((pattern) => ({ reason: 'hang_up_request', pattern, final: true, asks: true }));

// Shared by every language: people mix "ok" and "bye" into any of them ("Danke, bye!" is German).
/** Lead-ins every language shares. */
export const UNIVERSAL_LEAD = ['ok', 'okay', 'okey', 'oke', 'okie', 'okei', 'k', 'kk', 'ок', 'окей', 'オッケー', 'オーケー'];
// Runs of one character are cut to two before matching ("hahaaa", "www", "ㅋㅋㅋ"), so no `+` on single letters.
/** Trailers every language shares. */
export const UNIVERSAL_TRAIL = ['xx?', 'xx?dd?', 'lol', 'a?(?:ha)+h?', '(?:he)+h?', '(?:ja)+', '(?:je)+', '(?:ah)+', 'mdr', 'kk', '(?:ха)+', 'ㅋㅋ?', 'ㅎㅎ?', '哈哈?', '笑', 'ww?', 'xoxo'];
/** Farewells every language shares. */
export const UNIVERSAL_FAREWELL = final('bye(?: bye)*(?: now)?', 'byebye', 'buh bye');

/** French and Portuguese "à", written with or without its accent. */
const A = '(?:a|\\u00e0)';

/** How each served language ends a call: one row per language. */
export const TABLES: LanguageTable[] = [
  {
    language: 'en',
    lead: [
      'well', 'so', 'then', 'and', 'oh', 'ah', 'alright', 'all right', 'right', 'great', 'perfect', 'cool', 'awesome', 'excellent', 'lovely',
      'wonderful', 'fine', 'good', 'very good', 'sure', 'yes', 'yeah', 'yep', 'yup', 'got it', 'understood', 'anyway', 'anyways', 'cheers',
      'thanks', 'thank you', 'thanks (?:a lot|so much|again|very much|a bunch|a million)', 'thank you (?:so much|very much|again)', 'many thanks',
      'thanks for (?:everything|your help|the help|your time|calling|listening)', 'thank you for (?:everything|your help|the help|your time|calling|listening)',
      "that'?s (?:all|it|everything)(?: for (?:now|today))?", 'that is (?:all|it)', 'nothing else', "i'?m (?:off|done)", "we'?re done",
      'i (?:have|need|got) to go(?: now)?', "i(?:'?ve)? gotta go(?: now)?", 'i must go',
    ],
    ask: [
      'please', 'pls', 'plz', 'kindly', 'just', 'now', 'so', 'then', 'and', 'alright', 'go ahead and', 'you can', 'you may', 'you could', 'feel free to',
      'can you', 'could you', 'would you', 'will you', 'i want you to', "i'?d like you to", 'i need you to', "let'?s", 'we can', 'i want to',
      "i'?d like to", 'i wanna', "i'?m (?:going to|gonna)", 'i am (?:going to|gonna)', "i'?ll", 'i will',
    ],
    trail: [
      'then', 'now', 'for now', 'for today', 'for tonight', 'already', 'right now', 'please', 'everyone', 'everybody', 'all', "y'?all", 'you all',
      'guys', 'folks', 'friend', 'my friend', 'buddy', 'pal', 'partner', 'mate', 'man', 'dude', 'bro', 'sir', "ma'?am", 'madam', 'dear', 'love', 'honey',
      'again', 'too', 'you too', 'as well', 'and thanks', 'and thank you', 'thanks', 'thank you', 'thanks again', 'thank you again',
      'thanks (?:a lot|so much)', 'thank you (?:so much|very much)', 'here', 'for me',
    ],
    phrases: [
      ...final(
        'good ?bye', 'farewell', 'so long', 'cheerio', 'ta ta', 'toodles', 'peace out', 'cya', 'laters', 'ttyl', 'until next time', "(?:till|'?til) next time",
        'see (?:you|ya|u)(?: (?:later|soon|tomorrow|tonight|around|then|again|next (?:time|week|month|year)|(?:on|next) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in a (?:bit|while|few)))?',
        'catch (?:you|ya) later', 'talk (?:to you )?(?:later|soon|tomorrow|next week)', 'speak (?:to you )?(?:later|soon|tomorrow)',
        'have a (?:good|nice|great|lovely|wonderful|fantastic|pleasant|beautiful) (?:day|night|evening|afternoon|morning|weekend|week|one|rest of (?:the|your) day)',
        'good ?night', 'night night', 'nighty night', 'sleep well', 'take care(?: of yourself)?', 'all the best',
      ),
      ...hangUp(
        'hang up(?: (?:the phone|the call|on me))?', "i'?m hanging up", 'end call', 'disconnect(?: me)?',
        '(?:end|finish|terminate|stop|close|drop|cut|kill|disconnect) (?:the|this|our|my) (?:call|conversation|chat|session|line)',
      ),
    ],
    goodbye: 'Goodbye! Have a great day.',
  },
  {
    language: 'es',
    lead: [
      'vale', 'bueno', 'pues', 'entonces', 'perfecto', 'listo', 'genial', 'estupendo', 'de acuerdo', 'bien', 'muy bien', 'claro', 'venga', 'dale', 'ya',
      'sale', 'y', 'bueno pues', 'pues nada', 'nada', 'nada mas', 'eso es todo(?: por (?:hoy|ahora))?', 'es todo', 'ya esta', 'si', 'gracias',
      'muchas gracias', 'mil gracias', 'muchisimas gracias', 'gracias por (?:todo|tu ayuda|su ayuda|la ayuda|tu tiempo|su tiempo|llamar)',
      'te lo agradezco', 'se lo agradezco', 'me tengo que ir', 'tengo que irme', 'me voy', 'ahora si',
    ],
    ask: [
      'por favor', 'porfa', 'porfavor', 'ya', 'ahora', 'puedes', 'puede', 'podrias', 'podria', 'pueden', 'vale', 'bueno', 'entonces', 'quiero',
      'quisiera', 'me gustaria', 'vamos a', 'necesito que', 'solo', 'simplemente',
    ],
    trail: [
      'entonces', 'pues', 'a todos', 'a todas', 'amigo', 'amiga', 'amigos', 'chicos', 'chicas', 'gente', 'guapo', 'guapa', 'carino', 'gracias',
      'muchas gracias', 'y gracias', 'gracias de nuevo', 'por ahora', 'por hoy', 'ya', 'ahora', 'por favor', 'senor', 'senora', 'eh',
      'tu tambien', 'usted tambien', 'igualmente',
    ],
    phrases: [
      ...final(
        'adios', 'adiosito', 'chao(?: chao)*', 'chau(?: chau)*', 'chaito', 'me despido', 'besos', 'un beso', 'un abrazo', 'buen fin de semana',
        'hasta (?:luego|lueguito|pronto|prontito|manana|la proxima(?: vez)?|otra|otro dia|la vista|entonces|despues|mas tarde|siempre|el (?:lunes|martes|miercoles|jueves|viernes|sabado|domingo))',
        'nos vemos(?: (?:luego|pronto|manana|despues|entonces|mas tarde|la proxima|el (?:lunes|martes|miercoles|jueves|viernes|sabado|domingo)))?',
        'nos hablamos(?: (?:luego|pronto|manana|despues))?', 'hablamos (?:luego|pronto|manana|despues|mas tarde)',
        'que (?:tengas|tenga|tengan|pases|pase|pasen) (?:un )?(?:buen|bonito|lindo|excelente|feliz|gran) (?:dia|fin de semana|finde)',
        'que (?:tengas|tenga|tengan|pases|pase|pasen) (?:una )?(?:buena|bonita|linda|excelente|feliz) (?:tarde|noche|semana)',
        'que (?:te|le|les) vaya bien', 'cuidate(?: mucho)?', 'cuidese', 'cuidense', 'feliz (?:dia|tarde|noche|fin de semana)',
      ),
      ...ambiguous('buenas noches', 'buenas tardes', 'saludos', 'un saludo'),
      ...hangUp(
        'cuelga(?:me)?(?: el telefono| la llamada)?', 'cuelgue(?: el telefono| la llamada)?', 'cuelguen', 'colgar(?: el telefono| la llamada)?',
        '(?:voy a|te voy a|le voy a) colgar', 'desconecta(?:te)?', 'desconecte(?:se)?', 'desconectar(?:se)?',
        '(?:termina|termine|terminar|finaliza|finalice|finalizar|corta|corte|cortar|cierra|cierre|cerrar|acaba|acabe|acabar) (?:la|esta) (?:llamada|comunicacion|conversacion)',
      ),
    ],
    goodbye: '¡Adiós! Que tengas un buen día.',
  },
  {
    language: 'fr',
    lead: [
      'merci', 'merci beaucoup', 'merci bien', 'merci mille fois', 'mille mercis', 'grand merci', "merci pour (?:tout|ton aide|votre aide|l'aide|ton temps|votre temps)",
      "d'accord", 'dac', 'bon', 'ben', 'bah', 'bon ben', 'bon bah', 'eh bien', 'alors', 'parfait', 'super', 'genial', 'nickel', 'tres bien', 'bien',
      'allez', 'voila', "c'est tout(?: pour (?:moi|aujourd'hui))?", "c'est bon", 'ce sera tout', 'et', 'ouais', 'oui', 'entendu', 'ca marche',
      'je dois y aller', "il faut que j'y aille", 'je te laisse', 'je vous laisse', 'sur ce', 'bref', 'cool', 'top',
    ],
    ask: [
      "s'il te plait", "s'il vous plait", 'stp', 'svp', 'tu peux', 'vous pouvez', 'maintenant', 'peux tu', 'pouvez vous', 'est ce que tu peux',
      'est ce que vous pouvez', 'tu pourrais', 'vous pourriez', 'pourrais tu', 'pourriez vous', 'je veux', 'je voudrais', 'on peut', 'juste',
      'allez', 'vas y', 'allez y',
    ],
    trail: [
      'alors', 'tout le monde', `${A} tous`, `${A} toutes`, 'et merci', 'merci', 'merci beaucoup', 'encore merci', 'merci encore', 'mon ami', 'mon amie',
      'les amis', 'madame', 'monsieur', 'mademoiselle', 'hein', "pour aujourd'hui", 'pour le moment', 'maintenant', "s'il te plait",
      "s'il vous plait", 'stp', 'svp', 'toi aussi', 'vous aussi', 'pareillement', 'ma belle', 'mon cher', 'ma chere',
    ],
    phrases: [
      ...final(
        // "À plus" keeps its accent: "a plus" / "A+" is also an English grade (then ambiguous, below).
        'au revoir', `${A} plus tard`, '\\u00e0 plus', '\\u00e0 ?\\+', `${A} bientot`, `${A} demain`, `${A} tout ${A} l'heure`, `${A} toute`, `${A} tout de suite`,
        `${A} la prochaine`, `${A} la revoyure`, `${A} (?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|ce soir|la semaine prochaine)`, 'adieu', 'tchao', 'au plaisir',
        'bonne (?:journee|soiree|nuit|fin de journee|fin de soiree|apres midi|continuation|semaine|fin de semaine)', 'bon (?:week end|weekend|apres midi|dimanche)',
        'salut salut', 'on se (?:voit|parle|rappelle) (?:demain|plus tard|bientot)', 'bisous', 'bises', 'prends soin de toi', 'prenez soin de vous',
      ),
      ...ambiguous('salut', 'bonsoir', 'a plus', 'a ?\\+'),
      ...hangUp(
        'raccroche(?:z)?', 'raccrocher', 'je (?:vais )?raccrocher?', 'deconnecte toi', 'deconnectez vous', "fin de l'appel",
        `(?:termine|terminez|terminer|mets fin ${A}|mettez fin ${A}|mettre fin ${A}|coupe|coupez|couper|arrete|arretez|arreter|finis|finissez|finir|ferme|fermez|fermer) (?:l'appel|la communication|la conversation|cet appel)`,
      ),
    ],
    goodbye: 'Au revoir ! Bonne journée.',
  },
  {
    language: 'de',
    lead: [
      'gut', 'alles klar', 'klar', 'danke', 'danke schon', 'dankeschon', 'danke sehr', 'vielen dank', 'vielen lieben dank', 'herzlichen dank',
      'danke fur (?:alles|die hilfe|deine hilfe|ihre hilfe)', 'na dann', 'also', 'dann', 'prima', 'super', 'toll', 'perfekt', 'ja', 'jo', 'gut dann',
      "das war'?s(?: fur heute)?", 'das war es', 'so', 'na gut', 'alles gut', 'schon', 'und', 'ich muss (?:jetzt )?los', 'na', 'nun', 'in ordnung',
      'wunderbar', 'passt', 'genau',
    ],
    ask: [
      'bitte', 'jetzt', 'du kannst', 'sie konnen', 'ihr konnt', 'kannst du', 'konnen sie', 'konntest du', 'konnten sie', 'du darfst', 'sie durfen',
      'ich mochte', 'ich will', 'wir konnen', 'lass uns', 'lassen sie uns', 'dann', 'also', 'einfach',
    ],
    trail: [
      'dann', 'noch', 'zusammen', 'allerseits', 'euch', 'ihnen', 'und danke', 'danke', 'danke schon', 'vielen dank', 'erstmal', 'fur heute',
      'ihr lieben', 'leute', 'bitte', 'jetzt', 'schatz', 'gleichfalls', 'ebenfalls', 'dir auch', 'ihnen auch',
    ],
    phrases: [
      ...final(
        'tschuss(?:i|le)?', 'tschus', 'tscho', 'tschau', 'auf (?:wiedersehen|wiederhoren|wiederschauen)', 'wiederhoren', 'wiedersehen', 'wiederschauen',
        'bis (?:dann|spater|bald|morgen|nachher|gleich|demnachst|die tage|zum nachsten mal|nachste woche|heute abend|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)',
        "mach'?s gut", "macht'?s gut", "machen sie'?s gut", 'adieu', 'gute nacht', 'pfiat (?:di|eich)', 'lebe? wohl',
        '(?:einen )?(?:schonen|guten|angenehmen) (?:tag|abend|feierabend|sonntag|nachmittag)(?: noch)?', '(?:ein )?(?:schones|gutes) wochenende(?: noch)?',
        'man sieht sich', 'wir (?:sehen|horen) uns(?: (?:morgen|spater|bald))?', 'wir horen voneinander',
      ),
      // Also a greeting, a name or "dad" elsewhere.
      ...ambiguous('servus', 'ade', 'baba'),
      ...hangUp(
        'leg (?:(?:jetzt|bitte|doch|einfach|ruhig|mal|schon) )*auf', 'legen sie (?:(?:jetzt|bitte|doch|einfach|ruhig|mal|schon) )*auf', 'legt auf',
        'auflegen', 'ich (?:lege|leg) (?:jetzt )?auf',
        '(?:beende|beenden sie|beendet|beenden) (?:(?:bitte|jetzt) )?(?:den anruf|das gesprach|das telefonat|die verbindung|den call)',
        '(?:den |das )?(?:anruf|gesprach|telefonat|call) beenden', '(?:trenn|trenne|trennen sie) die verbindung', 'die verbindung trennen',
      ),
    ],
    goodbye: 'Auf Wiederhören! Einen schönen Tag noch.',
  },
  {
    language: 'it',
    lead: [
      'grazie', 'grazie mille', 'grazie tante', 'grazie ancora', 'grazie di tutto', "grazie per (?:tutto|l'aiuto|il tuo aiuto|il suo aiuto)",
      'ti ringrazio', 'la ringrazio', 'va bene', 'allora', 'bene', 'benissimo', 'perfetto', "d'accordo", 'ottimo', 'dai', 'e niente', 'niente',
      'ecco', 'e', 'si', "va be'?", "vabbe'?", 'basta cosi', "e'? tutto", 'tutto qui', '(?:ora )?devo andare', 'insomma', 'quindi', 'certo',
    ],
    ask: [
      'per favore', 'per piacere', 'per cortesia', 'puoi', 'potresti', 'puo', 'potrebbe', 'pure', 'adesso', 'ora', 'allora', 'dai', 'voglio', 'vorrei',
      'possiamo', 'ti prego', 'su',
    ],
    trail: [
      'allora', 'a tutti', 'ragazzi', 'e grazie', 'grazie', 'grazie mille', 'grazie ancora', 'amico', 'amica', 'cara', 'caro', 'tesoro', 'ancora',
      'per oggi', 'per ora', 'per adesso', 'pure', 'per favore', 'anche a te', 'altrettanto', 'bella', 'bello',
    ],
    phrases: [
      ...final(
        'arrivederci', 'arrivederla', 'ciao(?: ciao)+', 'a (?:presto|dopo|domani|piu tardi|stasera|lunedi|martedi|mercoledi|giovedi|venerdi|sabato|domenica)',
        'alla prossima', 'ci vediamo(?: (?:presto|dopo|domani|piu tardi|allora|stasera|la prossima volta))?', 'ci sentiamo(?: (?:presto|dopo|domani|piu tardi|allora))?',
        'ci si (?:vede|sente)', 'buona (?:giornata|serata|notte|continuazione|domenica|settimana)', 'buonanotte', 'buon (?:pomeriggio|fine settimana|weekend)',
        'addio', 'stammi bene', 'statemi bene', 'a risentirci', 'un abbraccio', 'un bacio', 'baci', 'bacioni',
      ),
      ...ambiguous('ciao', 'salve', 'buonasera'),
      ...hangUp(
        'riattacca(?:re)?', 'riattacchi', 'riattacco', 'riaggancia(?:re)?', 'riagganci', 'metti giu(?: il telefono)?', 'metta giu(?: il telefono)?',
        '(?:chiudi|chiuda|chiudere|chiudo|chiudiamo|termina|termini|terminare|terminiamo|interrompi|interrompa|interrompere|concludi|concluda|concludere) (?:la chiamata|la telefonata|la conversazione|la comunicazione|qui)',
      ),
    ],
    goodbye: 'Arrivederci! Buona giornata.',
  },
  {
    language: 'pt',
    lead: [
      'obrigad[oa]', 'muito obrigad[oa]', 'obrigadao', 'obrigad[oa] (?:pela ajuda|por tudo)', 'valeu', 'ta bom', 'ta', 'beleza', 'entao', 'bom', 'certo',
      'perfeito', 'pronto', 'tudo bem', 'otimo', 'e isso', 'era isso', 'so isso', 'combinado', 'ta certo', 'fechado', 'tenho que ir', 'preciso ir',
      'bem', 'sim', 'e', 'legal', 'show', 'bom entao',
    ],
    ask: ['por favor', 'pode', 'podes', 'voce pode', 'ja pode', 'ja', 'agora', 'entao', 'quero', 'gostaria de', 'vamos', 'so'],
    trail: [
      'entao', 'pessoal', 'gente', 'galera', 'amigo', 'amiga', 'querido', 'querida', 'a todos', 'obrigad[oa]', 'muito obrigad[oa]', 'e obrigad[oa]',
      'valeu', 'por hoje', 'por enquanto', 'agora', 'ja', 'por favor', 'ai', 'viu', 'tambem', 'pra voce tambem', 'igualmente',
    ],
    phrases: [
      ...final(
        'tchau(?: tchau)*', 'xau', 'adeus', `ate (?:logo|mais|breve|amanha|depois|ja|${A} proxima|mais tarde|${A} vista|segunda|terca|quarta|quinta|sexta|sabado|domingo|outro dia)`,
        'fi(?:ca|que|quem) bem', 'fi(?:ca|que) com deus', 'va(?:i)? com deus', 'se cuid[ae]', 'cuide se', 'cuida te',
        '(?:tenha|tenham|tem) um (?:bom|otimo|excelente|lindo|belo) (?:dia|fim de semana|domingo)', '(?:tenha|tenham) uma (?:boa|otima|excelente) (?:tarde|noite|semana)',
        'bom fim de semana', 'boa semana', 'a gente se (?:ve|fala)(?: (?:depois|amanha|mais tarde))?', 'nos (?:vemos|falamos)(?: (?:depois|amanha|mais tarde|em breve))?',
        'falamos depois', 'beijos?', 'um abraco', 'abracos',
      ),
      ...ambiguous('boa noite', 'boa tarde'),
      ...hangUp(
        'deslig(?:a|ue|ar)(?: o telefone| a chamada| a ligacao| ai)?', 'vou desligar',
        '(?:encerre|encerra|encerrar|termine|termina|terminar|finalize|finaliza|finalizar) (?:a|esta|essa) (?:chamada|ligacao|conversa)',
      ),
    ],
    goodbye: 'Tchau! Tenha um ótimo dia.',
  },
  {
    language: 'ru',
    lead: [
      'ну', 'ладно', 'хорошо', 'спасибо', 'спасибо большое', 'большое спасибо', 'спасибо за (?:помощь|все)', 'все', 'ну все', 'все все', 'тогда', 'так',
      'ага', 'отлично', 'договорились', 'понятно', 'ясно', 'давай', 'давайте', 'мне пора', 'ну ладно', 'ну хорошо', 'и', 'да', 'в общем', 'короче',
      'ну что ж', 'супер', 'класс', 'замечательно', 'прекрасно',
    ],
    ask: [
      'пожалуйста', 'можешь', 'можете', 'можно', 'давай', 'давайте', 'просто', 'теперь', 'уже', 'ну', 'тогда', 'ладно', 'хочу', 'я хочу', 'мы можем',
      'сейчас', 'будь добр', 'будьте добры',
    ],
    trail: [
      'тогда', 'всем', 'вам', 'тебе', 'друзья', 'ребята', 'друг', 'дружище', 'спасибо', 'спасибо еще раз', 'еще раз спасибо', 'уже', 'пожалуйста',
      'теперь', 'сейчас', 'и тебе', 'и вам', 'взаимно', 'на сегодня',
    ],
    phrases: [
      // "пока" is also "while"/"for now": as the whole last clause it can only be "bye".
      ...final(
        'до свидания', 'до свиданья', 'досвидания', 'пока(?: пока)*', 'покеда', 'покедова', 'всего (?:доброго|хорошего|наилучшего)',
        'до (?:встречи|завтра|скорого|связи|вечера|понедельника|скорой встречи)', 'прощай(?:те)?', 'увидимся(?: (?:завтра|позже|скоро))?',
        'созвонимся', 'спишемся', '(?:спокойной|доброй) ночи', 'счастливо', 'бывай(?:те)?', 'хорошего (?:дня|вечера|выходных)', 'хорошего вам (?:дня|вечера)',
        'чао', 'бай(?: бай)*', 'береги(?:те)? себя',
      ),
      // "давай" is also "come on" / "let's": it closes a call only after something ("ну давай", "спасибо, давай").
      ...ambiguous('давай(?:те)?'),
      ...hangUp(
        '(?:положи|положите|клади|кладите|повесь|повесьте|положить|класть|повесить) трубку', 'трубку (?:положи|положите|клади|кладите|повесь|повесьте)',
        '(?:заверши|завершите|завершить|заканчивай|заканчивайте|закончи|закончите|закончить|прерви|прервите|прервать|сбрось|сбросьте|сбросить|отключи|отключите|отключить) (?:звонок|разговор|вызов)',
        'сбрось(?:те)?', 'отключи(?:сь|тесь)', 'отключайтесь', 'отключайся', 'я (?:кладу|вешаю) трубку', 'кладу трубку', 'я отключаюсь',
      ),
    ],
    goodbye: 'До свидания! Хорошего дня.',
  },
  {
    language: 'zh',
    unspaced: true,
    lead: [
      '好', '好的', '好吧', '好了', '好啦', '好嘞', '行', '行吧', '那', '那么', '那麼', '那就', '嗯', '嗯嗯', '哦', '噢', '谢谢', '謝謝', '谢谢你', '謝謝你', '谢谢您',
      '謝謝您', '多谢', '多謝', '谢啦', '謝啦', '感谢', '感謝', '就这样', '就這樣', '先这样', '先這樣', '那就这样', '那就這樣', '今天就到这里', '今天就到這裡',
      '就到这里', '就到這裡', '没事了', '沒事了', '没问题', '沒問題',
    ],
    ask: ['请', '請', '麻烦', '麻煩', '你', '您', '你可以', '您可以', '可以', '现在', '現在', '帮我', '幫我', '我要', '我想', '那', '好', '那你', '你就', '就', '我', '我先', '那我', '那我就'],
    trail: ['啦', '了', '吧', '哦', '喔', '呀', '啊', '咯', '哈', '哟', '喽', '嘞', '呦', '各位', '大家', '您', '你', '亲', '朋友'],
    phrases: [
      ...final(
        '再见', '再見', '拜拜', '掰掰', '白白', '拜', '回头见', '回頭見', '明天见', '明天見', '下次见', '下次見', '改天见', '改天見', '待会见', '待會見',
        '待会儿见', '待會兒見', '一会儿见', '一會兒見', '晚安', '保重', '告辞', '告辭', '再会', '再會', '(?:那)?我先走了', '我走了', '先走了',
        '下次(?:再)?聊', '回头(?:再)?聊', '回頭(?:再)?聊', '改天(?:再)?聊', '有空再聊', '祝你(?:有)?(?:愉快|美好)的一天', '祝你愉快',
      ),
      ...hangUp(
        '挂断(?:电话)?', '掛斷(?:電話)?', '挂(?:电话)?', '掛(?:電話)?', '挂了', '掛了', '挂掉(?:电话)?', '掛掉(?:電話)?', '把电话挂(?:了|掉|断)?', '把電話掛(?:了|掉|斷)?',
        '结束(?:这次|这通|本次)?(?:通话|电话|对话)', '結束(?:這次|這通|本次)?(?:通話|電話|對話)',
      ),
      ...hangUpAsking(
        '(?:可以|能|能不能|可不可以)(?:帮我)?(?:挂断|挂掉|挂了|挂|结束通话)(?:电话)?(?:了)?(?:吗)?', '(?:可以|能|能不能|可不可以)(?:幫我)?(?:掛斷|掛掉|掛了|掛|結束通話)(?:電話)?(?:了)?(?:嗎)?',
      ),
    ],
    goodbye: '再见！',
  },
  {
    language: 'ja',
    unspaced: true,
    lead: [
      'じゃあ', 'じゃ', 'では', 'それでは', 'それじゃ', 'それじゃあ', 'はい', 'うん', 'ええ', 'ありがとう', 'ありがとうございます', 'ありがとうございました',
      'どうも', 'どうもありがとう(?:ございました|ございます)?', 'よし', '了解', '了解です', 'わかりました', '分かりました', '今日はこれで', 'これで',
      '本日はありがとうございました', 'お世話になりました', 'そろそろ', 'もう',
    ],
    ask: ['もう', 'じゃあ', 'では', 'はい', 'すみません', 'すみませんが', 'そろそろ', '今すぐ'],
    trail: ['ね', 'ーー?', 'よ', '[^ ]{1,6}(?:さん|様|さま|くん|君|ちゃん)'],
    phrases: [
      ...final(
        'さようなら', 'さよなら', 'さいなら', 'じゃあね', 'じゃね', 'じゃあまたね', 'じゃあまた', 'またね', 'またな', 'また明日', 'またあした', 'また後で',
        'またあとで', 'また今度', 'また来週', 'ではまた', 'それではまた', 'おやすみ', 'おやすみなさい', 'バイバイ', 'ばいばい', 'バイ', 'お元気で',
        '(?:良い|よい)(?:一日|週末|夜)を',
      ),
      // Also "excuse me" or a greeting at work: they close a call only after something else.
      ...ambiguous('失礼します', '失礼いたします', 'お疲れ様でした', 'お疲れさまでした', 'おつかれさまでした', 'ごきげんよう'),
      ...hangUp(
        '電話(?:を)?切って(?:ください|下さい|くれ|ほしい)?', '通話(?:を)?(?:終了|終わりに)して(?:ください|下さい|くれ)?',
        '通話(?:を)?切って(?:ください|下さい|くれ)?', '(?:電話|通話)?(?:を)?切っても?(?:いい|大丈夫)(?:よ|です)?', '切って(?:ください|下さい)', '通話終了',
        '(?:電話(?:を)?)?切ります',
      ),
      ...hangUpAsking('(?:電話|通話)?(?:を)?切って(?:くれます|もらえます|いただけます|くれる|もらえる|くれない|もらえない)か?'),
    ],
    goodbye: 'さようなら。良い一日を！',
  },
  {
    language: 'ar',
    lead: [
      'شكرا', 'شكرا جزيلا', 'شكرا لك', 'شكرا لكم', 'شكرا على (?:المساعدة|كل شي|كل شيء)', 'حسنا', 'طيب', 'تمام', 'اوكي', 'اوك', 'يلا', 'اذن', 'خلاص', 'ماشي',
      'ممتاز', 'جميل', 'و', 'نعم', 'اه', 'اي', '(?:الله )?يعطيك العافية', 'هذا كل (?:شي|شيء|ما لدي)', 'مشكور',
    ],
    ask: ['من فضلك', 'لو سمحت', 'لو سمحتي', 'رجاء', 'أرجوك', 'ممكن', 'يمكنك', 'تقدر', 'تستطيع', 'الآن', 'يلا', 'طيب', 'خلاص', 'أريد', 'بدي', 'ابي'],
    trail: ['يا [^ ]+', 'للجميع', 'جميعا', 'شكرا', 'شكرا جزيلا', 'الآن', 'من فضلك', 'لو سمحت', 'حبيبي', 'حبيبتي', 'صديقي', 'أخي', 'أختي', 'وأنت كذلك'],
    phrases: [
      ...final(
        'مع السلامة', 'بالسلامة', 'إلى اللقاء', 'وداعا', 'في أمان الله', 'الله معك', 'الله معاك', 'تصبح على خير', 'تصبحين على خير', 'تصبحون على خير',
        'ليلة سعيدة', 'نهارك سعيد', 'يومك سعيد', 'طاب يومك', '(?:أراك|نراك) (?:لاحقا|قريبا|غدا)', '(?:أشوفك|نشوفك) (?:بعدين|بكرة|على خير)',
        '(?:نتكلم|نتحدث) (?:بعدين|لاحقا)', 'باي(?: باي)*', 'سلام سلام', 'الله يحفظك', 'دمت بخير', 'دمتم بخير',
      ),
      ...ambiguous('سلام', 'السلام عليكم'),
      ...hangUp(
        '(?:أغلق|أغلقي|اقفل|اقفلي|سكر|سكري|اقطع|اقطعي|أنه|أنهي|إنهاء|إغلاق) (?:المكالمة|الخط|الاتصال|الهاتف|التلفون)', 'سأغلق (?:الخط|المكالمة)',
      ),
    ],
    goodbye: 'مع السلامة!',
  },
  {
    language: 'nl',
    lead: [
      'bedankt', 'dank je', 'dank je wel', 'dankjewel', 'dank u', 'dank u wel', 'dankuwel', 'bedankt voor (?:alles|de hulp|je hulp|uw hulp)', 'nou', 'goed',
      'prima', 'top', 'super', 'nou dan', 'nou goed', "dat was (?:het|'t)", 'ik moet (?:nu )?gaan', 'ja', 'en', 'mooi', 'perfect', 'helemaal goed', 'fijn',
      'nou ja', 'afgesproken',
    ],
    ask: ['je mag', 'u mag', 'je kunt', 'u kunt', 'je kan', 'kun je', 'kunt u', 'kan je', 'wil je', 'wilt u', 'alsjeblieft', 'alstublieft', 'graag', 'nu', 'maar', 'ik wil', 'we kunnen', 'laten we'],
    trail: ['dan', 'hoor', 'allemaal', 'nog', 'he', 'en bedankt', 'bedankt', 'dank je wel', 'jongens', 'lieverd', 'schat', 'maar', 'nu', 'alsjeblieft', 'alstublieft', 'jij ook', 'u ook', 'insgelijks'],
    phrases: [
      ...final(
        'doei(?: doei)*', 'doeg', 'daag', 'dag dag', 'ajuus', 'goedenacht', 'welterusten', 'slaap lekker', 'houdoe', 'de groeten', 'groetjes', 'het beste',
        'tot (?:ziens|straks|later|morgen|zo|gauw|kijk|de volgende keer|volgende keer|snel|vanavond|maandag|dinsdag|woensdag|donderdag|vrijdag|zaterdag|zondag)',
        '(?:nog )?(?:een )?(?:fijne|prettige|goede|mooie) (?:dag|avond|middag|week)(?: nog)?', '(?:nog )?(?:een )?(?:fijn|prettig|goed) weekend(?: nog)?',
        'we spreken (?:elkaar|mekaar) (?:nog|later|morgen|snel)', 'we zien elkaar (?:later|morgen|snel)', 'hou(?:d)? je goed',
      ),
      ...ambiguous('dag', 'goedendag'),
      ...hangUp(
        'hang (?:(?:maar|nu|dan|alsjeblieft|alstublieft|gewoon) )*op', 'hangt u (?:maar )?op', 'ophangen', 'ik hang (?:nu )?op',
        '(?:beeindig|beeindigen|beeindigt u|stop|stoppen|verbreek|verbreken) (?:het gesprek|de oproep|de verbinding|het telefoongesprek|het telefoontje)',
        '(?:het gesprek|de oproep|de verbinding) (?:beeindigen|verbreken)',
      ),
    ],
    goodbye: 'Tot ziens! Nog een fijne dag.',
  },
  {
    language: 'pl',
    lead: [
      'dzieki', 'dziekuje', 'dziekuje bardzo', 'bardzo dziekuje', 'dziekuje za (?:pomoc|wszystko)', 'dzieki za (?:pomoc|wszystko)', 'dobra', 'dobrze', 'okej',
      'no to', 'to', 'no dobra', 'no dobrze', 'no nic', 'super', 'swietnie', 'w porzadku', 'to tyle', 'to wszystko', 'tyle', 'musze (?:juz )?(?:leciec|isc|konczyc)',
      'spoko', 'jasne', 'rozumiem', 'i',
    ],
    ask: ['prosze', 'mozesz', 'moze pan', 'moze pani', 'mozecie', 'juz', 'teraz', 'dobra', 'to', 'chce', 'chcialbym', 'chcialabym', 'po prostu', 'mozemy'],
    trail: ['wszystkim', 'dzieki', 'dziekuje', 'jeszcze raz dzieki', 'jeszcze raz dziekuje', 'prosze', 'juz', 'teraz', 'kochanie', 'kochani', 'stary', 'na dzis', 'nawzajem', 'tobie tez'],
    phrases: [
      ...final(
        'do (?:widzenia|zobaczenia|uslyszenia)(?: (?:jutro|wkrotce|pozniej|w poniedzialek))?', 'do (?:jutra|nastepnego razu|nastepnego|potem|pozniej|poniedzialku|wieczora)', 'na razie', 'pa(?: pa)+', 'papa',
        'dobranoc', 'trzymaj(?:cie)? sie', 'zegnaj(?:cie)?', 'zegnam', 'milego (?:dnia|wieczoru|weekendu|popoludnia|tygodnia)', 'narka',
        'czesc czesc', 'pozdrawiam', 'pozdrowienia', 'buziaki', 'buzka', 'wszystkiego dobrego', 'spokojnej nocy', 'kolorowych snow',
      ),
      // "Pa" is also "dad", "Nara" a city; "cześć", "siema", "hej" are greetings too.
      ...ambiguous('czesc', 'siema', 'hej', 'pa', 'nara'),
      ...hangUp(
        'rozlacz(?: sie)?', 'rozlaczcie sie', 'rozlaczyc(?: sie)?', 'rozlaczmy sie', 'rozlaczam sie', '(?:odloz|odlozyc|odlozcie) sluchawke', 'odkladam sluchawke',
        '(?:zakoncz|zakonczmy|zakonczyc|zakonczcie|skoncz|skonczmy|skonczyc|przerwij|przerwac|koncze) (?:rozmowe|polaczenie|to polaczenie|te rozmowe)',
      ),
    ],
    goodbye: 'Do widzenia! Miłego dnia.',
  },
  {
    language: 'tr',
    lead: [
      'tamam', 'tesekkurler', 'tesekkur ederim', 'cok tesekkurler', 'cok tesekkur ederim', 'sag ol', 'sagol', 'sag olun', 'peki', 'o zaman', 'hadi', 'haydi',
      'neyse', 'tamamdir', 'oldu', 'evet', 'iyi', 'super', 'harika', 'anladim', 'bu kadar', 'benden bu kadar', 'yardimin icin tesekkurler', 've',
    ],
    ask: ['lutfen', 'artik', 'simdi', 'hadi', 'tamam', 'istersen', 'isterseniz'],
    trail: ['o zaman', 'herkese', 'hadi', 'lutfen', 'artik', 'simdi', 'canim', 'dostum', 'tesekkurler', 'size de', 'sana da'],
    phrases: [
      ...final(
        'hosca kal(?:in)?', 'gorusuruz', 'gorusmek uzere', '(?:sonra|yarin) gorusuruz', 'gule gule', 'allah(?:a)? ?ismarladik', 'iyi geceler', 'bay ?bay',
        'kendine iyi bak', 'kendinize iyi bakin', 'iyi (?:gunler|aksamlar) dilerim',
      ),
      // Greetings as much as farewells.
      ...ambiguous('iyi gunler', 'iyi aksamlar', 'iyi calismalar'),
      ...hangUp(
        'telefonu (?:kapat|kapatin|kapatir misin|kapatabilirsin|kapatabilirsiniz)', '(?:telefonu )?kapatiyorum', 'kapatabilirsin(?:iz)?',
        '(?:aramayi|gorusmeyi|cagriyi|konusmayi) (?:kapat|kapatin|sonlandir|sonlandirin|bitir|bitirin|sonlandirabilirsin|kapatabilirsin)',
      ),
    ],
    goodbye: 'Hoşça kalın! İyi günler.',
  },
  {
    language: 'ko',
    unspaced: true,
    lead: ['네', '예', '그럼', '그럼 이만', '이만', '그래', '그래요', '감사합니다', '고맙습니다', '고마워', '고마워요', '알겠습니다', '알겠어요', '알았어', '좋아요', '자', '오케이', '네네'],
    ask: ['이제', '그냥', '그럼', '제발', '좀', '이만'],
    trail: ['요', '~'],
    phrases: [
      ...final(
        '안녕히 (?:계세요|가세요|주무세요|계십시오|가십시오)', '잘 (?:있어|있어요|가|가요|자|자요)', '또 (?:봐|봐요|만나|만나요|뵙겠습니다|뵐게요)',
        '(?:다음에|나중에|내일|이따가|담에) (?:또 )?(?:봐|봐요|만나|만나요|뵐게요|뵙겠습니다|연락할게요)', '바이(?: 바이)?', '빠이(?: 빠이)?', '들어가세요',
        '수고하세요', '수고하셨습니다', '좋은 (?:하루|밤|주말) (?:되세요|보내세요)',
      ),
      ...ambiguous('안녕'),
      ...hangUp(
        '전화(?:를)? 끊어(?: (?:요|줘|주세요|도 돼|도 돼요|도 됩니다))?', '끊어 (?:주세요|줘|도 돼|도 돼요|도 됩니다)',
        '통화(?:를)? (?:종료|끝내)(?:해|해요|해 주세요|해줘|주세요)?', '끊을게(?:요)?',
      ),
    ],
    goodbye: '안녕히 계세요!',
  },
  {
    language: 'hi',
    lead: [
      'ठीक है', 'अच्छा', 'धन्यवाद', 'बहुत धन्यवाद', 'शुक्रिया', 'बहुत शुक्रिया', 'चलो', 'चलिए', 'ओके', 'तो', 'ठीक है तो', 'अच्छा तो', 'हाँ', 'जी', 'बस',
      'बस इतना ही', 'chalo', 'th?ee?k hai', 'ac?c?ha', 'dhanyava?a?d', 'dhanyawad', 'shukriya', 'to', 'ji',
    ],
    ask: ['कृपया', 'प्लीज', 'अब', 'तुम', 'आप', 'अब आप', 'please', 'ab', 'aap'],
    trail: ['जी', 'ji', 'सबको', 'दोस्त', 'भाई', 'यार', 'dost', 'bhai', 'yaar', 'अब', 'प्लीज'],
    phrases: [
      ...final(
        'अलविदा', 'फिर (?:मिलेंगे|मिलते हैं)', '(?:बाद में|कल) (?:मिलते हैं|मिलेंगे|बात करते हैं|बात करेंगे)', 'शुभ रात्रि', 'बाय(?: बाय)*', 'टाटा',
        'ख़ुदा हाफ़िज़', 'अपना ख़्याल (?:रखना|रखिए|रखिये)', 'आपका दिन शुभ हो', 'alvida', 'phir (?:milenge|milte hain)', 'baad mein milte hain', 'khuda hafiz',
        'shubh ratri',
      ),
      ...ambiguous('नमस्ते', 'नमस्कार', 'राम राम', 'namaste', 'tata'), // Tata is also a name
      ...hangUp(
        '(?:फ़ोन|कॉल) (?:रख|काट|बंद कर|ख़त्म कर) (?:दो|दीजिए|दीजिये|दें)', 'फ़ोन रखो', 'कॉल काटो', 'कॉल बंद करो', 'कॉल ख़त्म करो', 'मैं फ़ोन रख(?:ता|ती) हूँ',
        'phone rakh do', 'call (?:kaat|cut|band kar|khatam kar) do',
      ),
    ],
    goodbye: 'अलविदा! आपका दिन शुभ हो।',
  },
];
