import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ResponseAssembler, type ItemStatus, type ResponseEmitter } from '../actors/responses/response-assembler.js';
import {
  encodeResponse,
  responseObject,
  type ResponseHead,
  type ResponseState,
} from '../actors/responses/response-object.js';
import { ResponseCreateRequestSchema, type ResponseStreamEvent } from '../protocols/responses.js';
import { sseNamed } from '../protocols/sse.js';
import { SseResponseEmitter } from '../http/response-sse-emitter.js';
import { AWKWARD_TEXTS } from './awkward-texts.js';
import { SseTextCollector } from './sse-text-collector.js';

const test = suite('responses: events written from their fields are the bytes of the events encoded whole');

const head = (body: Record<string, unknown>): ResponseHead => ({
  id: 'resp_0193a1b2c3d4abcdefghijABCDEFGHIJ',
  createdAt: 1_764_000_000,
  model: 'pro-1',
  request: ResponseCreateRequestSchema.parse({ model: 'pro-1', input: 'hi', stream: true, ...body }),
});

/** Every event as an object, encoded whole. */
class ObjectEmitter implements ResponseEmitter {
  text = '';
  readonly emitter = this;
  emit(event: ResponseStreamEvent): void {
    this.text += sseNamed(event.type, event);
  }
  ready(): null {
    return null;
  }
}

/** What the SSE route writes: its emitter (events from their fields) into a text sink. */
class RouteText {
  private readonly sink = new SseTextCollector();
  readonly emitter = new SseResponseEmitter(this.sink, null);
  get text(): string {
    return this.sink.text;
  }
}

type Step = { text: string } | { call: number; args: string };

/** Runs one stream through an assembler; message and call ids are random, so they are named by order. */
function run(
  target: { emitter: ResponseEmitter; text: string },
  body: Record<string, unknown>,
  steps: Step[],
  status: ItemStatus,
): string {
  const h = head(body);
  const assembler = new ResponseAssembler(h, target.emitter, 7);
  for (const step of steps)
    if ('text' in step) assembler.event({ type: 'delta', choice: 0, text: step.text });
    else assembler.event({ type: 'tool_call', choice: 0, index: step.call, name: 'f', arguments: step.args });
  assembler.close(status);
  // The final event from the response's JSON text (fields) or its object encoded whole.
  const state: ResponseState = {
    status: status === 'completed' ? 'completed' : 'incomplete',
    output: assembler.output,
    usage: { promptTokens: 3, completionTokens: 5 },
  };
  assembler.deliverSettled(state.status, encodeResponse(h, state).json, () => responseObject(h, state));
  const ids = new Map<string, string>();
  return target.text.replace(/(msg|fc|call)_[A-Za-z0-9]{24}/g, (id) => {
    if (!ids.has(id)) ids.set(id, `id${ids.size}`);
    return ids.get(id)!;
  });
}

const CASES: { body: Record<string, unknown>; steps: Step[]; status: ItemStatus }[] = [
  { body: {}, steps: AWKWARD_TEXTS.map((text) => ({ text })), status: 'completed' },
  {
    body: { store: false, instructions: 'be "brief"', metadata: { k: 'v' } },
    steps: [{ text: 'cut' }],
    status: 'incomplete',
  },
  {
    body: { temperature: 0.5 },
    steps: [{ text: 'before ' }, { call: 0, args: '{"a":' }, { call: 0, args: '1}' }, { text: 'after\n' }],
    status: 'completed',
  },
  { body: {}, steps: [{ call: 0, args: '{}' }, { text: 'then text' }, { text: ' more' }], status: 'completed' },
];

test('whole streams: text messages, tool calls between them, an incomplete end, the final event', () => {
  for (const { body, steps, status } of CASES) {
    const objects = new ObjectEmitter();
    const expected = run(
      {
        emitter: objects,
        get text() {
          return objects.text;
        },
      },
      body,
      steps,
      status,
    );
    assert.is(run(new RouteText(), body, steps, status), expected);
    assert.ok(expected.includes('response.output_item.done'));
  }
});

test.run();
