import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ResponseStore, type StoredResponse } from '../actors/responses/response-store.js';
import type { ResponseObject } from '../protocols/responses.js';
import { MemoryStore } from '../runtime/store/memory-store.js';

const test = suite('responses: stored records, as objects (earlier) or as the JSON text the client got');

function record(id: string, previous: string | null, text: string): StoredResponse {
  const response = {
    id,
    object: 'response',
    status: 'completed',
    previous_response_id: previous,
    output: [
      {
        id: `msg_${id}`,
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
      },
    ],
  } as unknown as ResponseObject;
  return {
    accountId: 'acct_a',
    response,
    inputItems: [],
    turn: [{ role: 'user', content: `asked ${id}` }],
    events: null,
  };
}

test('a record written with its JSON text reads back as the same object, owner only', async () => {
  const store = new MemoryStore();
  const responses = new ResponseStore(store);
  const written = record('resp_1', null, 'one');
  await store.transaction(() => responses.saveInTransaction(written, JSON.stringify(written.response)));
  assert.equal(responses.get('acct_a', 'resp_1'), written);
  assert.is(responses.get('acct_b', 'resp_1'), undefined);
  assert.is(await responses.delete('acct_a', 'resp_1'), true);
  assert.is(responses.get('acct_a', 'resp_1'), undefined);
});

test('a chain walks records of both forms, oldest turn first', async () => {
  const store = new MemoryStore();
  const responses = new ResponseStore(store);
  await responses.save(record('resp_1', null, 'one'));
  const second = record('resp_2', 'resp_1', 'two');
  await store.transaction(() => responses.saveInTransaction(second, JSON.stringify(second.response)));
  assert.equal(
    responses.context('acct_a', 'resp_2')?.map((message) => message.content),
    ['asked resp_1', 'one', 'asked resp_2', 'two'],
  );
  // Saved again as an object (a background run's status change): the JSON text no longer shadows it.
  const read = responses.get('acct_a', 'resp_2')!;
  await responses.save({ ...read, response: { ...read.response, status: 'cancelled' } });
  assert.is(responses.get('acct_a', 'resp_2')?.response.status, 'cancelled');
});

test.run();
