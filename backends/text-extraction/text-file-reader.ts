import { open, type FileHandle } from 'node:fs/promises';
import { TextDecoder } from 'node:util';

/** Bytes read and decoded per step: small enough that no step holds the event loop for long. */
const CHUNK_BYTES = 64 * 1024;

/** The caps on one text read. */
export interface TextReadLimits {
  maxSourceBytes: number;
  maxTextChars: number;
}

/** A file's text and whether the file (or its text) went past the caps. */
export interface TextRead {
  text: string;
  truncated: boolean;
}

/** The decoder a byte-order mark picks, else the declared charset when TextDecoder knows it, else UTF-8. */
function decoderFor(head: Buffer, charset: string | null): TextDecoder {
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le');
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be');
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return new TextDecoder('utf-8');
  try {
    return new TextDecoder(charset ?? 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
}

/** Cuts `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Collects decoded text with CRLF and lone CR turned into LF, up to a character cap. */
class TextSink {
  private readonly parts: string[] = [];
  private chars = 0;
  private heldCr = false;
  full = false;

  constructor(private readonly maxChars: number) {}

  /** Adds a decoded piece; a trailing CR waits for the next piece in case an LF follows. */
  add(piece: string, last: boolean): void {
    let text = (this.heldCr ? '\r' : '') + piece;
    this.heldCr = !last && text.endsWith('\r');
    if (this.heldCr) text = text.slice(0, -1);
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    const room = this.maxChars - this.chars;
    if (text.length > room) {
      text = cutText(text, room);
      this.full = true;
    }
    this.parts.push(text);
    this.chars += text.length;
  }

  text(): string {
    return this.parts.join('');
  }
}

async function readChunk(handle: FileHandle, buffer: Buffer, position: number, length: number): Promise<Buffer> {
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/**
 * Reads a text file's start, at most `maxSourceBytes`, decoding UTF-8 (or UTF-16 by byte-order mark,
 * or `charset`) a chunk at a time; invalid bytes become U+FFFD, a character cut by the byte cap is
 * dropped whole, and line endings become LF.
 */
export async function readTextFile(
  path: string,
  limits: TextReadLimits,
  charset: string | null = null,
): Promise<TextRead> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, limits.maxSourceBytes)));
    const sink = new TextSink(limits.maxTextChars);
    let decoder: TextDecoder | null = null;
    let position = 0;
    for (;;) {
      const room = limits.maxSourceBytes - position;
      if (room <= 0) {
        // At the byte cap: a character split by it stays in the decoder and is dropped, not flushed as U+FFFD.
        const more = (await readChunk(handle, buffer, position, 1)).length > 0;
        sink.add('', true);
        return { text: sink.text(), truncated: more || sink.full };
      }
      const chunk = await readChunk(handle, buffer, position, Math.min(buffer.length, room));
      if (chunk.length === 0) {
        sink.add(decoder?.decode() ?? '', true);
        return { text: sink.text(), truncated: sink.full };
      }
      decoder ??= decoderFor(chunk, charset);
      position += chunk.length;
      sink.add(decoder.decode(chunk, { stream: true }), false);
      if (sink.full) return { text: sink.text(), truncated: true };
    }
  } finally {
    await handle.close();
  }
}
