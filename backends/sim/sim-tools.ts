import type { ChatBackendRequest, ToolDefinition } from '../chat-backend.js';
import { messageText } from '../../protocols/chat.js';
import { fnv1a } from './sim-text.js';
import type { SimScript } from './sim-script.js';

/** A tool call the sim decided to make. */
export interface SimToolCall {
  id: string;
  name: string;
  arguments: string;
}

function exampleValue(schema: unknown, seedWord: string): unknown {
  const s = (schema ?? {}) as {
    type?: string;
    enum?: unknown[];
    properties?: Record<string, unknown>;
    required?: string[];
  };
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (s.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return exampleObject(s, seedWord);
    default:
      return seedWord;
  }
}

function exampleObject(
  schema: { properties?: Record<string, unknown>; required?: string[] },
  seedWord: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys = schema.required ?? Object.keys(schema.properties ?? {});
  for (const key of keys) out[key] = exampleValue(schema.properties?.[key], seedWord);
  return out;
}

function pick(request: ChatBackendRequest, lastUser: string): ToolDefinition | undefined {
  const choice = request.toolChoice;
  if (choice === 'none' || request.tools.length === 0) return undefined;
  if (typeof choice === 'object') return request.tools.find((tool) => tool.name === choice.name);
  if (choice === 'required') return request.tools[0];
  const lower = lastUser.toLowerCase();
  return request.tools.find((tool) => lower.includes(tool.name.toLowerCase()));
}

/**
 * Decides whether the sim answers with a tool call: scripted by `metadata.sim.tool_call`, forced by
 * `tool_choice`, or with `auto` when the last user message names a tool. Arguments are filled
 * from the tool's JSON Schema with deterministic values.
 */
export function simToolCall(request: ChatBackendRequest, script: SimScript): SimToolCall | undefined {
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
  const text = lastUser ? messageText(lastUser) : '';
  if (script.tool_call) {
    const args =
      typeof script.tool_call.arguments === 'string'
        ? script.tool_call.arguments
        : JSON.stringify(script.tool_call.arguments ?? {});
    return {
      id: `call_${fnv1a(script.tool_call.name + args).toString(36)}`,
      name: script.tool_call.name,
      arguments: args,
    };
  }
  // Asks once: after the answer comes back as a tool message, the sim answers normally.
  const answered = request.messages.some((m) => m.role === 'tool');
  if (script.clarify && !answered && request.tools.some((tool) => tool.name === 'ask_user')) {
    const args = JSON.stringify({ question: script.clarify });
    return { id: `call_${fnv1a(args).toString(36)}`, name: 'ask_user', arguments: args };
  }
  const tool = pick(request, text);
  if (!tool) return undefined;
  const seedWord = text.match(/[\p{L}\p{N}]+/u)?.[0] ?? 'value';
  const args = JSON.stringify(exampleObject(tool.parameters ?? {}, seedWord));
  return {
    id: `call_${fnv1a(`${tool.name}${args}${request.choiceIndex}`).toString(36)}`,
    name: tool.name,
    arguments: args,
  };
}
