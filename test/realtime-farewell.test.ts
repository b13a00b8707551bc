import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FAREWELL_LANGUAGES, detectFarewell, goodbyeLine } from '../actors/realtime/farewell.js';

const test = suite('realtime farewell: a final farewell or a hang-up request ends the call, a mention does not');

interface LanguageCases {
  /** Turns whose last clause is a farewell. */
  farewells: string[];
  /** Turns that ask for the call to end. */
  hangUps: string[];
  /** Mentions, questions, negations, greetings and descriptions. */
  notEndings: string[];
}

const CASES: Record<string, LanguageCases> = {
  en: {
    farewells: [
      'Goodbye!',
      'Bye.',
      'ok bye bye',
      'Thanks, bye!',
      "That's all, goodbye.",
      'See you tomorrow!',
      'Talk to you later.',
      'Bye, Anna.',
      'Bye Anna',
      'Alright then, take care.',
      'Thanks so much for your help, have a great day!',
      'Good night everyone',
      'I have to go now, bye!',
      'Bye for now 👋',
      'Cheers, bye',
      'Okay, see ya later :)',
      'Goodbye then, and thanks again.',
      'bye-bye!',
      'Good-bye, Mr. Smith.',
      'Great, thanks for your help. Goodbye!',
      'Have a great day 👋',
      'Take care',
      'so long, partner',
      'BYE!!!',
      'Thank you! Bye now.',
    ],
    hangUps: [
      'Hang up.',
      'Please hang up now.',
      'You can hang up now, thanks.',
      'Can you hang up?',
      'Could you please end the call?',
      "Let's end the call here.",
      "I'm going to hang up now.",
      'Just disconnect.',
      'I want to end this call.',
      'End the call',
      'ok, you can hang up',
    ],
    notEndings: [
      'I said goodbye to my friend yesterday and then we went home.',
      'How do you say goodbye in French?',
      'The song Goodbye Yellow Brick Road is great.',
      'Should I say goodbye?',
      "Don't hang up!",
      "Please don't hang up yet.",
      'He said "goodbye" and left.',
      "Hi, bye the way, what's the weather?",
      'My mom hung up on me.',
      'Why did you hang up?',
      'Should I hang up?',
      'Goodbye. Wait, one more thing!',
      'Goodbye. Wait!',
      'bye?',
      'See you tomorrow?',
      'Say bye to grandma for me.',
      'Hang up the laundry please.',
      'Hello',
      'I hung up the phone.',
      'Goodbye is such a sad word.',
      "I'm not going to say goodbye.",
      'Tell him I said bye',
      "'Bye' is an English word",
      'Thanks!',
      'I got an A plus',
      'A+',
      'ok',
    ],
  },
  es: {
    farewells: [
      'Adiós',
      '¡Adiós!',
      'Muchas gracias, hasta luego.',
      'Vale, chao',
      'Bueno, nos vemos mañana',
      'Hasta pronto, amigo',
      'Gracias por todo, que tengas un buen día',
      'Eso es todo, adiós',
      'Cuídate mucho',
      'Hasta la próxima',
      'Nos vemos, Carlos',
      'Bueno pues nada, hasta luego 😊',
      'Perfecto, gracias, hasta mañana',
      'Venga, chao chao',
      'Gracias, buenas noches',
      'Adiós a todos',
      'Vale, bye',
    ],
    hangUps: [
      'Cuelga, por favor',
      'Termina la llamada',
      'Ya puedes colgar',
      '¿Puedes colgar?',
      'Por favor, finaliza la llamada',
      'Corta la llamada ya',
      'Voy a colgar',
      'Cuelgue el teléfono',
    ],
    notEndings: [
      'No cuelgues',
      'No cuelgues todavía, por favor',
      'Dije adiós a mi hermano y luego fui a casa',
      '¿Cómo se dice adiós en inglés?',
      '¿Debería decir adiós?',
      'Mi mamá me colgó',
      'Quiero colgar el cuadro',
      'Adiós es una palabra triste',
      'Él dijo "adiós" y se fue',
      '¿Me vas a colgar?',
      'Buenas noches',
      'Hasta luego no, ¿cuándo?',
      'Corta',
    ],
  },
  fr: {
    farewells: [
      'Au revoir !',
      'Merci, à plus',
      'À bientôt',
      'Bonne soirée',
      'Merci beaucoup, salut !',
      'À plus tard, Marie',
      'Bon ben, au revoir',
      "D'accord, merci, bonne journée !",
      'À demain alors',
      "C'est tout, au revoir",
      'Allez, salut',
      'À+',
      'Bonne nuit tout le monde',
      'Au revoir, Madame Dupont.',
      'À plus !',
      'A bientot',
      "À tout à l'heure",
      'Merci, bye',
    ],
    hangUps: [
      'Tu peux raccrocher',
      "Termine l'appel",
      "Raccroche, s'il te plaît",
      'Peux-tu raccrocher ?',
      'Vous pouvez raccrocher maintenant',
      "Mettez fin à l'appel",
      "Coupez l'appel",
    ],
    notEndings: [
      'Ne raccroche pas',
      'Raccroche pas !',
      "Ne raccrochez pas s'il vous plaît",
      "J'ai dit au revoir à Paul hier",
      'Comment dit-on au revoir en anglais ?',
      'Est-ce que je dois dire au revoir ?',
      "Elle m'a raccroché au nez",
      'Au revoir les enfants est un film',
      'Il a dit « au revoir » et il est parti',
      'Salut',
      'Salut, comment ça va ?',
      'A plus !',
      'Coupe',
    ],
  },
  de: {
    farewells: [
      'Tschüss!',
      'Danke, auf Wiederhören',
      'Bis später',
      "Mach's gut",
      'Gute Nacht',
      'Okay, tschüss',
      'Vielen Dank, auf Wiedersehen!',
      'Alles klar, bis dann',
      'Schönen Tag noch!',
      'Danke schön, einen schönen Abend noch',
      'Tschüss, Anna',
      "Das war's, tschüss",
      'Bis morgen, Leute',
      'Danke, servus',
      'Tschüss, Frau Meier',
      'Danke, bye',
    ],
    hangUps: [
      'Leg auf',
      'Beende den Anruf bitte',
      'Du kannst jetzt auflegen',
      'Kannst du auflegen?',
      'Bitte auflegen',
      'Legen Sie bitte auf',
      'Ich lege jetzt auf',
    ],
    notEndings: [
      'Nicht auflegen',
      'Leg nicht auf!',
      'Bitte nicht auflegen',
      'Ich habe tschüss gesagt und bin gegangen',
      'Wie sagt man tschüss auf Englisch?',
      'Soll ich tschüss sagen?',
      'Er hat einfach aufgelegt',
      'Auf Wiedersehen ist ein schönes Wort',
      'Servus',
      "Servus, wie geht's?",
      'Baba',
    ],
  },
  it: {
    farewells: [
      'Arrivederci',
      'Grazie, ciao ciao',
      'A presto',
      'Grazie mille, ciao',
      'Va bene, ci vediamo domani',
      'Buona serata a tutti',
      'Ok allora, a dopo',
      'Perfetto, grazie, buona giornata!',
      'Ciao Marco, a domani',
      'Basta così, arrivederci',
      'Ciao ciao!',
      'Buonanotte',
    ],
    hangUps: [
      'Riattacca',
      'Chiudi la chiamata',
      'Puoi riattaccare, grazie',
      'Per favore, termina la chiamata',
      'Metti giù il telefono',
    ],
    notEndings: [
      'Ciao',
      'Ciao, come stai?',
      'Ciao bella',
      'Non riattaccare',
      'Non chiudere la chiamata',
      'Ho detto arrivederci a Maria ieri',
      'Come si dice arrivederci in inglese?',
      'Mi ha riattaccato in faccia',
    ],
  },
  pt: {
    farewells: [
      'Tchau!',
      'Obrigado, até logo',
      'Até amanhã',
      'Valeu, tchau tchau',
      'Muito obrigada, tenha um ótimo dia',
      'Beleza, a gente se vê',
      'Então tá, até mais',
      'Obrigado, boa noite',
      'Fica bem, João',
      'Até à próxima',
      'Obrigado, nos vemos',
    ],
    hangUps: ['Pode desligar', 'Desliga, por favor', 'Encerre a chamada', 'Vou desligar', 'Pode encerrar a ligação'],
    notEndings: [
      'Não desligue',
      'Não desliga ainda',
      'Eu disse tchau para ela ontem',
      'Como se diz tchau em inglês?',
      'Ela desligou na minha cara',
      'Boa noite',
      'Devo dizer tchau?',
    ],
  },
  ru: {
    farewells: [
      'До свидания',
      'Спасибо, пока!',
      'Всего доброго',
      'Ну всё, пока-пока',
      'Ладно, давай',
      'Хорошо, до завтра',
      'Спасибо большое, до свидания, Анна',
      'Пока',
      'Увидимся!',
      'Спокойной ночи',
      'Счастливо!',
    ],
    hangUps: ['Положи трубку', 'Можешь положить трубку', 'Заверши звонок, пожалуйста', 'Отключись'],
    notEndings: [
      'Не клади трубку',
      'Пока я думаю, расскажи историю',
      'Пока нет',
      'Я сказал ему до свидания и ушёл',
      'Как сказать пока по-английски?',
      'Он бросил трубку',
      'Давай поговорим о погоде',
      'Давай',
    ],
  },
  zh: {
    farewells: [
      '再见',
      '谢谢，拜拜',
      '好的，明天见',
      '再見！',
      '好的，那就这样，拜拜啦',
      '谢谢你，再见了',
      '晚安',
      '好，回头见',
      '那我先走了',
      '拜拜～',
      '谢谢您，保重',
      '下次聊',
      '謝謝，再見',
    ],
    hangUps: ['挂断吧', '你可以挂了', '请结束通话', '挂了吧', '可以帮我挂断电话吗？', '我先挂了', '請掛斷電話'],
    notEndings: [
      '别挂',
      '不要挂断',
      '我不想说再见',
      '再见是什么意思？',
      '他跟我说了再见就走了',
      '用英语怎么说再见？',
      '她把电话挂了',
      '你好',
      '88',
    ],
  },
  ja: {
    farewells: [
      'さようなら',
      'ありがとう、またね',
      'じゃあね',
      'じゃあ、また明日',
      'ありがとうございました。失礼します。',
      'おやすみなさい',
      'それではまた',
      'はい、バイバイ',
      '田中さん、さようなら',
      'さようなら、田中さん',
      'またねー',
      'では、良い一日を！',
    ],
    hangUps: ['電話を切ってください', 'もう切っていいよ', '通話を終了してください', '電話を切ってもらえますか？'],
    notEndings: [
      '失礼します',
      '電話を切らないで',
      'さようならと言った',
      'さようならって英語で何？',
      '彼は電話を切った',
      'こんにちは',
      'またね、と言ってもいい？',
    ],
  },
  ar: {
    farewells: [
      'مع السلامة',
      'شكرا، إلى اللقاء',
      'شكراً جزيلاً، مع السلامة يا أحمد',
      'تصبح على خير',
      'وداعاً',
      'شكرا، سلام',
      'إلى اللقاء!',
      'طيب، مع السلامة',
      'في أمان الله',
      'يلا باي',
      'شكرا، أراك لاحقا',
    ],
    hangUps: ['أغلق المكالمة', 'من فضلك أنهِ المكالمة', 'اقفل الخط لو سمحت'],
    notEndings: [
      'سلام',
      'لا تغلق المكالمة',
      'قلت له مع السلامة وذهبت',
      'كيف أقول مع السلامة بالإنجليزية؟',
      'أغلق أخي المكالمة في وجهي',
      'مرحبا',
    ],
  },
  nl: {
    farewells: [
      'Tot ziens',
      'Bedankt, doei!',
      'Oké, tot morgen',
      'Dank je wel, fijne dag nog',
      'Nou, tot straks dan',
      'Doei doei',
      'Bedankt, dag!',
    ],
    hangUps: ['Hang maar op', 'Je mag ophangen'],
    notEndings: [
      'Dag',
      'Niet ophangen',
      'Hang niet op',
      'Ik zei tot ziens tegen mijn moeder',
      'Hoe zeg je tot ziens in het Engels?',
    ],
  },
  pl: {
    farewells: [
      'Do widzenia',
      'Dzięki, na razie!',
      'Dobra, pa pa',
      'No to cześć',
      'Do zobaczenia jutro',
      'Dziękuję, miłego dnia',
      'Pa pa!',
    ],
    hangUps: ['Rozłącz się', 'Zakończ rozmowę, proszę'],
    notEndings: ['Cześć', 'Nie rozłączaj się', 'Na razie nie wiem', 'Powiedziałem mu do widzenia', 'Pa!'],
  },
  tr: {
    farewells: [
      'Hoşça kal',
      'Teşekkürler, görüşürüz!',
      'Tamam, güle güle',
      'Teşekkür ederim, iyi günler',
      'İyi geceler',
    ],
    hangUps: ['Telefonu kapat', 'Aramayı sonlandır lütfen'],
    notEndings: ['İyi günler', 'Telefonu kapatma', 'Ona hoşça kal dedim', 'Merhaba'],
  },
  ko: {
    farewells: [
      '안녕히 계세요',
      '감사합니다, 안녕히 가세요',
      '네, 또 봐요',
      '그럼 이만, 들어가세요',
      '고마워, 안녕',
      '안녕히계세요',
    ],
    hangUps: ['전화 끊어 주세요', '통화 종료해 주세요'],
    notEndings: ['안녕', '전화 끊지 마세요', '안녕히 가세요라고 말했어요', '안녕하세요'],
  },
  hi: {
    farewells: ['धन्यवाद, अलविदा', 'अलविदा', 'ठीक है, फिर मिलेंगे', 'धन्यवाद, नमस्ते', 'शुभ रात्रि', 'ok, phir milenge'],
    hangUps: ['फ़ोन रख दो', 'कृपया कॉल काट दीजिए', 'फोन रख दो'],
    notEndings: ['नमस्ते', 'फोन मत रखो', 'मैंने उसे अलविदा कहा', 'Tata'],
  },
};

for (const [language, cases] of Object.entries(CASES)) {
  test(`${language}: final farewells end the call, reported in ${language}`, () => {
    for (const text of cases.farewells)
      assert.equal(detectFarewell(text), { ending: true, reason: 'farewell', language }, text);
  });
  test(`${language}: explicit requests to hang up end the call`, () => {
    for (const text of cases.hangUps)
      assert.equal(detectFarewell(text), { ending: true, reason: 'hang_up_request', language }, text);
  });
  test(`${language}: mentions, questions, negations and greetings do not`, () => {
    for (const text of cases.notEndings)
      assert.equal(detectFarewell(text), { ending: false, reason: null, language: null }, text);
  });
}

test('every required language has at least 10 farewells and 6 turns that are not endings', () => {
  for (const language of ['en', 'es', 'fr', 'de', 'it', 'pt', 'ru', 'zh', 'ja', 'ar']) {
    const cases = CASES[language]!;
    assert.ok(cases.farewells.length >= 10 && cases.notEndings.length >= 6, language);
  }
});

test('a greeting that is also a farewell ends a call only after something else was said', () => {
  for (const greeting of [
    'Ciao',
    'Salut',
    'Servus',
    'Cześć',
    '안녕',
    'नमस्ते',
    'سلام',
    '失礼します',
    'Давай',
    'Buenas noches',
    'Boa noite',
    'Dag',
    'İyi günler',
  ]) {
    assert.is(detectFarewell(greeting).ending, false, greeting);
    assert.is(detectFarewell(`${greeting}!`).ending, false, `${greeting}!`);
  }
  for (const text of [
    'Grazie, ciao',
    'Ok ciao',
    'Merci, salut',
    'Danke, servus',
    'Dzięki, cześć',
    '고마워, 안녕',
    'धन्यवाद, नमस्ते',
    'شكرا، سلام',
    'ありがとうございました、失礼します',
    'Ну давай',
  ]) {
    assert.is(detectFarewell(text).ending, true, text);
  }
});

test('the farewell must be the last thing said', () => {
  for (const text of [
    'Bye! Actually, one more question: what time is it?',
    'Goodbye, and what about tomorrow',
    'Adiós. Pero antes, una pregunta',
    'Tschüss… ach nein, noch was',
  ]) {
    assert.is(detectFarewell(text).ending, false, text);
  }
  // Only thanks, laughter, emoji, emoticons or a name may follow it.
  for (const text of [
    'Bye, thanks!',
    'Goodbye 😊😊',
    'bye :D',
    'bye haha',
    'Adiós, gracias',
    'Au revoir, merci !',
    'Tschüss, danke',
    'Bye, Dr. Lee',
  ]) {
    assert.is(detectFarewell(text).ending, true, text);
  }
});

test('quoted farewells are mentions, in any quotation marks', () => {
  for (const text of [
    'He said "bye"',
    'Er sagte „Tschüss“',
    'Il a dit « salut »',
    "She just said 'goodbye'",
    '「さようなら」',
    '“Goodbye”',
    '"Bye!"',
  ]) {
    assert.is(detectFarewell(text).ending, false, text);
  }
});

test('questions never end a call unless they politely ask to hang up', () => {
  for (const text of [
    'Goodbye?',
    'Adiós?',
    'Bye? Really?',
    '¿Adiós?',
    'さようなら？',
    'مع السلامة؟',
    'Hang up?',
    'Did you hang up?',
  ]) {
    assert.is(detectFarewell(text).ending, false, text);
  }
  for (const text of [
    'Can you hang up?',
    'Could you end the call, please?',
    '¿Puedes colgar?',
    'Kannst du auflegen?',
    'Peux-tu raccrocher ?',
    '可以挂断吗？',
  ]) {
    assert.is(detectFarewell(text).reason, 'hang_up_request', text);
  }
});

test('text is normalised: width, case, accents, diacritics, punctuation, invisible characters', () => {
  assert.equal(detectFarewell('ＧＯＯＤＢＹＥ！'), { ending: true, reason: 'farewell', language: 'en' });
  assert.equal(detectFarewell('ADIOS'), { ending: true, reason: 'farewell', language: 'es' });
  assert.equal(detectFarewell('tschuss'), { ending: true, reason: 'farewell', language: 'de' });
  assert.equal(detectFarewell('مَعَ السَّلَامَةِ'), { ending: true, reason: 'farewell', language: 'ar' });
  assert.equal(detectFarewell('bye\u200b!'), { ending: true, reason: 'farewell', language: 'en' });
  assert.equal(detectFarewell('  thanks ,\n bye   bye  '), { ending: true, reason: 'farewell', language: 'en' });
  assert.equal(detectFarewell('Auf Wiederhören!'), detectFarewell('auf wiederhoeren'.replace('oe', 'ö')));
});

test('text with nothing in it, and very long text, are handled', () => {
  for (const text of ['', '   ', '👋', '...', '?!'])
    assert.equal(detectFarewell(text), { ending: false, reason: null, language: null }, JSON.stringify(text));
  const long = `${'Let me tell you a long story about my day. '.repeat(2000)}Anyway, thanks, bye!`;
  assert.equal(detectFarewell(long), { ending: true, reason: 'farewell', language: 'en' });
  const repeated = `${'哈'.repeat(5000)}再见${'嗯'.repeat(5000)}`;
  assert.is(detectFarewell(repeated).ending, false);
});

test('goodbye lines: one per language, brief, and each itself a farewell in that language', () => {
  assert.equal([...FAREWELL_LANGUAGES].sort(), [
    'ar',
    'de',
    'en',
    'es',
    'fr',
    'hi',
    'it',
    'ja',
    'ko',
    'nl',
    'pl',
    'pt',
    'ru',
    'tr',
    'zh',
  ]);
  for (const language of FAREWELL_LANGUAGES) {
    const line = goodbyeLine(language);
    assert.ok(line.length > 0 && line.length < 60, line);
    assert.equal(detectFarewell(line), { ending: true, reason: 'farewell', language }, line);
  }
  assert.is(goodbyeLine(null), 'Goodbye! Have a great day.');
  assert.is(goodbyeLine('xx'), goodbyeLine('en'));
  assert.is(goodbyeLine('es-MX'), goodbyeLine('es'));
  assert.is(goodbyeLine('PT_br'), goodbyeLine('pt'));
  assert.is(goodbyeLine('zh-TW'), '再見！');
  assert.equal(detectFarewell(goodbyeLine('zh-Hant')), { ending: true, reason: 'farewell', language: 'zh' });
});

test.run();
