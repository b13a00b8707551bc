import { svcJsonOfResult, svcOfResult, svcRunOf } from '../chat/result-svc.js';
import type { ChatMessage } from '../../protocols/chat.js';
import { type ChatCost } from '../../protocols/chat-response.js';
import { ApiError } from '../../protocols/errors.js';
import type { ModelCard } from '../../protocols/models.js';
import { costBlock, costBlockJson } from '../../protocols/pricing.js';
import type {
  ResponseCreateRequest,
  ResponseObject,
  ResponseStatus,
  ResponseStreamEvent,
} from '../../protocols/responses.js';
import { fieldError } from '../../protocols/validation.js';
import type { Clock } from '../../runtime/clock.js';
import { timeOrderedId } from '../../runtime/ids.js';
import type { ChatCall, ChatResult, ChatService } from '../chat/chat-service.js';
import { ResponseAssembler, type ResponseEmitter } from './response-assembler.js';
import { chatRequestOf } from './response-chat-request.js';
import { fileSearchQuery, runFileSearch, type SearchFiles } from './response-file-search.js';
import { inputMessages, storedInputItems } from './response-input.js';
import { encodeResponse, responseObject, type ResponseHead, type ResponseState } from './response-object.js';
import type { ResponseStore, SettledResponse, StoredResponse } from './response-store.js';
import type { CancelSignal } from '../../runtime/cancel-signal.js';

/** One response to create: who asks, the validated request and its model, and when to stop. */
export interface ResponseCall {
  accountId: string;
  tokenId: string | null;
  requestId: string | null;
  request: ResponseCreateRequest;
  model: ModelCard;
  /** Aborting it cancels the run (billing what was processed), as a client disconnect does. */
  signal: CancelSignal;
}

/** A finished response and what it was charged (micro-USD). */
export interface ResponseResult {
  /** The object, when it was made (a failed response); a settled answer has only its text. */
  response: ResponseObject | null;
  status: ResponseStatus;
  priceMicros: number;
  /** The response as JSON text when it was encoded already, so the answer reuses it. */
  json: string | null;
}

/** How a run that is not a plain request starts: its head already chosen, its charge settled by reference. */
export interface CreateOptions {
  head?: ResponseHead;
  settleRef?: string;
  /** Which run of a background response this is (0 first; a restart runs it again): see {@link RUN_SEQUENCE_SPAN}. */
  run?: number;
}

/**
 * How far apart the event numbers of a background response's runs start: run `n` (from 0, counted
 * durably before it emits anything) numbers its events from `n × RUN_SEQUENCE_SPAN`. A run that
 * restarts after a crash starts over (new items, a new `response.created`), and every number it uses
 * is above any a client saw from an earlier run, so `starting_after=N` from before the crash resumes
 * with the whole new run, in order, and nothing else. A run emits far fewer events than this.
 */
export const RUN_SEQUENCE_SPAN = 1_000_000;

/** What the Responses feature runs on: chat completions, the stored responses, the file search. */
export interface ResponseServiceOptions {
  completions: ChatService;
  store: ResponseStore;
  search: SearchFiles;
  clock: Clock;
}

/** Records every event it passes on, for a stored response's replay. */
class RecordingEmitter implements ResponseEmitter {
  readonly events: ResponseStreamEvent[] = [];
  constructor(private readonly inner: ResponseEmitter) {}
  emit(event: ResponseStreamEvent, responseJson?: string): void {
    this.events.push(event);
    if (responseJson === undefined) this.inner.emit(event);
    else this.inner.emit(event, responseJson);
  }
  ready(): Promise<void> | null {
    return this.inner.ready();
  }
}

const notFound = (id: string, param: string) =>
  new ApiError('not_found', `No response with id '${id}' was found.`, { param });

/**
 * The Responses API as a wire format over chat completions: input items and earlier turns become
 * the conversation, the chat feature runs and bills it (plan, passes, tools, hold, cache), and the
 * answer comes back as output items. Stored responses are the account's only (others read 404).
 */
export class ResponseService {
  constructor(private readonly options: ResponseServiceOptions) {}

  /** Runs a response to its end; with an emitter, its events are streamed as it runs. */
  async create(
    call: ResponseCall,
    emitter: ResponseEmitter | null,
    options: CreateOptions = {},
  ): Promise<ResponseResult> {
    const { request, accountId } = call;
    const { store } = this.options;
    const earlier = request.previous_response_id ? store.context(accountId, request.previous_response_id) : [];
    if (!earlier) throw notFound(request.previous_response_id!, 'previous_response_id');
    const turn = inputMessages(request.input);
    if (turn.length === 0) throw fieldError(['body', 'input'], 'Field required', 'missing');
    const head = options.head ?? this.head(call);
    // Only a background response's events are kept (resumable, as on OpenAI): a foreground stream's
    // would cost every streamed request a copy and a larger write for a replay nobody can ask for.
    const recorder = emitter && request.background ? new RecordingEmitter(emitter) : null;
    const assembler = new ResponseAssembler(head, recorder ?? emitter, (options.run ?? 0) * RUN_SEQUENCE_SPAN);
    const query = fileSearchQuery(request, turn);
    if (query !== null) {
      const { item, note } = await runFileSearch(this.options.search, accountId, request, query);
      assembler.fileSearch(item);
      turn.splice(turn.length - 1, 0, note);
    }
    const instructions: ChatMessage[] = request.instructions ? [{ role: 'system', content: request.instructions }] : [];
    const chatCall: ChatCall = {
      accountId,
      tokenId: call.tokenId,
      requestId: call.requestId,
      request: chatRequestOf(request, [...instructions, ...earlier, ...turn], call.model.id),
      model: call.model,
      signal: call.signal,
      // The run answers under the response's id; its own completion id is never shown.
      unnamed: true,
      ...(options.settleRef !== undefined && { settleRef: options.settleRef }),
    };
    const stored = (response: ResponseObject, last: ResponseStreamEvent | null): StoredResponse => ({
      accountId,
      response,
      inputItems: storedInputItems(request.input, head.id),
      turn,
      events: recorder ? [...recorder.events, ...(last ? [last] : [])] : null,
      ...(options.run !== undefined && { runs: options.run + 1 }),
    });
    // The end of a settled run: the answer's items (a non-streamed one replayed once), the finished
    // response and its final event. With `store`, built inside the charge's transaction so the
    // stored response commits with the charge: one durable commit per request, not two.
    // The response is encoded once, field by field, for the answer; a foreground one is stored in
    // its compact form (what it is made from), a background one with its events around that text.
    // The object itself is made only where something carries it (a stream's final event, a record
    // stored whole): a JSON answer is its text. A foreground response's text is made after the
    // commit, where it is sent: made inside the transaction, its ~70 pieces (a 1.3 KB concatenated
    // string) lived across the durable commit and were copied by scavenges (measured: new-space
    // survival per request 9.8 KB against chat's 6.8).
    const ending: {
      settled?: {
        state: ResponseState;
        objectOf: () => ResponseObject;
        /** The response's JSON text, or null until it is made after the commit (from `output`). */
        json: string | null;
        output: string | null;
        stored: boolean;
      };
    } = {};
    const end = (result: ChatResult, inTransaction: boolean) => {
      if (!emitter) assembler.replay(result.outcome.choices[0]);
      // The items' `done` events are made here, inside the settle's transaction: they leave with the final event.
      emitter?.holdUntilEnd?.();
      const state = this.finished(assembler, result);
      let response: ResponseObject | null = null;
      const objectOf = () =>
        (response ??= responseObject(head, {
          ...state,
          svc: svcOfResult(result),
          cost: costBlock(result.outcome.usage) as ChatCost,
        }));
      if (!inTransaction || recorder || options.run !== undefined) {
        const { json } = encodeResponse(head, state);
        ending.settled = { state, objectOf, json, output: null, stored: inTransaction };
        if (inTransaction) store.saveInTransaction(stored(objectOf(), assembler.finalEvent(objectOf())), json);
      } else {
        const output = JSON.stringify(state.output);
        ending.settled = { state, objectOf, json: null, output, stored: true };
        const run = svcRunOf(result);
        const charge: SettledResponse['charge'] = [
          result.outcome.priceMicros,
          run.cached,
          run.depth,
          run.status,
          run.cancelReason,
        ];
        store.saveSettledInTransaction({ accountId, head, state, output, charge, turn: query === null ? null : turn });
      }
    };
    if (request.store) chatCall.persist = (result: ChatResult) => void end(result, true);
    let result: ChatResult;
    try {
      result = emitter
        ? await this.options.completions.stream(chatCall, () => assembler)
        : await this.options.completions.complete(chatCall);
    } catch (err) {
      if (!(err instanceof ApiError) || !assembler.isOpen) throw err;
      // Mid-stream failure: the response failed (nothing charged); never a truncated success.
      assembler.close('incomplete');
      const failed = responseObject(head, {
        status: 'failed',
        output: assembler.output,
        usage: null,
        error: { code: err.code, message: err.message },
      });
      const last = assembler.finalEvent(failed);
      if (request.store) await store.save(stored(failed, last));
      assembler.deliver(last);
      return { response: failed, status: 'failed', priceMicros: 0, json: null };
    }
    if (!ending.settled) end(result, false);
    const settled = ending.settled!;
    const json = settled.json ?? encodeResponse(head, settled.state, settled.output ?? undefined).json;
    // A settle that committed nothing with the charge (none is made for some runs): stored now, still before the answer.
    if (request.store && !settled.stored)
      await store.save(stored(settled.objectOf(), emitter ? assembler.finalEvent(settled.objectOf()) : null));
    // The final event keeps the number it was given inside the settle's transaction; an SSE stream
    // writes it from the JSON text, with no response object.
    if (emitter) assembler.deliverSettled(settled.state.status, json, settled.objectOf);
    return {
      response: null,
      status: settled.state.status,
      priceMicros: result.outcome.priceMicros,
      json,
    };
  }

  /** A new response's id, creation time and model. */
  head(call: Pick<ResponseCall, 'model' | 'request'>): ResponseHead {
    const now = this.options.clock.now();
    return {
      // Time-ordered (as OpenAI's are): the stored responses table grows at its end.
      id: timeOrderedId('resp', now),
      createdAt: Math.floor(now / 1000),
      model: call.model.id,
      request: call.request,
    };
  }

  /**
   * The state of a settled run's response (`incomplete` when it hit max_output_tokens or was
   * cancelled), its charge as JSON text.
   */
  private finished(assembler: ResponseAssembler, result: ChatResult): ResponseState {
    const { outcome } = result;
    const truncated = outcome.choices[0]?.finishReason === 'length';
    const status = outcome.status === 'cancelled' ? 'cancelled' : truncated ? 'incomplete' : 'completed';
    assembler.close(status === 'completed' ? 'completed' : 'incomplete');
    return {
      status,
      output: assembler.output,
      usage: outcome.usage,
      incomplete: truncated ? 'max_output_tokens' : null,
      charge: `"svc":${svcJsonOfResult(result)},"cost":${costBlockJson(outcome.usage)}`,
    };
  }

  /** The account's stored response; 404 otherwise. */
  get(accountId: string, id: string): StoredResponse {
    const record = this.options.store.get(accountId, id);
    if (!record) throw notFound(id, 'response_id');
    return record;
  }

  /** Deletes the account's stored response; 404 otherwise. */
  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.options.store.delete(accountId, id))) throw notFound(id, 'response_id');
  }
}
