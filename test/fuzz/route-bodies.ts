import { baseChat } from './chat-bodies.js';
import type { FuzzFixtures } from './fuzz-fixtures.js';
import { bareObject, type JsonLike } from './json-text.js';
import type { Rng } from './prng.js';

/** What a route takes as its body. */
export type BodyKind = 'none' | 'json' | 'chat' | 'file' | 'part';

/** A route's body kind and a valid-looking body to start mutating from. */
export interface BodyBase {
  kind: BodyKind;
  base: Record<string, JsonLike> | null;
}

/** A valid-looking Responses request: text or items, sometimes tools, a format, a chain or a stream. */
function baseResponse(rng: Rng): Record<string, JsonLike> {
  const text = `Say something about ${rng.chars(6)}`;
  return bareObject({
    model: 'pro-1',
    input: rng.chance(0.5)
      ? text
      : [
          { role: 'user', content: [{ type: 'input_text', text }] },
          { type: 'function_call', call_id: 'call_fuzz', name: 'lookup', arguments: '{"q":"x"}' },
          { type: 'function_call_output', call_id: 'call_fuzz', output: 'found' },
        ],
    instructions: rng.pick<JsonLike>([null, 'Be brief.']),
    max_output_tokens: rng.int(1, 64),
    tools: rng.pick<JsonLike>([
      [],
      [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
      [{ type: 'file_search', vector_store_ids: ['vs_fuzz'] }],
    ]),
    text: rng.pick<JsonLike>([{ format: { type: 'text' } }, { format: { type: 'json_object' } }]),
    store: rng.chance(0.5),
    stream: rng.chance(0.3),
  });
}

const email = (rng: Rng) => `fuzz-${rng.chars(10).toLowerCase()}@example.com`;

/** Valid-looking bodies by `METHOD path`; a route missing here gets generic junk, so new routes are still covered. */
const BASES: Record<string, (rng: Rng, fx: FuzzFixtures) => BodyBase> = {
  'POST /v1/auth/register': (rng) => ({
    kind: 'json',
    base: bareObject({ email: email(rng), password: `pw-${rng.chars(12)}` }),
  }),
  'POST /v1/auth/login': (rng, fx) => ({
    kind: 'json',
    base: bareObject({ email: rng.chance(0.5) ? fx.primary.email : email(rng), password: `wrong-${rng.chars(8)}` }),
  }),
  'POST /v1/auth/logout': () => ({ kind: 'none', base: null }),
  'POST /v1/chat/sessions/:session_id/approve': () => ({ kind: 'none', base: null }),
  'POST /v1/chat/sessions/:session_id/acknowledge': () => ({ kind: 'none', base: null }),
  'POST /v1/files/uploads/:upload_id/complete': () => ({ kind: 'none', base: null }),
  'POST /v1/realtime/ticket': () => ({ kind: 'none', base: null }),
  // Never the real current password: a successful change would revoke the fuzzer's own session.
  'POST /v1/account/password': (rng) => ({
    kind: 'json',
    base: bareObject({ current_password: `wrong-${rng.chars(8)}`, new_password: `new-${rng.chars(12)}` }),
  }),
  'POST /v1/account/tokens': (rng) => ({
    kind: 'json',
    base: bareObject({ label: `fuzz ${rng.chars(5)}`, requests_per_minute: rng.pick<JsonLike>([null, 1000, 60]) }),
  }),
  'PATCH /v1/account/tokens/:token': (rng) => ({
    kind: 'json',
    base: bareObject({
      label: `fuzz ${rng.chars(5)}`,
      requests_per_minute: rng.pick<JsonLike>([null, 1000]),
      enabled: rng.chance(0.7),
    }),
  }),
  'POST /v1/estimate': (rng) => ({ kind: 'chat', base: baseChat(rng) }),
  'POST /v1/chat/completions': (rng) => ({ kind: 'chat', base: baseChat(rng) }),
  'POST /v1/responses': (rng) => ({ kind: 'json', base: baseResponse(rng) }),
  'POST /v1/responses/:response_id/cancel': () => ({ kind: 'none', base: null }),
  'POST /v1/chat/sessions': (rng) => ({
    kind: 'chat',
    base: Object.assign(baseChat(rng), { require_approval: rng.chance(0.5) }),
  }),
  'POST /v1/messages': (rng) => ({
    kind: 'json',
    base: bareObject({
      model: 'pro-1',
      max_tokens: rng.int(1, 64),
      system: rng.pick<JsonLike>(['Be brief.', [{ type: 'text', text: 'Be brief.' }]]),
      messages: [
        { role: 'user', content: rng.pick<JsonLike>([`Hello ${rng.chars(6)}`, [{ type: 'text', text: 'Hi' }]]) },
      ],
      stream: rng.chance(0.3),
      stop_sequences: rng.pick<JsonLike>([[], ['.']]),
    }),
  }),
  'POST /v1/messages/count_tokens': (rng) => ({
    kind: 'json',
    base: bareObject({ model: 'pro-1', messages: [{ role: 'user', content: `Count ${rng.chars(6)}` }] }),
  }),
  'POST /v1/chat/completions/:completion_id/live-input': (rng) => ({
    kind: 'json',
    base: bareObject({ content: `also consider ${rng.chars(6)}`, source: 'fuzz', modality: 'text' }),
  }),
  'POST /v1/chat/sessions/:session_id/live-input': (rng) => ({
    kind: 'json',
    base: bareObject({ content: `also consider ${rng.chars(6)}`, question_id: null }),
  }),
  'POST /v1/chat/completions/:completion_id/cancel': () => ({ kind: 'json', base: bareObject({ reason: 'fuzz' }) }),
  'POST /v1/chat/sessions/:session_id/cancel': () => ({ kind: 'json', base: bareObject({ reason: 'fuzz' }) }),
  'POST /v1/files': (rng) => ({
    kind: 'file',
    base: bareObject({
      filename: `fuzz-${rng.chars(4)}.txt`,
      file_data: Buffer.from(`fuzz ${rng.chars(20)}`).toString('base64'),
      purpose: 'assistants',
    }),
  }),
  'POST /v1/files/search': (rng, fx) => ({
    kind: 'json',
    base: bareObject({
      query: rng.pick(['fuzz', 'notes', 'fixture']),
      file_id: rng.pick<JsonLike>([null, fx.own.fileId]),
      max_hits: rng.int(1, 20),
    }),
  }),
  'POST /v1/files/uploads': (rng) => ({
    kind: 'json',
    base: bareObject({ filename: `fuzz-${rng.chars(4)}.bin`, bytes: rng.int(1, 64), purpose: 'assistants' }),
  }),
  'PUT /v1/files/uploads/:upload_id/parts/:part_number': () => ({ kind: 'part', base: null }),
  'POST /admin/v1/accounts': (rng) => ({
    kind: 'json',
    base: bareObject({
      email: email(rng),
      password: `pw-${rng.chars(12)}`,
      credit_usd: rng.pick<JsonLike>([0, 1, 2.5]),
    }),
  }),
  'POST /admin/v1/accounts/:id/credit': (rng) => ({
    kind: 'json',
    base: bareObject({ usd: rng.pick<JsonLike>([1, 0.5, 0.000001]), description: 'fuzz top-up' }),
  }),
  'POST /admin/v1/accounts/:id/status': (rng) => ({
    kind: 'json',
    base: bareObject({ status: rng.pick(['active', 'suspended']) }),
  }),
};

/** The body kind and base for `method path`; unknown writes get a generic object, reads none. */
export function bodyBaseFor(key: string, method: string, rng: Rng, fx: FuzzFixtures): BodyBase {
  const known = BASES[key];
  if (known) return known(rng, fx);
  if (method === 'GET' || method === 'DELETE') return { kind: 'none', base: null };
  return { kind: 'json', base: bareObject({ name: rng.chars(8), value: rng.int(0, 100), enabled: true }) };
}
