/**
 * JSON built as text, so a fuzzer can say what JSON.stringify cannot: fragments nested thousands
 * of levels deep, duplicate keys, numbers such as 1e999, and `__proto__` as a plain key.
 */

/** A piece of JSON text placed as is where a value goes. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A value the serialiser accepts: plain JSON values, RawJson fragments, arrays and objects of them. */
export type JsonLike = string | number | boolean | null | RawJson | JsonLike[] | { [key: string]: JsonLike };

/** An object without a prototype, so `obj.__proto__ = x` makes an own key rather than a prototype. */
export function bareObject(entries: Record<string, JsonLike> = {}): Record<string, JsonLike> {
  const out = Object.create(null) as Record<string, JsonLike>;
  for (const key of Object.keys(entries)) out[key] = entries[key]!;
  return out;
}

/** Serialises `value`, inserting RawJson fragments verbatim (deep parts are fragments, so this recursion stays shallow). */
export function toJsonText(value: JsonLike): string {
  if (value instanceof RawJson) return value.text;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  return `{${Object.keys(value)
    .map((key) => `${JSON.stringify(key)}:${toJsonText(value[key]!)}`)
    .join(',')}}`;
}

/** `depth` nested arrays or objects around `leaf` (built as text, so any depth is cheap). */
export function nested(depth: number, shape: 'array' | 'object' | 'mixed', leaf = '1'): RawJson {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    const asArray = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
    open.push(asArray ? '[' : '{"a":');
    close.push(asArray ? ']' : '}');
  }
  return new RawJson(open.join('') + leaf + close.reverse().join(''));
}
