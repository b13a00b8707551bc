import { fileTypeFromBuffer } from 'file-type';

/** What a file's first bytes say it is: file-type's extension (`png`, `mp4`, `zip`) and the MIME type the gateway names it by. */
export interface SniffedMedia {
  ext: string;
  mime: string;
}

/** Bytes the sniffer reads: file-type's recommended head, enough for every container we read. */
const SNIFF_BYTES = 4100;

/** Where the gateway names a type differently from file-type: the names stored files and video headers already use. */
const MIME_NAMES = new Map([
  ['video/vnd.avi', 'video/x-msvideo'],
  ['video/matroska', 'video/x-matroska'],
  ['audio/x-m4a', 'audio/mp4'],
]);

/**
 * The container the first bytes of `bytes` announce, by the maintained `file-type` library (the
 * one sniffer every caller uses: stored files' content type, video headers); null when it knows
 * none. A head too short to hold an ID3 tag's size still starts an MP3.
 */
export async function sniffMedia(bytes: Uint8Array): Promise<SniffedMedia | null> {
  const head = bytes.subarray(0, SNIFF_BYTES);
  let found: { ext: string; mime: string } | undefined;
  try {
    found = await fileTypeFromBuffer(head);
  } catch {
    // A malformed container the library trips over is, to us, no known type.
    found = undefined;
  }
  if (found) return { ext: found.ext, mime: MIME_NAMES.get(found.mime) ?? found.mime };
  if (head.length >= 3 && fourCC(head, 0).startsWith('ID3')) return { ext: 'mp3', mime: 'audio/mpeg' };
  return null;
}

/** The four Latin-1 characters at `at` (a RIFF chunk id, an ISO box type, a FourCC); shorter at the end of the bytes. */
export function fourCC(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + 4));
}
