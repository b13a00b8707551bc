import type { ChatMessage } from '../../protocols/chat.js';
import type { TokenUsage } from '../../protocols/pricing.js';

/** Where part resolution runs: whose files may be read, and when to give up. */
export interface ResolveContext {
  accountId: string;
  signal: AbortSignal;
}

/** A conversation whose non-text parts became text, and the processed tokens that took. */
export interface ResolvedConversation {
  messages: ChatMessage[];
  added: TokenUsage;
}

/**
 * Turns non-text content parts into text the chat backend can read (image analysis, audio
 * transcript, a stored file's extracted text, video frames and speech), billed as added tokens.
 */
export function resolveParts(messages: ChatMessage[], _context: ResolveContext): Promise<ResolvedConversation> {
  return Promise.resolve({ messages, added: { promptTokens: 0, completionTokens: 0 } });
}
