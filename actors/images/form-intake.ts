import { ApiError } from '../../protocols/errors.js';
import {
  MultipartError,
  MultipartParser,
  multipartBoundary,
  type MultipartPartHead,
} from '../../protocols/multipart.js';
import type { BodyStream } from '../files/receive-multipart.js';

/** One file part of a form, whole in memory (media forms are bounded). */
export interface FormFile {
  field: string;
  filename: string;
  contentType: string | null;
  data: Buffer;
}

/** A form as received: text fields (every value, in order) and file parts. */
export interface ReceivedForm {
  fields: Map<string, string[]>;
  files: FormFile[];
}

/** Bounds of one form. */
export interface FormLimits {
  /** The whole body. */
  maxBytes: number;
  /** Each file part. */
  maxFileBytes: number;
  maxParts: number;
}

/** All text fields together stay small. */
const MAX_FIELD_BYTES = 256 * 1024;

/**
 * Reads a `multipart/form-data` body as the OpenAI SDK sends media requests (`images.edit`,
 * `videos.create`): text fields and file parts, bounded per file and in all; a malformed body is
 * 400 `invalid_multipart`, too much is 413.
 */
export async function receiveForm(body: BodyStream, limits: FormLimits): Promise<ReceivedForm> {
  const boundary = multipartBoundary(body.contentType);
  if (!boundary)
    throw new ApiError('invalid_multipart', 'The multipart/form-data Content-Type has no usable boundary parameter.');
  const form: ReceivedForm = { fields: new Map(), files: [] };
  let part: { head: MultipartPartHead; chunks: Buffer[]; bytes: number } | null = null;
  let fieldBytes = 0;
  const parser = new MultipartParser(
    boundary,
    {
      partStart(head) {
        part = { head, chunks: [], bytes: 0 };
      },
      partData(chunk) {
        const current = part!;
        current.bytes += chunk.length;
        if (current.head.filename === null) {
          fieldBytes += chunk.length;
          if (fieldBytes > MAX_FIELD_BYTES)
            throw new ApiError('payload_too_large', `Form fields other than files exceed ${MAX_FIELD_BYTES} bytes.`);
        } else if (current.bytes > limits.maxFileBytes) {
          throw new ApiError(
            'payload_too_large',
            `The file in part "${current.head.name.slice(0, 64)}" exceeds ${limits.maxFileBytes} bytes.`,
          );
        }
        current.chunks.push(chunk);
      },
      partEnd() {
        const { head, chunks } = part!;
        const data = Buffer.concat(chunks);
        if (head.filename !== null)
          form.files.push({ field: head.name, filename: head.filename, contentType: head.contentType, data });
        else form.fields.set(head.name, [...(form.fields.get(head.name) ?? []), data.toString('utf8')]);
        part = null;
      },
    },
    { maxParts: limits.maxParts },
  );
  try {
    await body.pipeBody((chunk) => parser.write(chunk), limits.maxBytes);
    parser.end();
  } catch (err) {
    if (err instanceof MultipartError)
      throw new ApiError('invalid_multipart', `The multipart body is malformed: ${err.message}`, { cause: err });
    throw err;
  }
  return form;
}

const NUMBER = /^-?\d+(\.\d+)?$/;

/** A nested form value (`metadata[sim][text_errors]`): numbers and booleans as such. */
function scalar(text: string): unknown {
  if (NUMBER.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text;
}

/**
 * The text fields of a form as a JSON-like body, to validate with the route's schema: `name[]`
 * collects a list, `name[key][…]` builds objects (how the SDK sends them), `integers` become
 * numbers when they look like integers (the schema judges the rest), `true`/`false` become
 * booleans for `booleans`. The last of repeated plain fields wins.
 */
export function formBody(
  fields: ReadonlyMap<string, readonly string[]>,
  options: { integers: readonly string[]; booleans?: readonly string[] },
): Record<string, unknown> {
  const body: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, values] of fields) {
    const list = /^([A-Za-z0-9_]{1,64})\[\]$/.exec(name);
    if (list) {
      body[list[1]!] = [...values];
      continue;
    }
    const nested = /^([A-Za-z0-9_]{1,64})((\[[A-Za-z0-9_-]{1,64}\]){1,4})$/.exec(name);
    if (nested) {
      const keys = [...nested[2]!.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]!);
      let target = (body[nested[1]!] ??= Object.create(null)) as Record<string, unknown>;
      if (typeof target !== 'object' || target === null) continue;
      for (const key of keys.slice(0, -1)) target = (target[key] ??= Object.create(null)) as Record<string, unknown>;
      if (typeof target === 'object' && target !== null) target[keys.at(-1)!] = scalar(values.at(-1)!);
      continue;
    }
    const value = values.at(-1)!;
    if (options.integers.includes(name) && /^-?\d{1,15}$/.test(value)) body[name] = Number(value);
    else if (options.booleans?.includes(name) && (value === 'true' || value === 'false')) body[name] = value === 'true';
    else if (name === 'metadata' && value.startsWith('{')) body[name] = parseObject(value);
    else body[name] = value;
  }
  return { ...body };
}

function parseObject(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
