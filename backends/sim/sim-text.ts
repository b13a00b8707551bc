import type { ChatMessage } from '../../protocols/chat.js';
import { messageText } from '../../protocols/chat.js';

const WORDS = (
  'the a of to and in is it for on that with as this by we can be at from or an are you your not ' +
  'have will one all more use data time model plan step check state event value queue token order ' +
  'stream answer result first next then also each when what which how clear short good fast final'
).split(' ');

/** FNV-1a over a string: the sim's seed, so equal inputs give equal outputs. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

function prng(seed: number): () => number {
  let state = seed || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

/**
 * The sim's answer as token pieces (each piece one token by the shared counting rule): a short
 * echo of the last user message, then seeded words, 12 to 60 tokens in all.
 */
export function simPieces(model: string, messages: readonly ChatMessage[], variant = 0): string[] {
  const key = `${model}\u0000${variant}\u0000${messages.map((m) => `${m.role}:${messageText(m)}`).join('\u0001')}`;
  const random = prng(fnv1a(key));
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const echo = (lastUser ? messageText(lastUser) : '').match(/[\p{L}\p{N}]{1,6}/gu)?.slice(0, 6) ?? [];
  const pieces: string[] = ['On', ':'];
  for (const word of echo) pieces.push(` ${word}`);
  pieces.push(' -');
  const length = 12 + Math.floor(random() * 48);
  while (pieces.length < length) pieces.push(` ${WORDS[Math.floor(random() * WORDS.length)]!}`);
  pieces.push('.');
  return pieces;
}
