import type { ChatCompletionRequest, ChatMessage, ContentPart } from '../../protocols/chat.js';
import { ApiError } from '../../protocols/errors.js';
import type {
  CountTokensRequest,
  MessagesContentBlock,
  MessagesMessage,
  MessagesRequest,
  MessagesToolChoice,
} from '../../protocols/messages.js';

// A Messages API request as the chat request the one chat machinery runs (plans, passes, tools,
// holds, backends, the sim's rules): Anthropic's blocks become chat messages and parts.

type Block = MessagesContentBlock;
type ToolResult = Extract<Block, { type: 'tool_result' }>;

/** The text of blocks that carry text; other blocks are left out. */
function blocksText(blocks: readonly { type: string; text?: string }[]): string {
  let text = '';
  for (const block of blocks) if (block.type === 'text') text += (text ? '\n' : '') + block.text!;
  return text;
}

/** A document: inline text, a base64 file (text is read, others refused by the part resolver), or a stored file. */
function documentPart(block: Extract<Block, { type: 'document' }>, at: string): ContentPart {
  const { source } = block;
  switch (source.type) {
    case 'text':
      return { type: 'text', text: block.title ? `${block.title}\n${source.data}` : source.data };
    case 'base64':
      return {
        type: 'file',
        file: { file_data: `data:${source.media_type};base64,${source.data}`, filename: block.title ?? undefined },
      };
    case 'file':
      return { type: 'file', file: { file_id: source.file_id } };
    case 'url':
      throw new ApiError(
        'invalid_request',
        `The document in ${at} has a url source, which is not fetched: upload it with POST /v1/files and send its file_id, or send it as base64.`,
        { param: `${at}.source` },
      );
  }
}

/** A content block the user sent, as a chat part (tool blocks are handled by the caller). */
function userPart(block: Exclude<Block, { type: 'tool_use' | 'tool_result' }>, at: string): ContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return {
        type: 'image_url',
        image_url: {
          url:
            block.source.type === 'base64'
              ? `data:${block.source.media_type};base64,${block.source.data}`
              : block.source.url,
        },
      };
    case 'document':
      return documentPart(block, at);
  }
}

/** A tool result's content as the tool message's text; an error result says so. */
function toolResultText(block: ToolResult): string {
  const text = typeof block.content === 'string' ? block.content : blocksText(block.content ?? []);
  return block.is_error ? `Error: ${text}` : text;
}

/** One turn as chat messages: a user turn's tool results come first, as tool messages. */
function pushTurn(out: ChatMessage[], message: MessagesMessage, index: number): void {
  const { role, content } = message;
  if (typeof content === 'string') {
    out.push({ role, content });
    return;
  }
  const at = `messages.${index}.content`;
  if (role === 'assistant') {
    const toolCalls = [];
    for (const block of content) {
      if (block.type === 'tool_use')
        toolCalls.push({
          id: block.id,
          type: 'function' as const,
          function: { name: block.name, arguments: JSON.stringify(block.input) },
        });
      else if (block.type === 'tool_result')
        throw new ApiError('invalid_request', `${at}: tool_result blocks belong in a user message.`, { param: at });
    }
    const text = blocksText(content);
    out.push(toolCalls.length ? { role, content: text || null, tool_calls: toolCalls } : { role, content: text });
    return;
  }
  const parts: ContentPart[] = [];
  content.forEach((block, i) => {
    if (block.type === 'tool_result')
      out.push({ role: 'tool', tool_call_id: block.tool_use_id, content: toolResultText(block) });
    else if (block.type === 'tool_use')
      throw new ApiError('invalid_request', `${at}.${i}: tool_use blocks belong in an assistant message.`, {
        param: `${at}.${i}`,
      });
    else parts.push(userPart(block, `${at}.${i}`));
  });
  if (parts.length) out.push({ role, content: parts });
}

/** The system prompt and the turns, as chat messages. */
export function chatMessagesOf(request: CountTokensRequest): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const system = typeof request.system === 'string' ? request.system : blocksText(request.system ?? []);
  if (system) messages.push({ role: 'system', content: system });
  request.messages.forEach((message, index) => pushTurn(messages, message, index));
  return messages;
}

/** `tool_choice` as chat's; `disable_parallel_tool_use` is chat's `parallel_tool_calls: false`. */
function toolChoiceOf(
  choice: MessagesToolChoice | undefined,
): Pick<ChatCompletionRequest, 'tool_choice' | 'parallel_tool_calls'> {
  if (!choice) return {};
  const parallel = 'disable_parallel_tool_use' in choice && choice.disable_parallel_tool_use === true ? false : null;
  switch (choice.type) {
    case 'auto':
      return { tool_choice: 'auto', parallel_tool_calls: parallel };
    case 'any':
      return { tool_choice: 'required', parallel_tool_calls: parallel };
    case 'tool':
      return { tool_choice: { type: 'function', function: { name: choice.name } }, parallel_tool_calls: parallel };
    case 'none':
      return { tool_choice: 'none' };
  }
}

/** The chat request a validated Messages request runs as (one choice; no judge or approval). */
export function chatRequestOf(request: MessagesRequest): ChatCompletionRequest {
  const { metadata } = request;
  return {
    model: request.model,
    messages: chatMessagesOf(request),
    stream: request.stream === true,
    n: 1,
    enable_judge: false,
    require_approval: false,
    max_tokens: request.max_tokens,
    stop: request.stop_sequences ?? null,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    metadata: metadata ?? null,
    user: typeof metadata?.user_id === 'string' ? metadata.user_id : null,
    tools: request.tools?.map((tool) => ({
      type: 'function' as const,
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    })),
    ...toolChoiceOf(request.tool_choice),
  };
}
