import type { ChatMessage } from '../../protocols/chat.js';
import type { ResponseObject, ResponseStreamEvent, StoredInputItem } from '../../protocols/responses.js';
import type { Store, Table } from '../../runtime/store/store.js';
import { outputMessages } from './response-input.js';

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

/**
 * A response as the table holds it: the record itself (written off the hot path), or its owner and
 * the JSON text of the rest, built around the response's JSON text the client was answered with.
 * A string is one copy for msgpack; the record's nested objects cost ~15 µs of msgpack records
 * per request in a profile of the stored path.
 */
type StoredRecord = StoredResponse | { accountId: string; json: string };

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
    if (!('json' in record)) return record;
    return { accountId, ...(JSON.parse(record.json) as Omit<StoredResponse, 'accountId'>) };
  }

  /** Stores (or replaces) a response; resolves once committed. */
  async save(record: StoredResponse): Promise<void> {
    await this.table.put(record.response.id, record);
  }

  /**
   * Stores (or replaces) a response inside the caller's transaction (it commits with it), as JSON
   * text around `responseJson`, the response's text already made for the answer.
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
