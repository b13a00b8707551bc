import type { ChatCompletionRequest, ChatMessage } from '../../protocols/chat.js';
import type { ResponseCreateRequest, ResponseTool } from '../../protocols/responses.js';

type FunctionTool = Extract<ResponseTool, { type: 'function' }>;

/** The request's function tools (file search runs before the model, not as a tool it calls). */
export function functionTools(request: ResponseCreateRequest): FunctionTool[] {
  return (request.tools ?? []).filter((tool): tool is FunctionTool => tool.type === 'function');
}

/** `metadata` as the chat backends read it: `metadata.sim` may arrive as the JSON of its script (SDKs type values as strings). */
export function chatMetadata(metadata: ResponseCreateRequest['metadata']): Record<string, unknown> | null {
  if (!metadata) return null;
  if (typeof metadata.sim !== 'string') return metadata;
  try {
    return { ...metadata, sim: JSON.parse(metadata.sim) as unknown };
  } catch {
    // An unreadable script is ignored, as on chat.
    return metadata;
  }
}

function toolChoice(request: ResponseCreateRequest, hasTools: boolean): ChatCompletionRequest['tool_choice'] {
  const choice = request.tool_choice;
  if (!hasTools || choice == null) return null;
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function') return { type: 'function', function: { name: (choice as { name: string }).name } };
  return 'auto';
}

function responseFormat(request: ResponseCreateRequest): ChatCompletionRequest['response_format'] {
  const format = request.text?.format;
  if (!format || format.type === 'text') return null;
  if (format.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    json_schema: { name: format.name, schema: format.schema, ...(format.strict != null && { strict: format.strict }) },
  };
}

/**
 * The chat completion a response runs as: the same plan, passes, tools, holds, backends and cache
 * as POST /v1/chat/completions. `messages` is the whole conversation (earlier turns, instructions
 * and this input); `stream` only says how the client is answered.
 */
export function chatRequestOf(
  request: ResponseCreateRequest,
  messages: ChatMessage[],
  model: string,
): ChatCompletionRequest {
  const tools = functionTools(request);
  return {
    model,
    messages,
    stream: request.stream,
    n: 1,
    temperature: request.temperature ?? null,
    top_p: request.top_p ?? null,
    max_completion_tokens: request.max_output_tokens ?? null,
    response_format: responseFormat(request),
    metadata: chatMetadata(request.metadata),
    tools: tools.length
      ? tools.map((tool) => ({
          type: 'function' as const,
          function: {
            name: tool.name,
            ...(tool.description != null && { description: tool.description }),
            ...(tool.parameters != null && { parameters: tool.parameters }),
          },
        }))
      : null,
    tool_choice: toolChoice(request, tools.length > 0),
    parallel_tool_calls: request.parallel_tool_calls ?? null,
    user: request.user ?? null,
    enable_judge: false,
    require_approval: false,
  };
}
