import type { ChatMessage } from '../../protocols/chat.js';
import type { ChatBackendRequest, ToolChoice, ToolDefinition } from '../chat-backend.js';

/** The JSON body of `POST {baseUrl}/chat/completions`, in OpenAI's shape. */
export type UpstreamRequestBody = Record<string, unknown>;

/**
 * Message fields a null value may not be sent for: strict upstreams (OpenAI, vLLM) reject
 * `"name": null` and friends. `content: null` stays, since an assistant turn with tool calls needs it.
 */
const DROP_WHEN_NULL = ['name', 'tool_call_id', 'tool_calls'] as const;

function upstreamMessage(message: ChatMessage): ChatMessage {
  if (!DROP_WHEN_NULL.some((key) => message[key] === null)) return message;
  const copy: Record<string, unknown> = { ...message };
  for (const key of DROP_WHEN_NULL) if (copy[key] === null) delete copy[key];
  return copy as ChatMessage;
}

function upstreamTool(tool: ToolDefinition): Record<string, unknown> {
  const fn: Record<string, unknown> = { name: tool.name };
  if (tool.description !== null) fn.description = tool.description;
  if (tool.parameters !== null) fn.parameters = tool.parameters;
  return { type: 'function', function: fn };
}

function upstreamToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

function upstreamResponseFormat(format: ChatBackendRequest['responseFormat']): unknown {
  if (format.type === 'json_object') return { type: 'json_object' };
  // OpenAI requires a name; ours is not carried past the boundary, so every schema is "response".
  if (format.type === 'json_schema')
    return {
      type: 'json_schema',
      json_schema: format.schema ? { name: 'response', schema: format.schema } : { name: 'response' },
    };
  return undefined;
}

/**
 * The upstream request for `request`, sent as `model`: streaming with usage when the caller reads
 * the answer as it comes, a plain JSON answer when it only wants the whole (cheaper both ends).
 */
export function createUpstreamRequestBody(request: ChatBackendRequest, model: string): UpstreamRequestBody {
  const stream = request.stream !== false;
  const body: UpstreamRequestBody = stream
    ? {
        model,
        messages: request.messages.map(upstreamMessage),
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: request.maxTokens,
      }
    : { model, messages: request.messages.map(upstreamMessage), stream: false, max_tokens: request.maxTokens };
  if (request.temperature !== null) body.temperature = request.temperature;
  if (request.stop.length > 0) body.stop = [...request.stop];
  const responseFormat = upstreamResponseFormat(request.responseFormat);
  if (responseFormat !== undefined) body.response_format = responseFormat;
  if (request.tools.length > 0) {
    body.tools = request.tools.map(upstreamTool);
    body.tool_choice = upstreamToolChoice(request.toolChoice);
    if (request.parallelToolCalls === false) body.parallel_tool_calls = false;
  }
  return body;
}
