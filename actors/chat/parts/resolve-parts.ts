import { partTokens } from '../../../protocols/tokens.js';
import type { ChatMessage, ContentPart } from '../../../protocols/chat.js';
import type { TokenUsage } from '../../../protocols/pricing.js';
import type { ResolveContext, ResolvedPart } from './part-context.js';
import { resolveAudioPart } from './resolve-audio-part.js';
import { resolveFilePart } from './resolve-file-part.js';
import { resolveImagePart } from './resolve-image-part.js';
import { resolveVideoPart } from './resolve-video-part.js';

export type { ResolveContext } from './part-context.js';

/** A conversation whose non-text parts became text, and the processed tokens that took. */
export interface ResolvedConversation {
  messages: ChatMessage[];
  added: TokenUsage;
}

type MediaPart = Exclude<ContentPart, { type: 'text' }>;

/** Parts resolved at once per request: enough to overlap fetches, few enough to bound memory. */
const CONCURRENCY = 4;

const NOTHING_ADDED: TokenUsage = Object.freeze({ promptTokens: 0, completionTokens: 0 });

function hasMediaPart(message: ChatMessage): boolean {
  return Array.isArray(message.content) && message.content.some((part) => part.type !== 'text');
}

function resolvePart(part: MediaPart, at: string, context: ResolveContext): Promise<ResolvedPart> {
  switch (part.type) {
    case 'image_url':
      return resolveImagePart(part, at, context);
    case 'input_audio':
      return resolveAudioPart(part, at, context);
    case 'file':
      return resolveFilePart(part, at, context);
    case 'input_video':
      return resolveVideoPart(part, at, context);
  }
}

/** Resolves every part, a few at a time; the first failure stops the others and is thrown. */
async function resolveAll(parts: { part: MediaPart; at: string }[], context: ResolveContext): Promise<ResolvedPart[]> {
  const stop = new AbortController();
  const scoped: ResolveContext = { ...context, signal: AbortSignal.any([context.signal, stop.signal]) };
  const results: ResolvedPart[] = [];
  const state: { next: number; failure: { error: unknown } | null } = { next: 0, failure: null };
  const worker = async () => {
    while (!state.failure && state.next < parts.length) {
      const index = state.next++;
      const { part, at } = parts[index]!;
      try {
        results[index] = await resolvePart(part, at, scoped);
      } catch (error) {
        state.failure ??= { error };
        stop.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, parts.length) }, worker));
  context.signal.throwIfAborted();
  if (state.failure) throw state.failure.error;
  return results;
}

/**
 * Turns non-text content parts into text the chat backend can read (image analysis, audio
 * transcript, a stored file's extracted text, video frames and speech), billed as added tokens:
 * prompt tokens are each part's `partTokens` surcharge (what the worst-case hold budgets),
 * completion tokens those of the generated descriptions. Messages without such parts are passed
 * through as the same objects; with none at all the input array itself comes back.
 */
export async function resolveParts(messages: ChatMessage[], context: ResolveContext): Promise<ResolvedConversation> {
  if (!messages.some(hasMediaPart)) return { messages, added: NOTHING_ADDED };
  const parts: { part: MediaPart; at: string }[] = [];
  for (const [i, message] of messages.entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [j, part] of message.content.entries())
      if (part.type !== 'text') parts.push({ part, at: `messages[${i}].content[${j}]` });
  }
  const resolved = await resolveAll(parts, context);
  const added = { promptTokens: 0, completionTokens: 0 };
  for (const [index, { part }] of parts.entries()) {
    added.promptTokens += partTokens(part);
    added.completionTokens += resolved[index]!.generatedTokens;
  }
  let cursor = 0;
  const out = messages.map((message) => {
    if (!hasMediaPart(message)) return message;
    const content = (message.content as ContentPart[]).map((part): ContentPart =>
      part.type === 'text' ? part : { type: 'text', text: resolved[cursor++]!.text },
    );
    return { ...message, content };
  });
  return { messages: out, added };
}
