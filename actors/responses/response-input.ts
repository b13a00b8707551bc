import type { ChatMessage, ContentPart } from '../../protocols/chat.js';
import type { InputContentPart, InputItem, OutputItem, StoredInputItem } from '../../protocols/responses.js';

// A response's input as the chat machinery reads it: items become chat messages, function calls
// and their outputs become assistant tool calls and tool messages, as OpenAI's own mapping does.

/** A content part as chat reads it; an earlier assistant turn's output text is plain text again. */
function chatPart(part: InputContentPart): ContentPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'text', text: part.refusal };
    case 'input_image':
      return part.image_url != null
        ? { type: 'image_url', image_url: { url: part.image_url, ...(part.detail != null && { detail: part.detail }) } }
        : { type: 'file', file: { file_id: part.file_id! } };
    case 'input_file':
      return {
        type: 'file',
        file: {
          ...(part.file_id != null && { file_id: part.file_id }),
          ...(part.file_data != null && { file_data: part.file_data }),
          ...(part.filename != null && { filename: part.filename }),
        },
      };
  }
}

function chatContent(content: string | readonly InputContentPart[]): ChatMessage['content'] {
  if (typeof content === 'string') return content;
  // Text only: chat's plain string, which every backend and the cache key read the same way.
  if (content.every((part) => part.type === 'input_text' || part.type === 'output_text'))
    return content.map((part) => (part as { text: string }).text).join('\n');
  return content.map(chatPart);
}

/** Appends a function call to the assistant message before it, so parallel calls share one message. */
function pushToolCall(messages: ChatMessage[], call: { call_id: string; name: string; arguments: string }): void {
  const toolCall = {
    id: call.call_id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  };
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant' && last.tool_calls) last.tool_calls.push(toolCall);
  else messages.push({ role: 'assistant', content: null, tool_calls: [toolCall] });
}

/** The chat messages of `input` (a string is one user message). */
export function inputMessages(input: string | readonly InputItem[] | undefined): ChatMessage[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: ChatMessage[] = [];
  for (const item of input) {
    switch (item.type) {
      case 'function_call':
        pushToolCall(messages, item);
        break;
      case 'function_call_output':
        messages.push({ role: 'tool', tool_call_id: item.call_id, content: chatContent(item.output) });
        break;
      case 'file_search_call':
        // Its results reached the model as context when it ran; the call itself adds nothing.
        break;
      default:
        messages.push({ role: item.role, content: chatContent(item.content) });
    }
  }
  return messages;
}

/** A response's output as the next turn's context: its text and its function calls. */
export function outputMessages(output: readonly OutputItem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const item of output) {
    if (item.type === 'message')
      messages.push({ role: 'assistant', content: item.content.map((c) => c.text).join('') });
    else if (item.type === 'function_call') pushToolCall(messages, item);
  }
  return messages;
}

const ITEM_PREFIX: Record<string, string> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  file_search_call: 'fs',
};

/**
 * The request's input items as GET …/input_items lists them: each with an id, the client's or one
 * made from the response's id and the item's place (`msg_<response>_<n>`): unique, the same in every
 * record of the response (a background one is stored queued, then finished), and no random draw.
 */
export function storedInputItems(
  input: string | readonly InputItem[] | undefined,
  responseId: string,
): StoredInputItem[] {
  const own = responseId.slice(responseId.indexOf('_') + 1);
  if (input === undefined) return [];
  const items: readonly InputItem[] =
    typeof input === 'string'
      ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }]
      : input;
  return items.map((item, index) => {
    const type = item.type ?? 'message';
    return { ...item, type, id: item.id ?? `${ITEM_PREFIX[type]}_${own}_${index}` };
  });
}
