import type { ChatBackendRequest } from '../chat-backend.js';
import { messageText } from '../../protocols/chat.js';
import { SimJson } from './sim-json.js';
import { simPieces } from './sim-text.js';
import { simToolResults, wordsOf, type SimToolResult } from './sim-tools.js';

/** Longest part of a tool's output the sim quotes. */
const MAX_QUOTE = 400;

function quote(output: string): string {
  const flat = output.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_QUOTE ? `${flat.slice(0, MAX_QUOTE)}…` : flat;
}

/** The text answer after tool results: each tool's output quoted, in the order they came back. */
function toolAnswer(results: readonly SimToolResult[]): string {
  return `${results.map((result) => `${result.name} returned ${quote(result.output) || '(nothing)'}`).join('; ')}.`;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The whole answer when it is not the sim's default seeded text (null: it is): a JSON answer for
 * `json_schema` (a value of the schema, or a scripted reply that is JSON) and `json_object`
 * (`{"answer": text}`), the scripted reply, or, after tool results in this turn, the tools'
 * outputs quoted.
 */
export function simAnswerText(request: ChatBackendRequest, scripted: string | undefined): string | null {
  const results = simToolResults(request.messages);
  const text = scripted ?? (results.length > 0 ? toolAnswer(results) : undefined);
  const format = request.responseFormat;
  if (format.type === 'json_schema' && format.schema) {
    if (scripted !== undefined && parsesAsJson(scripted)) return scripted;
    const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
    const source = [...results.map((result) => result.output), text ?? '', lastUser ? messageText(lastUser) : ''].join(
      ' ',
    );
    const seed = `${request.model}\u0000${request.choiceIndex}\u0000${source}`;
    return JSON.stringify(new SimJson(format.schema, wordsOf(source), seed).value());
  }
  if (format.type !== 'text') {
    const answer = text ?? simPieces(request.model, request.messages, request.choiceIndex).join('');
    return JSON.stringify({ answer: answer.trim() });
  }
  return text ?? null;
}
