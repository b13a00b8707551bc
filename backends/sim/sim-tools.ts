import type { ChatBackendRequest, ToolDefinition } from '../chat-backend.js';
import { messageText, type ChatMessage } from '../../protocols/chat.js';
import { SimJson } from './sim-json.js';
import { fnv1a } from './sim-text.js';
import type { SimScript } from './sim-script.js';

/** A tool call the sim decided to make. */
export interface SimToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A tool's answer in the current turn, as the sim quotes it. */
export interface SimToolResult {
  name: string;
  output: string;
}

/** The current turn: the messages after the last user message (the tool calls and results of an agent loop). */
function currentTurn(messages: readonly ChatMessage[]): { userText: string; turn: readonly ChatMessage[] } {
  let last = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') {
      last = i;
      break;
    }
  }
  return { userText: last >= 0 ? messageText(messages[last]!) : '', turn: messages.slice(last + 1) };
}

const callKey = (name: string, args: string) => `${name}\u0000${args}`;

/** Calls already made in the turn, by name and arguments. */
function madeCalls(turn: readonly ChatMessage[]): Set<string> {
  const made = new Set<string>();
  for (const message of turn) {
    for (const call of message.tool_calls ?? []) made.add(callKey(call.function.name, call.function.arguments));
  }
  return made;
}

/** The words of a text, as the sim fills string arguments and values with them. */
export function wordsOf(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The words string arguments are filled with, the likeliest value first: the first capitalised word
 * that does not start a sentence (a name: "weather in Paris?" → Paris), else the first word.
 */
function argumentWords(text: string): string[] {
  const words = wordsOf(text);
  const name = /(?<![.!?]\s*|^\s*)\b(\p{Lu}[\p{L}\p{N}]*)/u.exec(text)?.[1];
  return name ? [name, ...words.filter((word) => word !== name)] : words;
}

/** The tools a request may call now, in the order of its tool list. */
function candidates(request: ChatBackendRequest, userText: string): readonly ToolDefinition[] {
  const choice = request.toolChoice;
  if (choice === 'none' || request.tools.length === 0) return [];
  if (typeof choice === 'object') return request.tools.filter((tool) => tool.name === choice.name);
  const lower = userText.toLowerCase();
  const named = request.tools.filter((tool) => lower.includes(tool.name.toLowerCase()));
  return choice === 'required' && named.length === 0 ? request.tools.slice(0, 1) : named;
}

function callOf(name: string, args: string, choiceIndex: number): SimToolCall {
  return { id: `call_${fnv1a(`${name}${args}${choiceIndex}`).toString(36)}`, name, arguments: args };
}

/**
 * Decides which tools the sim calls now (none: it answers in text). Scripted by
 * `metadata.sim.tool_call`; a clarifying question through `ask_user` when scripted; otherwise the
 * tools `tool_choice` forces, or with `auto` every tool the last user message names (all at once
 * unless `parallelToolCalls` is false, then one per step), or with `required` those named or else
 * the first tool. Arguments fill the tool's JSON Schema with the user's words (for strings the
 * first capitalised word inside a sentence, else the first word; 1 for numbers; the first enum value). A call already made in this turn with the same
 * arguments is never made again, so an agent loop that sends the results back gets an answer.
 */
export function simToolCalls(request: ChatBackendRequest, script: SimScript): SimToolCall[] {
  const { userText, turn } = currentTurn(request.messages);
  const made = madeCalls(turn);
  if (script.tool_call) {
    const { name, arguments: scripted } = script.tool_call;
    const args = typeof scripted === 'string' ? scripted : JSON.stringify(scripted ?? {});
    return made.has(callKey(name, args))
      ? []
      : [{ id: `call_${fnv1a(name + args).toString(36)}`, name, arguments: args }];
  }
  // Asks once: after the answer comes back as a tool message, the sim answers normally.
  const answered = request.messages.some((m) => m.role === 'tool');
  if (script.clarify && !answered && request.tools.some((tool) => tool.name === 'ask_user')) {
    const args = JSON.stringify({ question: script.clarify });
    return [{ id: `call_${fnv1a(args).toString(36)}`, name: 'ask_user', arguments: args }];
  }
  const words = argumentWords(userText);
  const calls: SimToolCall[] = [];
  for (const tool of candidates(request, userText)) {
    const args = JSON.stringify(
      tool.parameters ? new SimJson(tool.parameters, words, tool.name, { plain: true }).value() : {},
    );
    if (made.has(callKey(tool.name, args))) continue;
    calls.push(callOf(tool.name, args, request.choiceIndex));
    if (request.parallelToolCalls === false) break;
  }
  return calls;
}

/** The tool results of the current turn, with the name of the call each answers. */
export function simToolResults(messages: readonly ChatMessage[]): SimToolResult[] {
  const { turn } = currentTurn(messages);
  const names = new Map<string, string>();
  for (const message of turn) for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
  const results: SimToolResult[] = [];
  for (const message of turn) {
    if (message.role !== 'tool' && message.role !== 'function') continue;
    const name = (message.tool_call_id && names.get(message.tool_call_id)) || message.name || 'tool';
    results.push({ name, output: messageText(message) });
  }
  return results;
}
