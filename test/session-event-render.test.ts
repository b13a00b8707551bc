import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import type { SessionDomainEvent } from '../actors/sessions/session-events.js';
import { sessionMachine } from '../actors/sessions/session-machine.js';
import type { SessionInput } from '../actors/sessions/session-types.js';
import { SessionEventSchema } from '../protocols/chat-session.js';
import type { LogEvent } from '../runtime/host/actor-log.js';
import { sessionEventWire } from '../http/views/session-events.js';

const test = suite('session events: the machine emits domain events; the edge renders the wire');

const quote = { minMicros: 1_248, holdMicros: 15_600, minSeconds: 0, maxSeconds: 4 };
const wireQuote = { cost_usd: { min: 0.001248, max: 0.0156 }, hold_usd: 0.0156, time_seconds: { min: 0, max: 4 } };
const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

/** A log entry as the host stores what the machine emitted: the type apart, the rest as data. */
function logged(event: SessionDomainEvent, seq = 1): LogEvent {
  const { type, ...data } = event;
  return { seq, type, ts: at, data };
}

const cases: [SessionDomainEvent, unknown][] = [
  [
    { type: 'created', quote, requireApproval: true },
    { quote: wireQuote, require_approval: true },
  ],
  [
    { type: 'awaiting_approval', quote, expiresAt: at },
    { quote: wireQuote, expires_at: Math.floor(at / 1000) },
  ],
  [{ type: 'approved' }, {}],
  [{ type: 'phase', phase: 'drafting' }, { phase: 'drafting' }],
  [
    { type: 'awaiting_user', question: 'Which city?', questionId: 'call_1', expiresAt: null },
    { question: 'Which city?', question_id: 'call_1', expires_at: null },
  ],
  [{ type: 'live_input', seq: 2 }, { seq: 2 }],
  [
    { type: 'answer', text: 'Paris.', finishReason: 'stop' },
    { text: 'Paris.', finish_reason: 'stop' },
  ],
  [
    {
      type: 'completed',
      priceMicros: 3_720,
      usage: { promptTokens: 130, completionTokens: 45 },
      reason: null,
      error: null,
    },
    { price_usd: 0.00372, usage: { prompt_tokens: 130, completion_tokens: 45 }, reason: null, error: null },
  ],
  [
    { type: 'cancelled', priceMicros: 0, usage: { promptTokens: 0, completionTokens: 0 }, reason: 'no', error: null },
    { price_usd: 0, usage: { prompt_tokens: 0, completion_tokens: 0 }, reason: 'no', error: null },
  ],
  [{ type: 'acknowledged' }, {}],
];

test('each domain event renders to its wire payload (snake_case, USD, seconds), valid by the schema', () => {
  for (const [event, data] of cases) {
    const wire = sessionEventWire(logged(event, 7));
    assert.equal(wire, { seq: 7, type: event.type, ts: at, data }, event.type);
    assert.ok(SessionEventSchema.safeParse(wire).success, event.type);
  }
});

test('a log written before domain events (wire-shaped data) is shown as it was stored', () => {
  const legacy: LogEvent = {
    seq: 3,
    type: 'completed',
    ts: at,
    data: { price_usd: 0.00372, usage: { prompt_tokens: 130, completion_tokens: 45 }, reason: null, error: null },
  };
  assert.equal(sessionEventWire(legacy), { seq: 3, type: 'completed', ts: at, data: legacy.data });
  const created: LogEvent = { seq: 1, type: 'created', ts: at, data: { quote: wireQuote, require_approval: false } };
  assert.equal(sessionEventWire(created).data, created.data);
});

test('the machine itself emits camelCase, micro-USD, epoch-ms events', () => {
  const input: SessionInput = {
    id: 'sess_unit',
    preprocessed: { promptTokens: 0, completionTokens: 0 },
    accountId: 'acct_unit',
    tokenId: null,
    completionId: 'chatcmpl-unit',
    model: 'pro-1',
    conversation: [{ role: 'user', content: 'hi' }],
    settings: {},
    plan: {
      depth: 'complex',
      passes: ['plan', 'draft', 'check'],
      maxTokens: 40,
      worstCase: { promptTokens: 500, completionTokens: 200 },
    },
    quote,
    requireApproval: true,
    at,
    approvalTtlMs: 60_000,
    idleTtlMs: 60_000,
  };
  const emitted: unknown[] = [];
  const actor = createActor(sessionMachine, { input });
  actor.on('*', (event) => emitted.push(event));
  actor.start();
  assert.equal(emitted, [
    { type: 'created', quote, requireApproval: true },
    { type: 'awaiting_approval', quote, expiresAt: at + 60_000 },
  ]);
  actor.stop();
});

test.run();
