import type { ChatMessage } from '../../protocols/chat.js';
import { isMessage, type CallItem, type ItemContent, type ItemView } from './call-events.js';

// A call's conversation as items: how an item joins it, which items a response sees, and how they
// reach the chat backend. Pure functions of the items.

/** Items sent to the model per response: the newest, so a long call stays bounded. */
export const CONTEXT_ITEMS = 60;
/** Items kept in the snapshot; older ones stay in the actor's event log. */
export const MAX_ITEMS = 200;

/** `items` with `item` appended (the last MAX_ITEMS kept). */
export function withItem(items: readonly CallItem[], item: CallItem | null): CallItem[] {
  return item ? [...items, item].slice(-MAX_ITEMS) : [...items];
}

/**
 * `items` with `item` inserted after the item `previousItemId` (`root`: first), as OpenAI's
 * `previous_item_id` places it; null when no item has that id. The last MAX_ITEMS are kept.
 */
export function withItemAfter(items: readonly CallItem[], item: CallItem, previousItemId: string): CallItem[] | null {
  const at = previousItemId === 'root' ? 0 : items.findIndex((candidate) => candidate.id === previousItemId) + 1;
  if (at === 0 && previousItemId !== 'root') return null;
  return [...items.slice(0, at), item, ...items.slice(at)].slice(-MAX_ITEMS);
}

/**
 * The chat messages of a call: its instructions, then its items: messages as text, function calls
 * as an assistant message's `tool_calls` (the calls of one response, after its text, travel in one
 * message), outputs as `tool` messages.
 */
export function conversationMessages(instructions: string, items: readonly CallItem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (instructions) messages.push({ role: 'system', content: instructions });
  for (const item of items) {
    if (isMessage(item)) {
      if (item.text) messages.push({ role: item.role, content: item.text });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.callId, content: item.output });
    } else {
      const call = {
        id: item.callId,
        type: 'function' as const,
        function: { name: item.name, arguments: item.arguments },
      };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    }
  }
  return messages;
}

/**
 * The newest items a response sees: the last CONTEXT_ITEMS, widened back so that no function
 * call's output is sent without its call (a chat API refuses a `tool` message whose call it has
 * not seen); an output whose call is no longer held at all is left out.
 */
export function contextItems(items: readonly CallItem[]): CallItem[] {
  const callAt = new Map<string, number>();
  items.forEach((item, index) => {
    if (item.type === 'function_call') callAt.set(item.callId, index);
  });
  let start = Math.max(0, items.length - CONTEXT_ITEMS);
  // Widening can bring in earlier outputs whose calls lie further back: repeat until none does.
  for (let widened = true; widened;) {
    widened = false;
    for (let index = start; index < items.length; index++) {
      const item = items[index]!;
      const call = item.type === 'function_call_output' ? callAt.get(item.callId) : undefined;
      if (call !== undefined && call < start) {
        start = call;
        widened = true;
      }
    }
  }
  return items.slice(start).filter((item) => item.type !== 'function_call_output' || callAt.has(item.callId));
}

/** A stored item as announced: a message's text as the part it came as (heard or spoken audio, or text). */
export function storedView(item: CallItem): ItemView {
  if (!isMessage(item)) return item;
  let part: ItemContent;
  if (item.role === 'assistant')
    part =
      item.audioMs > 0 || item.producedMs
        ? { type: 'output_audio', transcript: item.text }
        : { type: 'output_text', text: item.text };
  else
    part =
      item.role === 'user' && item.audioMs > 0
        ? { type: 'input_audio', transcript: item.text }
        : { type: 'input_text', text: item.text };
  return { id: item.id, role: item.role, content: [part] };
}
