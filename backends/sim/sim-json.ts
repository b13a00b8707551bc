import { fnv1a } from './sim-text.js';

/** A JSON Schema as the sim reads it: the keywords it honours, anything else ignored. */
interface Schema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema | Schema[];
  prefixItems?: Schema[];
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  multipleOf?: number;
  default?: unknown;
}

/** Nesting past which the sim stops adding optional content (recursive schemas end here). */
const MAX_DEPTH = 6;

/** A fixed instant, so dates and times are deterministic. */
const SIM_INSTANT = '2026-07-11T12:00:00Z';

/**
 * Deterministic values for a JSON Schema, seeded by the conversation: every value validates
 * against the schema's structural keywords (types, `const`, `enum`, required and declared
 * properties only, so `additionalProperties: false` holds, nested objects and arrays with their
 * item counts, string lengths and common formats, number bounds and `multipleOf`, `$ref` into
 * `$defs`/`definitions`, `anyOf`/`oneOf` (the first branch that is not null), `allOf` merged).
 * String values are words of the conversation. `pattern` is not honoured.
 */
export class SimJson {
  private readonly root: Schema;
  private state: number;
  private readonly plain: boolean;

  /**
   * `words` are the strings drawn from; `seed` varies the draws. `plain` (tool arguments) takes the
   * first choice everywhere instead: the first word, the first enum value, `true`, 1 where allowed.
   */
  constructor(
    schema: Record<string, unknown>,
    private readonly words: readonly string[],
    seed: string,
    options: { plain?: boolean } = {},
  ) {
    this.root = schema;
    this.state = fnv1a(seed) || 1;
    this.plain = options.plain ?? false;
  }

  /** A value for the whole schema. */
  value(): unknown {
    return this.valueOf(this.root, 0, 'value');
  }

  private next(): number {
    if (this.plain) return 0;
    this.state ^= this.state << 13;
    this.state ^= this.state >>> 17;
    this.state ^= this.state << 5;
    return (this.state >>> 0) / 0x1_0000_0000;
  }

  private resolve(schema: Schema, depth: number): Schema {
    let current = schema;
    for (let hops = 0; current.$ref !== undefined && hops < 32; hops++) {
      const target = this.lookup(current.$ref);
      current = { ...target, ...without(current, '$ref') };
    }
    if (current.allOf) current = this.merge(current, depth);
    return current;
  }

  private lookup(ref: string): Schema {
    if (ref === '#') return this.root;
    if (!ref.startsWith('#/')) return {};
    let node: unknown = this.root;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
    return node && typeof node === 'object' ? node : {};
  }

  private merge(schema: Schema, depth: number): Schema {
    const { allOf = [], ...rest } = schema;
    let merged: Schema = rest;
    for (const part of allOf) {
      const resolved = this.resolve(part, depth);
      merged = {
        ...resolved,
        ...merged,
        properties: { ...resolved.properties, ...merged.properties },
        required: [...new Set([...(resolved.required ?? []), ...(merged.required ?? [])])],
      };
    }
    return merged;
  }

  private valueOf(input: Schema, depth: number, name: string): unknown {
    const schema = this.resolve(input, depth);
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      return schema.enum[Math.floor(this.next() * schema.enum.length)];
    }
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches && branches.length > 0) {
      const branch = branches.find((b) => this.resolve(b, depth).type !== 'null') ?? branches[0]!;
      return this.valueOf({ ...without(schema, 'anyOf', 'oneOf'), ...this.resolve(branch, depth) }, depth, name);
    }
    switch (this.typeOf(schema)) {
      case 'null':
        return null;
      case 'boolean':
        return this.next() < 0.5;
      case 'integer':
        return this.number(schema, true);
      case 'number':
        return this.number(schema, false);
      case 'array':
        return this.array(schema, depth, name);
      case 'object':
        return this.object(schema, depth);
      default:
        return this.string(schema, name);
    }
  }

  private typeOf(schema: Schema): string {
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    const chosen = types.find((type) => type !== 'null') ?? types[0];
    if (chosen) return chosen;
    if (schema.properties) return 'object';
    if (schema.items || schema.prefixItems) return 'array';
    return 'string';
  }

  private object(schema: Schema, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const required = new Set(schema.required ?? []);
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      // Deep in a recursive schema, only what is required.
      if (depth >= MAX_DEPTH && !required.has(key)) continue;
      out[key] = this.valueOf(property, depth + 1, key);
    }
    for (const key of required) if (!(key in out)) out[key] = this.string({}, key);
    return out;
  }

  private array(schema: Schema, depth: number, name: string): unknown[] {
    const prefix = schema.prefixItems ?? (Array.isArray(schema.items) ? schema.items : []);
    const items = Array.isArray(schema.items) ? undefined : schema.items;
    const min = Math.max(schema.minItems ?? 0, prefix.length);
    const max = schema.maxItems ?? Number.POSITIVE_INFINITY;
    const wanted = depth >= MAX_DEPTH ? min : Math.max(min, Math.min(2, max));
    const out: unknown[] = [];
    for (let i = 0; i < wanted; i++) {
      const itemSchema = prefix[i] ?? items ?? {};
      let value = this.valueOf(itemSchema, depth + 1, name);
      // Distinct items where they must be: a few more draws, then a suffix on strings.
      for (let tries = 0; schema.uniqueItems && tries < 8 && out.some((seen) => same(seen, value)); tries++) {
        value = this.valueOf(itemSchema, depth + 1, `${name}${tries}`);
      }
      if (schema.uniqueItems && typeof value === 'string' && out.includes(value)) value = `${value} ${i + 1}`;
      if (schema.uniqueItems && out.some((seen) => same(seen, value)) && i >= min) break;
      out.push(value);
    }
    return out;
  }

  private number(schema: Schema, integer: boolean): number {
    let low = typeof schema.minimum === 'number' ? schema.minimum : Number.NEGATIVE_INFINITY;
    let high = typeof schema.maximum === 'number' ? schema.maximum : Number.POSITIVE_INFINITY;
    const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : 0;
    const nudge = step || (integer ? 1 : 0.5);
    if (typeof schema.exclusiveMinimum === 'number') low = Math.max(low, schema.exclusiveMinimum + nudge);
    else if (schema.exclusiveMinimum === true) low += nudge;
    if (typeof schema.exclusiveMaximum === 'number') high = Math.min(high, schema.exclusiveMaximum - nudge);
    else if (schema.exclusiveMaximum === true) high -= nudge;
    const preferred = this.plain ? 1 : 0;
    const base = Number.isFinite(low)
      ? Math.max(low, Math.min(preferred, high))
      : Number.isFinite(high)
        ? Math.min(high, preferred)
        : preferred;
    const span = Number.isFinite(high) ? Math.max(0, high - base) : 100;
    let value = base + Math.floor(this.next() * (Math.min(span, 100) + 1));
    if (step) value = Math.ceil(value / step) * step;
    if (integer) value = Math.ceil(value);
    if (value > high) value = step ? Math.floor(high / step) * step : integer ? Math.floor(high) : high;
    return value;
  }

  private string(schema: Schema, name: string): string {
    const formatted = this.formatted(schema.format, name);
    let text = formatted ?? this.phrase();
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
    if (formatted === undefined) {
      while ([...text].length < min) text += ` ${this.word()}`;
      if ([...text].length > max) text = [...text].slice(0, max).join('').trimEnd();
      if ([...text].length < min) text = text.padEnd(min, 'x');
    }
    return text;
  }

  private formatted(format: string | undefined, name: string): string | undefined {
    switch (format) {
      case 'date-time':
        return SIM_INSTANT;
      case 'date':
        return SIM_INSTANT.slice(0, 10);
      case 'time':
        return SIM_INSTANT.slice(11);
      case 'email':
        return `${slug(name) || 'sim'}@example.com`;
      case 'uri':
      case 'url':
        return `https://example.com/${slug(name) || 'sim'}`;
      case 'uuid': {
        const hex = [0, 1, 2, 3]
          .map(() =>
            Math.floor(this.next() * 0x1_0000_0000)
              .toString(16)
              .padStart(8, '0'),
          )
          .join('');
        return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
      }
      case 'ipv4':
        return '192.0.2.1';
      default:
        return undefined;
    }
  }

  private word(): string {
    return this.words.length > 0 ? this.words[Math.floor(this.next() * this.words.length)]! : 'value';
  }

  private phrase(): string {
    const count = 1 + Math.floor(this.next() * 3);
    return Array.from({ length: count }, () => this.word()).join(' ');
  }
}

/** `schema` without `keys`. */
function without(schema: Schema, ...keys: (keyof Schema)[]): Schema {
  const copy = { ...schema };
  for (const key of keys) delete copy[key];
  return copy;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
