import type { ChatMessage } from '../../protocols/chat.js';
import { runSvc, type ChatCost, type ChatSvc } from '../../protocols/chat-response.js';
import { costBlock } from '../../protocols/pricing.js';
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
import { responseObject, type ResponseHead, type ResponseState } from './response-object.js';

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
  /** `state.output` as JSON text (the answer's `output`, byte for byte). */
  output: string;
  /** What the `svc` block states: the price and how the run went. */
  charge: CompactRecord[8];
  /** This turn as the model read it when it is not the input's own messages (a file search's note in it); else null. */
  turn: ChatMessage[] | null;
}

/**
 * The compact form of a settled foreground response, written on every request (reads are rare):
 * what the object is made from, not the object, as a msgpack array (no field names per record).
 * The request's JSON text holds the settings the response echoes and its input, from which the
 * input items and this turn are made again on read; the output is the JSON text the client got;
 * the charge is its figures (price, cached, depth, status), its `svc` and `cost` blocks made again
 * from them and the usage as a stored session's are; the turn is kept only when it is not the
 * input's own messages (a file search's note in it). About 0.4 KB for a short answer, against
 * 2.9 KB of the response, its input items and its turn: fewer page splits per commit, and under
 * the table's compression threshold, so the hot path pays no LZ4 (see the constructor).
 */
type CompactRecord = [
  accountId: string,
  request: string,
  createdAt: number,
  model: string,
  status: ResponseStatus,
  output: string,
  usage: [promptTokens: number, completionTokens: number] | null,
  incomplete: 'max_output_tokens' | null,
  charge: [priceMicros: number, cached: boolean, depth: string, status: ChatSvc['status'], cancelReason: string | null],
  turn: string | null,
];

/**
 * A response as the table holds it: the compact form of a settled foreground response (the hot
 * path); its owner and the JSON text of the rest, built around the response's JSON text (a settled
 * background response, with its events); or the record itself (off the hot path: a background
 * response's changes of state, a failure).
 */
type StoredRecord = StoredResponse | CompactRecord | { accountId: string; json: string };

/** The stored response a compact record describes, rebuilt. */
function expand(id: string, record: CompactRecord): StoredResponse {
  const [accountId, requestJson, createdAt, model, status, output, usage, incomplete, charge, turn] = record;
  const request = JSON.parse(requestJson) as ResponseCreateRequest;
  const head: ResponseHead = { id, createdAt, model, request };
  const tokens = usage && { promptTokens: usage[0], completionTokens: usage[1] };
  const [priceMicros, cached, depth, svcStatus, cancelReason] = charge;
  const state: ResponseState = {
    status,
    output: JSON.parse(output) as OutputItem[],
    usage: tokens,
    incomplete,
    // Made again as the chat views make a stored session's: from the figures, at today's tariff.
    svc: runSvc(priceMicros, { cached, depth, status: svcStatus, cancelReason }),
    ...(tokens && { cost: costBlock(tokens) as ChatCost }),
  };
  return {
    accountId,
    response: responseObject(head, state),
    inputItems: storedInputItems(request.input, id),
    turn: turn === null ? inputMessages(request.input) : (JSON.parse(turn) as ChatMessage[]),
    events: null,
  };
}

/** What a response id made for the write holds before it, for {@link Table.put}'s undo journal. */
const NEW_KEY = { value: undefined };

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
    // Records over 1.9 KB (long inputs or answers) are compressed: they would not fit in a leaf page
    // and take a 4 KB overflow page each. Below that, LZ4 would save file but cost ~20 µs of the
    // event loop per write (lmdb compresses inside a transaction on the calling thread, loading its
    // dictionary each time): the compact records of the hot path stay plain.
    this.table = store.table<StoredRecord>('responses', { compressed: { over: 1900 } });
  }

  /** The account's stored response, or undefined. */
  get(accountId: string, id: string): StoredResponse | undefined {
    const record = this.table.get(id);
    if (Array.isArray(record)) return record[0] === accountId ? expand(id, record) : undefined;
    if (record?.accountId !== accountId) return undefined;
    if (!('json' in record)) return record;
    return { accountId, ...(JSON.parse(record.json) as Omit<StoredResponse, 'accountId'>) };
  }

  /** Stores (or replaces) a response; resolves once committed. */
  async save(record: StoredResponse): Promise<void> {
    await this.table.put(record.response.id, record);
  }

  /**
   * Stores a settled foreground response inside the caller's transaction (it commits with it),
   * compact. Its id was made for this run (`ResponseService.head`), so the key holds nothing yet.
   */
  saveSettledInTransaction(settled: SettledResponse): void {
    const { head, state } = settled;
    const { usage } = state;
    const record: CompactRecord = [
      settled.accountId,
      JSON.stringify(head.request),
      head.createdAt,
      head.model,
      state.status,
      settled.output,
      usage && [usage.promptTokens, usage.completionTokens],
      state.incomplete ?? null,
      settled.charge,
      settled.turn && JSON.stringify(settled.turn),
    ];
    void this.table.put(head.id, record, NEW_KEY);
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
