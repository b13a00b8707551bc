import type { ChatMessage, ContentPart } from './chat.js';
import { messageText } from './chat.js';

const PIECE = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

/** The rule as a regular expression: any text (the ASCII scan below must agree with it). */
export function countTokensByPattern(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PIECE)) tokens += Math.ceil(match[0].length / 6);
  return tokens;
}

/** What an ASCII code is to the rule: 0 space, 1 letter or digit, 2 symbol. */
const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, code) =>
  (code >= 9 && code <= 13) || code === 32 ? 0 : /[A-Za-z0-9]/.test(String.fromCharCode(code)) ? 1 : 2,
);

/**
 * Tokens in a text, by a fixed rule: a word (letters and digits) counts one token per six
 * characters, a symbol one. Every request's prompt and answer are counted: ASCII text is scanned
 * code by code (no match objects); other text goes to the pattern.
 */
export function countTokens(text: string): number {
  let tokens = 0;
  let word = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128) return countTokensByPattern(text);
    const kind = ASCII_CLASS[code];
    if (kind === 1) {
      word++;
      continue;
    }
    if (word > 0) tokens += Math.ceil(word / 6);
    word = 0;
    if (kind === 2) tokens++;
  }
  return word > 0 ? tokens + Math.ceil(word / 6) : tokens;
}

/** Added tokens for the extra processing of a non-text part (spec 2.1: billed as added tokens). */
export function partTokens(part: ContentPart): number {
  switch (part.type) {
    case 'text':
      return countTokens(part.text);
    case 'image_url':
      return part.image_url.detail === 'low' ? 85 : 765;
    case 'input_audio':
      // Transcription work scales with the audio: about 1 token per 16 bytes of base64 PCM.
      return 50 + Math.ceil(part.input_audio.data.length / 16);
    case 'file':
      return (
        50 +
        (part.file.file_data
          ? countTokens(Buffer.from(part.file.file_data.replace(/^data:[^,]*,/, ''), 'base64').toString('utf8'))
          : 0)
      );
    case 'input_video':
      return 1500;
  }
}

/** Per-message framing overhead, as chat-completions providers count it. */
const PER_MESSAGE = 4;
const PER_REQUEST = 3;

/** The prompt tokens of a conversation: text, added tokens for non-text parts, and framing. */
export function countPromptTokens(messages: readonly ChatMessage[]): number {
  let tokens = PER_REQUEST;
  for (const message of messages) {
    tokens += PER_MESSAGE;
    if (Array.isArray(message.content)) for (const part of message.content) tokens += partTokens(part);
    else tokens += countTokens(messageText(message));
    if (message.name) tokens += 1;
  }
  return tokens;
}
