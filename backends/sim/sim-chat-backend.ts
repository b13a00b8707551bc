import { setTimeout as sleep } from 'node:timers/promises';
import { countPromptTokens, countTokens } from '../tokens.js';
import type { ChatBackend, ChatBackendEvent, ChatBackendRequest } from '../chat-backend.js';
import { RetryableError } from '../errors.js';
import { readSimScript } from './sim-script.js';
import { simPieces } from './sim-text.js';
import { simToolCall } from './sim-tools.js';

/** Latency model of the sim: time to first token and tokens per second (0 = no delay). */
export interface SimLatency {
  ttftMs: number;
  tokensPerSecond: number;
}

function asJson(pieces: string[]): string[] {
  const text = pieces.join('').trim();
  return ['{"', 'answer', '":', ` ${JSON.stringify(text)}`, '}'];
}

const PIECE = /\s*[\p{L}\p{N}]{1,6}|\s*[^\s\p{L}\p{N}]|\s+$/gu;

/** A scripted reply cut into token-sized pieces as they are streamed, not held whole per stream. */
function* piecesOf(text: string): Generator<string> {
  for (const match of text.matchAll(PIECE)) yield match[0];
}

function firstStop(text: string, stops: readonly string[]): number {
  let at = -1;
  for (const stop of stops) {
    const index = stop ? text.indexOf(stop) : -1;
    if (index >= 0 && (at < 0 || index < at)) at = index;
  }
  return at;
}

function answerPieces(request: ChatBackendRequest, reply: string | undefined): Iterable<string> {
  const pieces = reply !== undefined ? piecesOf(reply) : simPieces(request.model, request.messages, request.choiceIndex);
  return request.responseFormat.type === 'text' ? pieces : asJson([...pieces]);
}

/**
 * The embedded default backend: deterministic text (or a tool call) derived from the input, with
 * a latency model so load tests look like a provider. Usage counts exactly what it produced.
 */
export function createSimChatBackend(latency: SimLatency): ChatBackend {
  return {
    name: 'sim',
    latency: { ttftMs: latency.ttftMs, tokensPerSecond: latency.tokensPerSecond },
    async *stream(request: ChatBackendRequest): AsyncIterable<ChatBackendEvent> {
      const script = readSimScript(request.metadata);
      if (script.fail === 'unavailable') throw new RetryableError('sim: provider unavailable (scripted)', 'upstream_unavailable');
      if (script.fail === 'timeout') throw new RetryableError('sim: provider timed out (scripted)', 'upstream_timeout');
      if (script.fail === 'error') throw new RetryableError('sim: provider returned an error (scripted)', 'upstream_error');
      const ttftMs = script.ttft_ms ?? latency.ttftMs;
      const tokensPerSecond = script.tokens_per_s ?? latency.tokensPerSecond;
      const gapMs = tokensPerSecond > 0 ? 1000 / tokensPerSecond : 0;
      const promptTokens = countPromptTokens(request.messages);
      if (ttftMs > 0) await sleep(ttftMs, undefined, { signal: request.signal });

      const call = simToolCall(request, script);
      if (call) {
        // Tool calls stream like OpenAI's: id and name first, then the arguments in fragments.
        yield { type: 'tool_call', index: 0, id: call.id, name: call.name, arguments: '' };
        for (let at = 0; at < call.arguments.length; at += 8) {
          request.signal.throwIfAborted();
          if (gapMs > 0) await sleep(gapMs, undefined, { signal: request.signal });
          yield { type: 'tool_call', index: 0, arguments: call.arguments.slice(at, at + 8) };
        }
        yield { type: 'done', finishReason: 'tool_calls', usage: { promptTokens, completionTokens: countTokens(call.name + call.arguments) } };
        return;
      }

      const reply = script.reply ?? (script.clarify !== undefined ? script.clarify : undefined);
      let emitted = '';
      let completionTokens = 0;
      let finishReason: 'stop' | 'length' = 'stop';
      let index = -1;
      for (const piece of answerPieces(request, reply)) {
        index++;
        request.signal.throwIfAborted();
        const cost = countTokens(piece);
        if (completionTokens + cost > request.maxTokens) {
          finishReason = 'length';
          break;
        }
        const stopAt = request.stop.length ? firstStop(emitted + piece, request.stop) : -1;
        if (stopAt >= 0) {
          const tail = (emitted + piece).slice(emitted.length, Math.max(emitted.length, stopAt));
          if (tail) yield { type: 'delta', text: tail };
          completionTokens += countTokens(tail);
          break;
        }
        if (index > 0 && gapMs > 0) await sleep(gapMs, undefined, { signal: request.signal });
        // The text so far is only needed to find stop sequences that span pieces.
        if (request.stop.length) emitted += piece;
        completionTokens += cost;
        yield { type: 'delta', text: piece };
      }
      yield { type: 'done', finishReason, usage: { promptTokens, completionTokens } };
    },
  };
}
