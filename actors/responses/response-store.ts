import type { ChatMessage } from '../../protocols/chat.js';
import type { ChatCost, ChatSvc } from '../../protocols/chat-response.js';
import type {
  OutputItem,
  ResponseCreateRequest,
  ResponseObject,
  ResponseStatus,
  ResponseStreamEvent,
  StoredInputItem,
} from '../../protocols/responses.js';
import type { Store, Table } from '../../runtime/store/store.js';
import { inputMessages, outputMessages, storedInputItems } from './response-input.js';
import { responseObject, type EncodedResponse, type ResponseHead, type ResponseState } from './response-object.js';

/** A stored response: its owner, the object, its input items, and this turn as chat messages. */
export interface StoredResponse {
  accountId: string;
  response: ResponseObject;
  inputItems: StoredInputItem[];
  /** This turn's input as the model read it (file search results included, instructions not). */
  turn: ChatMessage[];
  /** The events a background response emitted, for GET …?stream=true (null for the others). */
  events: ResponseStreamEvent[] | null;
  /** How many runs of a background response started (a restart runs it again); absent for the others. */
  runs?: number;
}

/** A settled foreground response as the service hands it over: what it was made from, and its encoding. */
export interface SettledResponse {
  accountId: string;
  head: ResponseHead;
  state: ResponseState;
  encoded: EncodedResponse;
  /** This turn as the model read it when it is not the input's own messages (a file search's note in it); else null. */
  turn: ChatMessage[] | null;
}

/**
 * The compact form of a settled foreground response, written on every request (reads are rare):
 * what the object is made from, not the object. The request's JSON text holds the settings the
 * response echoes and its input, from which the input items and this turn are made again on read;
 * the output and the charge are kept as the JSON text the client got. About 0.6 KB for a short
 * answer, against 2 KB of the response, its input items and its turn: small enough to stay off
 * LZ4 and off LMDB's overflow pages (the write of the full form was ~35 µs of CPU per request).
 */
interface CompactRecord {
  accountId: string;
  request: string;
  createdAt: number;
  model: string;
  status: ResponseStatus;
  output: string;
  /** Prompt and completion tokens. */
  usage: [number, number] | null;
  incomplete: 'max_output_tokens' | null;
  /** `"svc":…,"cost":…` as sent, or null. */
  charge: string | null;
  /** This turn's JSON when it is not the input's own messages. */
  turn: string | null;
}

/**
 * A response as the table holds it: the compact form of a settled foreground response (the hot
 * path); its owner and the JSON text of the rest, built around the response's JSON text (a settled
 * background response, with its events); or the record itself (off the hot path: a background
 * response's changes of state, a failure).
 */
type StoredRecord = StoredResponse | CompactRecord | { accountId: string; json: string };

/** The stored response a compact record describes, rebuilt. */
function expand(id: string, record: CompactRecord): StoredResponse {
  const request = JSON.parse(record.request) as ResponseCreateRequest;
  const head: ResponseHead = { id, createdAt: record.createdAt, model: record.model, request };
  const charge = record.charge ? (JSON.parse(`{${record.charge}}`) as { svc?: ChatSvc; cost?: ChatCost }) : {};
  const state: ResponseState = {
    status: record.status,
    output: JSON.parse(record.output) as OutputItem[],
    usage: record.usage && { promptTokens: record.usage[0], completionTokens: record.usage[1] },
    incomplete: record.incomplete,
    ...charge,
  };
  return {
    accountId: record.accountId,
    response: responseObject(head, state),
    inputItems: storedInputItems(request.input, id),
    turn: record.turn ? (JSON.parse(record.turn) as ChatMessage[]) : inputMessages(request.input),
    events: null,
  };
}

// A chain longer than this is refused rather than walked (each hop is one synchronous read).
const MAX_CHAIN = 10_000;

/**
 * Responses kept for retrieval and chaining (`store: true`), in LMDB by id; another account's id
 * reads as missing. A chain is walked from its newest turn back, so each response stores only its
 * own turn.
 */
export class ResponseStore {
  private readonly table: Table<StoredRecord>;

  constructor(store: Store) {
    // 1.5 KB or more of JSON text each: compressed, a response takes half the pages (and half the file).
    this.table = store.table<StoredRecord>('responses', { compressed: true });
  }

  /** The account's stored response, or undefined. */
  get(accountId: string, id: string): StoredResponse | undefined {
    const record = this.table.get(id);
    if (record?.accountId !== accountId) return undefined;
    if ('request' in record) return expand(id, record);
    if (!('json' in record)) return record;
    return { accountId, ...(JSON.parse(record.json) as Omit<StoredResponse, 'accountId'>) };
  }

  /** Stores (or replaces) a response; resolves once committed. */
  async save(record: StoredResponse): Promise<void> {
    await this.table.put(record.response.id, record);
  }

  /** Stores a settled foreground response inside the caller's transaction (it commits with it), compact. */
  saveSettledInTransaction(settled: SettledResponse): void {
    const { head, state, encoded } = settled;
    const record: CompactRecord = {
      accountId: settled.accountId,
      request: JSON.stringify(head.request),
      createdAt: head.createdAt,
      model: head.model,
      status: state.status,
      output: encoded.output,
      usage: state.usage && [state.usage.promptTokens, state.usage.completionTokens],
      incomplete: state.incomplete ?? null,
      charge: encoded.charge,
      turn: settled.turn && JSON.stringify(settled.turn),
    };
    void this.table.put(head.id, record);
  }

  /**
   * Stores (or replaces) a response with its events (a background one) inside the caller's
   * transaction, as JSON text around `responseJson`, the response's text already made for the answer.
   */
  saveInTransaction(record: StoredResponse, responseJson: string): void {
    const { accountId, response, ...rest } = record;
    // `rest` always has inputItems, so its text opens with a key: splice the response in first.
    const json = `{"response":${responseJson},${JSON.stringify(rest).slice(1)}`;
    void this.table.put(response.id, { accountId, json });
  }

  /** Deletes the account's response; false when it has none by that id. */
  async delete(accountId: string, id: string): Promise<boolean> {
    if (!this.get(accountId, id)) return false;
    return this.table.remove(id);
  }

  /**
   * The conversation up to and including response `id`: every earlier turn's input and output, oldest
   * first. A deleted ancestor ends the walk (its turns are gone, as on OpenAI).
   */
  context(accountId: string, id: string): ChatMessage[] | undefined {
    const turns: ChatMessage[][] = [];
    let at: StoredResponse | undefined = this.get(accountId, id);
    if (!at) return undefined;
    for (let hops = 0; at && hops < MAX_CHAIN; hops++) {
      turns.push([...at.turn, ...outputMessages(at.response.output)]);
      const previous: string | null = at.response.previous_response_id;
      at = previous ? this.get(accountId, previous) : undefined;
    }
    return turns.reverse().flat();
  }
}
