import type { Rng } from './prng.js';

/** A value with a short description of why it is hostile, for the failure report. */
export interface Labelled<T> {
  value: T;
  label: string;
}

const PERCENT_JUNK = [
  '%00',
  '%ff',
  '%fe%ff',
  '..%2f..%2fetc%2fpasswd',
  '%2e%2e',
  '%252e%252e',
  '%c0%af',
  '%ed%a0%80',
  '%e2%82',
  '%',
  '%zz',
  '%u0041',
  'a%00b',
  '%0d%0aX-Injected:%201',
  '%20',
  '+',
  '%3Cscript%3E',
];
const UNICODE = ['ü', '日本語', '🙂', '\u202e', '\u0000', '\ufeff', 'İ', 'ǅ', '\u{10ffff}', 'ﷺ', 'a\u0301'];
const WORDS = [
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-1',
  '0',
  '1e309',
  '0x10',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'true',
  '[]',
  '{}',
  '.',
  '..',
  '*',
  '$where',
  "' OR 1=1 --",
];

/** Percent-encodes a string the way a client would (UTF-8), falling back to a raw byte dump for lone surrogates. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
  }
}

/** A random string of the kinds that break parsers: control characters, quotes, unicode, long runs. */
export function hostileString(rng: Rng, maxLength = 64): string {
  return rng.weighted<() => string>([
    [3, () => rng.chars(rng.int(0, maxLength))],
    [2, () => rng.pick(WORDS)],
    [2, () => Array.from({ length: rng.int(1, 6) }, () => rng.pick(UNICODE)).join('')],
    [1, () => rng.chars(rng.int(1, maxLength), '\u0000\u0001\u001f\u007f"\\\'\n\r\t<>&{}[]')],
    [1, () => ''],
    [1, () => ' '.repeat(rng.int(1, 8))],
  ])();
}

/**
 * A path segment in place of an id: real ids of the right or wrong kind (given), other accounts'
 * ids, random strings, 5,000+ character ids, percent-encoded junk and unicode. Already encoded.
 */
export function hostileSegment(rng: Rng, realIds: readonly Labelled<string>[]): Labelled<string> {
  return rng.weighted<() => Labelled<string>>([
    [
      realIds.length > 0 ? 14 : 0,
      () => {
        const id = rng.pick(realIds);
        return { value: encode(id.value), label: id.label };
      },
    ],
    [3, () => ({ value: rng.chars(rng.int(1, 40)), label: 'random id' })],
    [
      2,
      () => {
        const id = realIds.length > 0 ? rng.pick(realIds).value : 'x';
        const prefix = id.includes('_') ? id.slice(0, id.indexOf('_') + 1) : '';
        return {
          value: prefix + rng.chars(id.length - prefix.length || 20),
          label: 'well-formed id that does not exist',
        };
      },
    ],
    [
      2,
      () => {
        const length = rng.pick([300, 511, 512, 1978, 2000, 4096, 5000, 6000, 9000]);
        return { value: rng.chars(length), label: `${length}-character id` };
      },
    ],
    [2, () => ({ value: rng.pick(PERCENT_JUNK), label: 'percent-encoded junk' })],
    [2, () => ({ value: encode(hostileString(rng, 30)) || 'x', label: 'encoded hostile string' })],
    [1, () => ({ value: encode(rng.pick(WORDS)), label: 'keyword id' })],
    [1, () => ({ value: encode(rng.pick(UNICODE).repeat(rng.int(1, 600))), label: 'unicode id' })],
    [1, () => ({ value: rng.chars(rng.int(1, 12), 'éàü\u00a0\u00ff\u0080'), label: 'raw latin-1 bytes in the path' })],
  ])();
}

const QUERY_KEYS = [
  'limit',
  'after',
  'order',
  'purpose',
  'force',
  'delete_artifacts',
  'ticket',
  'model',
  'stream',
  'n',
];

function queryValue(rng: Rng): Labelled<string> {
  return rng.weighted<() => Labelled<string>>([
    [2, () => ({ value: String(rng.int(-5, 20)), label: 'small number' })],
    [
      2,
      () => ({
        value: rng.pick(['abc', 'true', 'false', 'yes', '[]', '{}', 'null', '', '1.5', '0x10', '1e3', '%207%20']),
        label: 'wrong type',
      }),
    ],
    [
      2,
      () => ({
        value: rng.pick([
          '1e309',
          '-1e309',
          '9'.repeat(400),
          '9007199254740993',
          '-9007199254740993',
          'NaN',
          'Infinity',
          '-0',
        ]),
        label: 'huge or non-finite number',
      }),
    ],
    [1, () => ({ value: rng.pick(['-1', '-100000', '-2147483649']), label: 'negative number' })],
    [1, () => ({ value: rng.chars(rng.pick([1000, 5000, 20000])), label: 'very long value' })],
    [2, () => ({ value: rng.pick(PERCENT_JUNK), label: 'percent junk' })],
    [1, () => ({ value: encode(hostileString(rng)), label: 'hostile string' })],
    [1, () => ({ value: rng.pick(['asc', 'desc', 'assistants', 'batch', '1', 'true']), label: 'plausible value' })],
  ])();
}

/** A query string (with its leading `?`, or empty): wrong types, huge and negative numbers, repeats, long values. */
export function hostileQuery(rng: Rng): Labelled<string> {
  if (rng.chance(0.35)) return { value: '', label: 'no query' };
  const shape = rng.weighted<string>([
    [6, 'pairs'],
    [1, 'repeated'],
    [1, 'proto'],
    [1, 'bare'],
  ]);
  if (shape === 'bare')
    return {
      value: rng.pick(['?', '?&&&', '?=', '?=&=', '?limit', '?limit=', `?${rng.chars(3000)}`]),
      label: 'degenerate query',
    };
  if (shape === 'proto')
    return {
      value: rng.pick([
        '?__proto__=1',
        '?constructor[prototype][x]=1',
        '?__proto__[limit]=1&limit=2',
        '?toString=1&valueOf=2',
      ]),
      label: 'prototype keys in query',
    };
  const pairs: string[] = [];
  const labels: string[] = [];
  const count = shape === 'repeated' ? rng.int(2, 40) : rng.int(1, 4);
  const repeatedKey = rng.pick(QUERY_KEYS);
  for (let i = 0; i < count; i++) {
    const key =
      shape === 'repeated'
        ? repeatedKey
        : rng.chance(0.85)
          ? rng.pick(QUERY_KEYS)
          : encode(hostileString(rng, 20)) || 'k';
    const value = queryValue(rng);
    pairs.push(`${key}=${value.value}`);
    if (labels.length < 3) labels.push(`${key}: ${value.label}`);
  }
  return {
    value: `?${pairs.join('&')}`,
    label: shape === 'repeated' ? `repeated key ${repeatedKey}` : labels.join(', '),
  };
}

/** A Content-Type header for a JSON route: right, wrong, malformed or absent (undefined). */
export function hostileContentType(rng: Rng): string | undefined {
  return rng.weighted<string | undefined>([
    [12, 'application/json'],
    [2, undefined],
    [1, 'application/json; charset=utf-16'],
    [1, 'text/plain'],
    [1, 'application/x-www-form-urlencoded'],
    [1, 'multipart/form-data'],
    [1, 'multipart/form-data; boundary='],
    [1, 'application/octet-stream'],
    [1, ''],
    [1, '*/*'],
    [1, `application/json; ${'x'.repeat(3000)}`],
    [1, 'application/json\u00ff'],
  ]);
}
