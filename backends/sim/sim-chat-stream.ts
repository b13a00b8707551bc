import { countPromptTokens, countTokens } from '../../protocols/tokens.js';
import { ensureError } from '../../protocols/errors.js';
import type { ChatBackendEvent, ChatBackendRequest } from '../chat-backend.js';
import type { PacedWaiter, SimPacer } from './sim-pacer.js';
import { readSimScript, scriptedFailure } from './sim-script.js';
import { simPieces } from './sim-text.js';
import { simAnswerText } from './sim-answer.js';
import { simToolCalls, type SimToolCall } from './sim-tools.js';
import type { CancelSignal } from '../../runtime/cancel-signal.js';

const PIECE = /\s*[\p{L}\p{N}]{1,6}|\s*[^\s\p{L}\p{N}]|\s+$/gu;

function firstStop(text: string, stops: readonly string[]): { at: number; stop: string } {
  let at = -1;
  let found = '';
  for (const stop of stops) {
    const index = stop ? text.indexOf(stop) : -1;
    if (index >= 0 && (at < 0 || index < at)) {
      at = index;
      found = stop;
    }
  }
  return { at, stop: found };
}

/** What an aborted wait rejects with: the same as `timers/promises` (an AbortError caused by the signal's reason). */
function abortError(signal: CancelSignal): Error {
  const err = new Error('The operation was aborted', { cause: signal.reason });
  err.name = 'AbortError';
  (err as Error & { code: string }).code = 'ABORT_ERR';
  return err;
}

/** Where a stream is: not started, streaming a tool call, streaming text, finished. */
const START = 0;
const TOOL = 1;
const TEXT = 2;
const FINISHED = 3;

/** Returned by `advance` when the stream must wait for the pacer before going on. */
const WAIT = Symbol('wait');

type Step = IteratorResult<ChatBackendEvent> | typeof WAIT;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * One sim answer as an async iterator, written as a small state machine instead of an async
 * generator: an open stream waiting for its next token holds this object and one pending promise,
 * and the waits go through the shared {@link SimPacer} (no timer, promise or abort listener per
 * token). Events, usage, stop sequences, `maxTokens` and abort behave as the generator did: a
 * scripted failure rejects the first `next()`, an abort rejects the pending wait at once.
 */
export class SimChatStream implements AsyncIterableIterator<ChatBackendEvent>, PacedWaiter {
  private phase = START;
  /** Time to first token and the gap between tokens (0 = none). */
  private ttftMs: number;
  private gapMs: number;
  private promptTokens = 0;
  private completionTokens = 0;
  /** The scripted reply scanned piece by piece (null: `pieces` holds the answer). */
  private reply: string | null = null;
  private pieces: string[] | null = null;
  /** Position in `reply`, or index in `pieces`, or in the current tool call's arguments. */
  private cursor = 0;
  /** Pieces (or fragments of the current tool call) handed out so far. */
  private index = 0;
  private emitted = '';
  /** The stop sequence that cut the answer, reported with the end (the Messages API names it). */
  private matchedStop: string | undefined;
  /** The tool calls of this answer (empty: it is text), and which one is streaming. */
  private calls: SimToolCall[] = [];
  private callIndex = 0;
  /** The event to hand out once the current wait is over (null: go on computing), and its tokens. */
  private held: ChatBackendEvent | null = null;
  private heldTokens = 0;
  private waiting = false;
  private listening = false;
  private resolve: ((result: IteratorResult<ChatBackendEvent>) => void) | null = null;
  private reject: ((err: unknown) => void) | null = null;
  private current: Promise<IteratorResult<ChatBackendEvent>> | null = null;

  constructor(
    private readonly request: ChatBackendRequest,
    latency: { ttftMs: number; tokensPerSecond: number },
    private readonly pacer: SimPacer,
  ) {
    this.ttftMs = latency.ttftMs;
    this.gapMs = latency.tokensPerSecond > 0 ? 1000 / latency.tokensPerSecond : 0;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<ChatBackendEvent>> {
    // Calls made while one is pending are answered in order, as an async generator's are.
    if (this.current)
      return this.current.then(
        () => this.next(),
        () => this.next(),
      );
    let step: Step;
    try {
      step = this.advance();
    } catch (err) {
      this.finish();
      return Promise.reject(ensureError(err));
    }
    if (step !== WAIT) return Promise.resolve(step);
    this.current = new Promise<IteratorResult<ChatBackendEvent>>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    return this.current;
  }

  return(): Promise<IteratorResult<ChatBackendEvent>> {
    const resolve = this.resolve;
    this.resolve = this.reject = null;
    this.current = null;
    this.finish();
    resolve?.(DONE);
    return Promise.resolve(DONE);
  }

  /** The pacer's wake-up: hand out the held event, or go on computing. */
  wake(): void {
    if (!this.waiting) return;
    this.waiting = false;
    let step: Step;
    try {
      if (this.request.signal.aborted) throw abortError(this.request.signal);
      const held = this.held;
      this.held = null;
      step = held ? this.deliver(held) : this.advance();
    } catch (err) {
      this.settle(null, err);
      return;
    }
    if (step !== WAIT) this.settle(step, null);
  }

  /** The request's signal fired: a pending wait rejects at once, as `sleep(…, {signal})` did. */
  handleEvent(): void {
    if (this.waiting) {
      this.waiting = false;
      this.settle(null, abortError(this.request.signal));
    }
  }

  private settle(step: IteratorResult<ChatBackendEvent> | null, err: unknown): void {
    const resolve = this.resolve;
    const reject = this.reject;
    this.resolve = this.reject = null;
    this.current = null;
    if (step) resolve?.(step);
    else {
      this.finish();
      reject?.(err);
    }
  }

  private finish(): void {
    this.phase = FINISHED;
    this.waiting = false;
    this.held = null;
    if (this.listening) {
      this.listening = false;
      this.request.signal.removeEventListener('abort', this);
    }
  }

  /** Waits `ms` through the pacer, then hands out `held` (or goes on computing when null). */
  private wait(ms: number, held: ChatBackendEvent | null): typeof WAIT {
    const { signal } = this.request;
    if (signal.aborted) throw abortError(signal);
    if (!this.listening) {
      this.listening = true;
      signal.addEventListener('abort', this);
    }
    this.held = held;
    this.waiting = true;
    this.pacer.wait(ms, this);
    return WAIT;
  }

  /** Hands out an event; a text piece counts its tokens (and joins the text stop sequences are searched in) only now. */
  private deliver(event: ChatBackendEvent): IteratorResult<ChatBackendEvent> {
    if (event.type === 'delta') {
      // The text so far is only needed to find stop sequences that span pieces.
      if (this.request.stop.length) this.emitted += event.text;
      this.completionTokens += this.heldTokens;
      this.heldTokens = 0;
    }
    return { done: false, value: event };
  }

  private advance(): Step {
    switch (this.phase) {
      case START:
        return this.begin();
      case TOOL:
        return this.nextToolFragment();
      case TEXT:
        return this.nextPiece();
      default:
        return DONE;
    }
  }

  private begin(): Step {
    const { request } = this;
    const script = readSimScript(request.metadata);
    const failure = scriptedFailure(script);
    if (failure) throw failure;
    if (script.ttft_ms !== undefined) this.ttftMs = script.ttft_ms;
    if (script.tokens_per_s !== undefined) this.gapMs = script.tokens_per_s > 0 ? 1000 / script.tokens_per_s : 0;
    this.promptTokens = countPromptTokens(request.messages);
    this.calls = simToolCalls(request, script);
    if (this.calls.length > 0) this.phase = TOOL;
    else {
      this.phase = TEXT;
      const reply = script.reply ?? (script.clarify !== undefined ? script.clarify : undefined);
      const answer = simAnswerText(request, reply);
      if (answer !== null) this.reply = answer;
      else this.pieces = simPieces(request.model, request.messages, request.choiceIndex);
    }
    if (this.ttftMs > 0) return this.wait(this.ttftMs, null);
    return this.advance();
  }

  /** Tool calls stream like OpenAI's, one after another: id and name first, then the arguments in fragments of 8. */
  private nextToolFragment(): Step {
    const index = this.callIndex;
    const call = this.calls[index];
    if (!call) {
      this.finish();
      const completionTokens = this.calls.reduce((sum, made) => sum + countTokens(made.name + made.arguments), 0);
      return {
        done: false,
        value: {
          type: 'done',
          finishReason: 'tool_calls',
          usage: { promptTokens: this.promptTokens, completionTokens },
        },
      };
    }
    if (this.index === 0) {
      this.index++;
      return { done: false, value: { type: 'tool_call', index, id: call.id, name: call.name, arguments: '' } };
    }
    if (this.cursor < call.arguments.length) {
      this.request.signal.throwIfAborted();
      const event: ChatBackendEvent = {
        type: 'tool_call',
        index,
        arguments: call.arguments.slice(this.cursor, this.cursor + 8),
      };
      this.cursor += 8;
      this.index++;
      return this.gapMs > 0 ? this.wait(this.gapMs, event) : { done: false, value: event };
    }
    this.callIndex++;
    this.index = 0;
    this.cursor = 0;
    return this.nextToolFragment();
  }

  /** The answer's next piece, or (past the last, the token cap or a stop sequence) its end. */
  private nextPiece(): Step {
    const { request } = this;
    const piece = this.takePiece();
    if (piece === undefined) return this.end('stop');
    request.signal.throwIfAborted();
    const cost = countTokens(piece);
    if (this.completionTokens + cost > request.maxTokens) return this.end('length');
    const match = request.stop.length ? firstStop(this.emitted + piece, request.stop) : null;
    const stopAt = match ? match.at : -1;
    if (match && stopAt >= 0) {
      this.matchedStop = match.stop;
      const tail = (this.emitted + piece).slice(this.emitted.length, Math.max(this.emitted.length, stopAt));
      this.completionTokens += countTokens(tail);
      // The end follows the tail at once.
      this.reply = null;
      this.pieces = [];
      this.cursor = 0;
      if (tail) return { done: false, value: { type: 'delta', text: tail } };
      return this.end('stop');
    }
    const event: ChatBackendEvent = { type: 'delta', text: piece };
    this.heldTokens = cost;
    const first = this.index++ === 0;
    if (!first && this.gapMs > 0) return this.wait(this.gapMs, event);
    return this.deliver(event);
  }

  private takePiece(): string | undefined {
    if (this.reply !== null) {
      PIECE.lastIndex = this.cursor;
      const match = PIECE.exec(this.reply);
      if (!match) return undefined;
      this.cursor = PIECE.lastIndex;
      return match[0];
    }
    return this.pieces![this.cursor++];
  }

  private end(finishReason: 'stop' | 'length'): IteratorResult<ChatBackendEvent> {
    this.finish();
    return {
      done: false,
      value: {
        type: 'done',
        finishReason,
        usage: { promptTokens: this.promptTokens, completionTokens: this.completionTokens },
        ...(this.matchedStop !== undefined && { stopSequence: this.matchedStop }),
      },
    };
  }
}
