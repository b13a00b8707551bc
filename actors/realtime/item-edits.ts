import { isMessage, rejection, type CallEmitted, type CallItem, type CallMessage } from './call-events.js';
import { storedView } from './call-conversation.js';

// Conversation editing (`conversation.item.truncate`, `.delete`, `.retrieve`) and what a cut
// leaves of an assistant item: pure functions of the items, each an outcome or a refusal.

/**
 * The part of `text` heard when `heardMs` of its `totalMs` of speech were played: the same share of
 * its characters (speech takes time in proportion to its text, exactly so for the sim's voice),
 * cut back to the last whole word.
 */
export function heardText(text: string, heardMs: number, totalMs: number): string {
  if (totalMs <= 0 || heardMs >= totalMs) return text;
  const cut = Math.floor((text.length * Math.max(0, heardMs)) / totalMs);
  if (cut >= text.length) return text;
  const head = text.slice(0, cut + 1);
  const end = /\s\S*$/u.exec(head);
  return (end ? head.slice(0, end.index) : '').trimEnd();
}

/** `item` cut at `audioEndMs` of its audio (its text cut to match). */
export function truncated(item: CallMessage, audioEndMs: number): CallMessage {
  if (audioEndMs >= item.audioMs) return item;
  return {
    ...item,
    text: heardText(item.text, audioEndMs, item.audioMs),
    audioMs: audioEndMs,
    producedMs: item.producedMs ?? item.audioMs,
  };
}

/** The outcome of a client's edit of its conversation: the new items and what to announce, or a refusal. */
export type ItemEdit = { items?: CallItem[]; emitted: CallEmitted };

/** `conversation.item.truncate`: only an assistant item with audio, at most as far as its audio went. */
export function truncateEdit(
  items: readonly CallItem[],
  edit: { itemId: string; contentIndex: number; audioEndMs: number; clientEventId: string | null },
): ItemEdit {
  const index = items.findIndex((item) => item.id === edit.itemId);
  const item = items[index];
  if (!item) return { emitted: itemNotFound(edit.itemId, edit.clientEventId) };
  const refuse = (message: string, param: string) =>
    ({ emitted: rejection('invalid_value', message, { param, clientEventId: edit.clientEventId }) }) as const;
  if (!isMessage(item) || item.role !== 'assistant' || (item.producedMs ?? item.audioMs) <= 0)
    return refuse(`Item ${edit.itemId} is not an assistant audio item: only those can be truncated.`, 'item_id');
  if (edit.contentIndex !== 0)
    return refuse('An assistant audio item has one content part (index 0).', 'content_index');
  if (edit.audioEndMs > (item.producedMs ?? item.audioMs))
    return refuse(
      `audio_end_ms ${edit.audioEndMs} is beyond the item's ${item.producedMs ?? item.audioMs} ms of audio.`,
      'audio_end_ms',
    );
  const next = [...items];
  next[index] = truncated(item, edit.audioEndMs);
  return {
    items: next,
    emitted: { type: 'itemTruncated', itemId: item.id, contentIndex: 0, audioEndMs: edit.audioEndMs },
  };
}

/** `conversation.item.delete`: the item leaves the conversation (later responses no longer see it). */
export function deleteEdit(items: readonly CallItem[], itemId: string, clientEventId: string | null): ItemEdit {
  if (!items.some((item) => item.id === itemId)) return { emitted: itemNotFound(itemId, clientEventId) };
  return { items: items.filter((item) => item.id !== itemId), emitted: { type: 'itemDeleted', itemId } };
}

/** `conversation.item.retrieve`: the item as the conversation holds it now. */
export function retrieveEdit(items: readonly CallItem[], itemId: string, clientEventId: string | null): ItemEdit {
  const item = items.find((candidate) => candidate.id === itemId);
  return { emitted: item ? { type: 'itemRetrieved', item: storedView(item) } : itemNotFound(itemId, clientEventId) };
}

/** The refusal of an edit naming an item the conversation does not hold. */
export function itemNotFound(
  itemId: string,
  clientEventId: string | null,
  param: 'item_id' | 'previous_item_id' = 'item_id',
): CallEmitted {
  return rejection('item_not_found', `The conversation holds no item '${itemId}'.`, { param, clientEventId });
}
