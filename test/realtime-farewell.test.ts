import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { detectFarewell, goodbyeLine } from '../runtime/realtime/farewell.js';

const test = suite('farewell detection: final farewells and hang-up requests end a call, mentions do not');

const farewells: [string, string][] = [
  ['en', 'Goodbye!'], ['en', 'Thanks, bye.'], ['en', 'ok bye bye'], ['en', "That's all, goodbye"], ['en', 'See you tomorrow!'],
  ['en', 'Talk to you later'], ['en', 'Bye, Anna'], ['en', 'Have a great day 👋'], ['en', 'Great, thanks for your help. Goodbye!'], ['en', 'Take care'],
  ['es', 'Adiós'], ['es', 'Muchas gracias, hasta luego'], ['es', 'Nos vemos mañana'], ['es', 'Vale, chao'], ['es', 'Hasta pronto, amigo'],
  ['fr', 'Au revoir !'], ['fr', 'Merci, à plus'], ['fr', 'À bientôt'], ['fr', 'Bonne soirée'], ['fr', 'Merci beaucoup, salut !'],
  ['de', 'Tschüss!'], ['de', 'Danke, auf Wiederhören'], ['de', 'Bis später'], ['de', "Mach's gut"], ['de', 'Gute Nacht'],
  ['it', 'Arrivederci'], ['it', 'Grazie, ciao ciao'], ['it', 'A presto'], ['it', 'Grazie mille, ciao'],
  ['pt', 'Tchau!'], ['pt', 'Obrigado, até logo'], ['pt', 'Até amanhã'],
  ['ru', 'До свидания'], ['ru', 'Спасибо, пока!'], ['ru', 'Всего доброго'],
  ['zh', '再见'], ['zh', '谢谢，拜拜'], ['zh', '好的，明天见'], ['zh', '再見！'],
  ['ja', 'さようなら'], ['ja', 'ありがとう、またね'], ['ja', 'じゃあね'],
  ['ar', 'مع السلامة'], ['ar', 'شكرا، إلى اللقاء'],
  ['nl', 'Tot ziens'], ['pl', 'Do widzenia'], ['tr', 'Hoşça kal'], ['ko', '안녕히 계세요'], ['hi', 'धन्यवाद, अलविदा'],
];

const hangUps: [string, string][] = [
  ['en', 'Please hang up now.'], ['en', 'You can hang up'], ['en', 'End the call'], ['en', 'Can you hang up?'],
  ['es', 'Cuelga, por favor'], ['es', 'Termina la llamada'], ['fr', 'Tu peux raccrocher'], ['fr', "Termine l'appel"],
  ['de', 'Leg auf'], ['de', 'Beende den Anruf bitte'], ['it', 'Riattacca'], ['it', 'Chiudi la chiamata'],
  ['pt', 'Pode desligar'], ['ru', 'Положи трубку'], ['zh', '挂断吧'], ['ja', '電話を切ってください'], ['ar', 'أغلق المكالمة'],
];

const notEndings = [
  'I said goodbye to my friend yesterday and then we left.', 'How do you say goodbye in French?', 'The song Goodbye Yellow Brick Road is great',
  "Don't hang up", 'Should I say goodbye?', 'Bye the way, what time is it?', 'My mom hung up on me', 'What time is it?', '',
  'No cuelgues', 'Dije adiós a mi hermano y luego fui a casa', '¿Cómo se dice adiós en inglés?',
  'Ne raccroche pas', "J'ai dit au revoir à Paul hier", 'Salut', 'Salut, comment ça va ?',
  'Nicht auflegen', 'Ich habe tschüss gesagt und bin gegangen', 'Wie sagt man tschüss auf Englisch?',
  'Ciao', 'Ciao, come stai?', 'Non riattaccare',
  'Não desligue', 'Пока я думаю, расскажи историю', 'Не клади трубку',
  '我不想说再见', '再见是什么意思？', 'さようならと言った', 'لا تغلق المكالمة',
];

test('final farewells in each language end the call, in that language', () => {
  for (const [language, text] of farewells) assert.equal(detectFarewell(text), { ending: true, reason: 'farewell', language }, text);
});

test('explicit requests to hang up end the call', () => {
  for (const [language, text] of hangUps) assert.equal(detectFarewell(text), { ending: true, reason: 'hang_up_request', language }, text);
});

test('mentions, questions, negations and greetings do not', () => {
  for (const text of notEndings) assert.is(detectFarewell(text).ending, false, text);
});

test('every goodbye line is itself a farewell in its language; unknown languages get English', () => {
  for (const language of ['en', 'es', 'fr', 'de', 'it', 'pt', 'ru', 'zh', 'ja', 'ar', 'nl', 'pl', 'tr', 'ko', 'hi']) {
    const line = goodbyeLine(language);
    assert.ok(line.length > 0 && line.length < 60, line);
    assert.equal(detectFarewell(line), { ending: true, reason: 'farewell', language }, line);
  }
  assert.is(goodbyeLine(null), goodbyeLine('en'));
  assert.is(goodbyeLine('xx'), goodbyeLine('en'));
});

test.run();
