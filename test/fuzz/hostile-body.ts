import { chatTwist } from './chat-bodies.js';
import type { FuzzFixtures } from './fuzz-fixtures.js';
import { hostileContentType, hostileString } from './hostile-values.js';
import { bareObject, nested, RawJson, toJsonText, type JsonLike } from './json-text.js';
import { hostileMultipart } from './multipart-bodies.js';
import type { Rng } from './prng.js';
import type { BodyBase } from './route-bodies.js';

/** A generated body: bytes (none when undefined), the Content-Type to send, and what was done to it. */
export interface HostileBody {
  body: Buffer | undefined;
  contentType: string | undefined;
  chunked: boolean;
  label: string;
}

/** The key a polluted prototype would show; checked absent after the run. */
export const POLLUTION_MARKER = 'fuzzPolluted';

const NOT_JSON = [
  '{',
  '{"model":',
  "{'a':1}",
  '{"a":1,}',
  'NaN',
  'undefined',
  '<xml/>',
  'a=1&b=2',
  '\u0000',
  '{"a":1}garbage',
  '[1,2',
  '"unterminated',
  '{"a":"\\u00"}',
  '{"a":01}',
  ' ',
  '\n\n',
  '{"a":1}{"b":2}',
  '//{}',
  '{"a":\u00a01}',
];
const SCALARS = ['1', '"x"', 'null', 'true', 'false', '[]', '[{}]', '[null]', '-0', '1e999', '""', '[[[]]]', '0'];
const BAD_UTF8 = [
  [0xff],
  [0xc3, 0x28],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc0, 0xaf],
  [0xe2, 0x82],
  [0x00],
];

/** What is done to a JSON body. */
export type JsonStrategy =
  | 'valid'
  | 'chat'
  | 'wrong-type'
  | 'null'
  | 'missing'
  | 'extra'
  | 'deep'
  | 'huge'
  | 'over-cap'
  | 'scalar'
  | 'not-json'
  | 'empty'
  | 'utf8'
  | 'duplicate'
  | 'proto';

const STRATEGY_WEIGHTS: [number, JsonStrategy][] = [
  [14, 'valid'],
  [26, 'chat'],
  [12, 'wrong-type'],
  [4, 'null'],
  [4, 'missing'],
  [6, 'extra'],
  [12, 'deep'],
  [5, 'huge'],
  [1, 'over-cap'],
  [5, 'scalar'],
  [6, 'not-json'],
  [3, 'empty'],
  [4, 'utf8'],
  [3, 'duplicate'],
  [5, 'proto'],
];

/**
 * The strategies a short run goes through in order, one pass over every route each, most telling
 * first, so even a few hundred requests try each of them on every route that takes a body.
 */
export const SYSTEMATIC_STRATEGIES: readonly JsonStrategy[] = [
  'valid',
  'deep',
  'chat',
  'proto',
  'wrong-type',
  'huge',
  'deep',
  'chat',
  'not-json',
  'scalar',
  'utf8',
  'duplicate',
  'extra',
  'null',
  'missing',
  'empty',
  'over-cap',
];

/** The fields where deep nesting gets furthest: values the schemas accept as unknown. */
const DEEP_TARGETS = [
  'metadata',
  'metadata',
  'metadata',
  'messages.0.content',
  'tools',
  'response_format',
  'content',
  'content',
  '*',
];

function wrongValue(rng: Rng): JsonLike {
  return rng.pick<JsonLike>([
    123,
    -1,
    1.5,
    'str',
    true,
    false,
    [],
    bareObject(),
    null,
    new RawJson('1e999'),
    new RawJson('-1e999'),
    'x'.repeat(300),
    [1, [2, [3]]],
    '',
    2 ** 63,
    new RawJson('0.1e-400'),
  ]);
}

function keysOf(base: Record<string, JsonLike>): string[] {
  return Object.keys(base);
}

/** A string of `length` characters, cheap to make at megabyte sizes. */
function bigString(rng: Rng, length: number): string {
  const unit = rng.chars(64) + rng.pick(['', 'é', '"\\', '\u0000', '🙂']);
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Puts `value` deep into the body where validation is least likely to stop it early. */
function placeDeep(rng: Rng, body: Record<string, JsonLike>, value: JsonLike): string {
  const target = rng.pick(DEEP_TARGETS);
  const messages = body.messages;
  if (
    target === 'messages.0.content' &&
    Array.isArray(messages) &&
    messages[0] &&
    typeof messages[0] === 'object' &&
    !Array.isArray(messages[0]) &&
    !(messages[0] instanceof RawJson)
  ) {
    messages[0].content = value;
  } else if (target === 'tools') {
    body.tools = [
      bareObject({
        type: 'function',
        function: bareObject({ name: 'deep', parameters: bareObject({ type: 'object', properties: value }) }),
      }),
    ];
  } else if (target === 'response_format') {
    body.response_format = bareObject({
      type: 'json_schema',
      json_schema: bareObject({ name: 'deep', schema: bareObject({ nested: value }) }),
    });
  } else if (target === '*' && keysOf(body).length > 0) {
    const key = rng.pick(keysOf(body));
    body[key] = value;
    return key;
  } else if (target === 'content') {
    body.content = value;
  } else {
    body.metadata = bareObject({ deep: value });
    return 'metadata';
  }
  return target;
}

/** Adds `__proto__` and `constructor.prototype` keys, at the top and inside metadata. */
function pollute(rng: Rng, body: Record<string, JsonLike>): void {
  const payload = bareObject({ [POLLUTION_MARKER]: true, balance: 1e9, isAdmin: true });
  if (rng.chance(0.6)) body.__proto__ = payload;
  if (rng.chance(0.5)) body['constructor'] = bareObject({ prototype: payload });
  const metadata = bareObject();
  metadata.__proto__ = payload;
  if (rng.chance(0.5)) body.metadata = metadata;
  if (rng.chance(0.3)) body.prototype = payload;
}

function withBadBytes(rng: Rng, text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const bad = Buffer.from(rng.pick(BAD_UTF8));
  const shape = rng.int(0, 3);
  if (shape === 0) return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]); // a BOM
  if (shape === 1) return Buffer.from(text, 'utf16le');
  // Inside the first string value, where a lenient decoder would let it through.
  const at = text.indexOf(':"');
  const cut = at >= 0 ? Buffer.byteLength(text.slice(0, at + 2)) : bytes.length;
  return Buffer.concat([bytes.subarray(0, cut), bad, bytes.subarray(cut)]);
}

function withDuplicateKeys(rng: Rng, base: Record<string, JsonLike>): string {
  const text = toJsonText(base);
  const key = keysOf(base).length > 0 ? rng.pick(keysOf(base)) : '__proto__';
  const first = `${JSON.stringify(key)}:${toJsonText(wrongValue(rng))},`;
  return `{${first}${text.slice(1, -1)}${text.length > 2 ? ',' : ''}${JSON.stringify(key)}:${toJsonText(wrongValue(rng))}}`;
}

/** A JSON body for `base`: valid, or with one hostile twist chosen by the PRNG. */
function mutateJson(
  rng: Rng,
  base: Record<string, JsonLike>,
  options: { chat: boolean; maxBodyBytes: number; fx: FuzzFixtures; strategy: JsonStrategy | undefined },
): { text: string | Buffer; label: string } {
  const keys = keysOf(base);
  const strategy =
    options.strategy && (options.chat || options.strategy !== 'chat')
      ? options.strategy
      : rng.weighted<JsonStrategy>(STRATEGY_WEIGHTS.filter(([, name]) => options.chat || name !== 'chat'));
  switch (strategy) {
    case 'chat': {
      const twisted = chatTwist(rng, options.fx);
      return { text: toJsonText(twisted.value), label: twisted.label };
    }
    case 'wrong-type': {
      const key = keys.length > 0 ? rng.pick(keys) : 'x';
      base[key] = wrongValue(rng);
      return { text: toJsonText(base), label: `wrong type in ${key}` };
    }
    case 'null': {
      for (const key of keys) if (rng.chance(0.5)) base[key] = null;
      return { text: toJsonText(base), label: 'nulls' };
    }
    case 'missing': {
      const key = keys.length > 0 ? rng.pick(keys) : 'x';
      delete base[key];
      return { text: toJsonText(base), label: `missing ${key}` };
    }
    case 'extra': {
      for (let i = rng.int(1, 5); i > 0; i--)
        base[
          rng.pick([
            'id',
            'object',
            'account_id',
            'balance_usd',
            'admin',
            'status',
            'owner',
            hostileString(rng, 20) || 'k',
          ])
        ] = wrongValue(rng);
      return { text: toJsonText(base), label: 'unknown fields' };
    }
    case 'deep': {
      const depth = rng.pick([65, 100, 500, 1000, 2000, 3000, 3000, 5000, 5000, 10_000]);
      const shape = rng.pick(['array', 'object', 'mixed'] as const);
      const where = placeDeep(rng, base, nested(depth, shape));
      return { text: toJsonText(base), label: `${shape} nested ${depth} deep in ${where}` };
    }
    case 'huge': {
      const length = rng.pick([10_000, 100_000, 1_000_000, 3_000_000]);
      const candidates = options.chat ? [...keys, 'target_variant_id', 'user', 'stop'] : keys;
      const key = candidates.length > 0 && rng.chance(0.7) ? rng.pick(candidates) : 'metadata';
      base[key] = key === 'metadata' ? bareObject({ big: bigString(rng, length) }) : bigString(rng, length);
      return { text: toJsonText(base), label: `${length}-character string in ${key}` };
    }
    case 'over-cap': {
      const length = options.maxBodyBytes + rng.int(1, 4096);
      base.metadata = bareObject({ big: 'x'.repeat(length) });
      return { text: toJsonText(base), label: `body over the ${options.maxBodyBytes}-byte cap` };
    }
    case 'scalar':
      return { text: rng.pick(SCALARS), label: 'JSON scalar or array instead of an object' };
    case 'not-json': {
      if (rng.chance(0.3))
        return {
          text: Buffer.from(Array.from({ length: rng.int(1, 200) }, () => rng.int(0, 255))),
          label: 'random bytes',
        };
      return { text: rng.pick(NOT_JSON), label: 'not JSON' };
    }
    case 'empty':
      return { text: '', label: 'empty body' };
    case 'utf8':
      return { text: withBadBytes(rng, toJsonText(base)), label: 'invalid UTF-8 / BOM / UTF-16' };
    case 'duplicate':
      return { text: withDuplicateKeys(rng, base), label: 'duplicate keys' };
    case 'proto': {
      pollute(rng, base);
      return { text: toJsonText(base), label: 'prototype-pollution keys' };
    }
    default:
      return { text: toJsonText(base), label: 'valid-looking body' };
  }
}

function junkBody(rng: Rng): { text: string | Buffer; label: string } {
  return rng.pick([
    { text: '{}', label: 'unexpected {} body' },
    { text: rng.pick(NOT_JSON), label: 'unexpected non-JSON body' },
    { text: toJsonText(nested(rng.pick([100, 5000]), 'array')), label: 'unexpected deep body' },
    {
      text: Buffer.from(Array.from({ length: rng.int(1, 64) }, () => rng.int(0, 255))),
      label: 'unexpected random bytes',
    },
  ]);
}

/** A raw part for PUT …/parts/:n: mostly octet-stream of a size around the expected one. */
function hostilePart(rng: Rng): HostileBody {
  const length = rng.pick([0, 1, 15, 16, 16, 16, 17, 64, 1000, 100_000]);
  const contentType = rng.weighted<string | undefined>([
    [6, 'application/octet-stream'],
    [2, undefined],
    [1, 'application/json'],
    [1, 'multipart/form-data; boundary=x'],
  ]);
  return {
    body: length > 0 || rng.chance(0.5) ? Buffer.from(rng.chars(length)) : undefined,
    contentType,
    chunked: rng.chance(0.1),
    label: `${length}-byte part`,
  };
}

/** The body of one request for a route of body kind `base.kind`. */
export function hostileBody(
  rng: Rng,
  base: BodyBase,
  options: { maxBodyBytes: number; fx: FuzzFixtures; strategy?: JsonStrategy },
): HostileBody {
  const chunked = rng.chance(0.05);
  if (base.kind === 'part') return hostilePart(rng);
  if (base.kind === 'file' && rng.chance(0.5)) {
    const form = hostileMultipart(rng);
    return { body: form.value.body, contentType: form.value.contentType, chunked, label: form.label };
  }
  if (base.kind === 'none' || !base.base) {
    if (rng.chance(0.8)) return { body: undefined, contentType: undefined, chunked: false, label: 'no body' };
    const junk = junkBody(rng);
    return { body: Buffer.from(junk.text), contentType: hostileContentType(rng), chunked, label: junk.label };
  }
  const json = mutateJson(rng, base.base, {
    chat: base.kind === 'chat',
    maxBodyBytes: options.maxBodyBytes,
    fx: options.fx,
    strategy: options.strategy,
  });
  const body = typeof json.text === 'string' ? Buffer.from(json.text) : json.text;
  return {
    body: body.length === 0 && rng.chance(0.5) ? undefined : body,
    contentType: hostileContentType(rng),
    chunked,
    label: json.label,
  };
}
