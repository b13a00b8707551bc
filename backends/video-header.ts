import { fourCC, sniffMedia } from '../protocols/media-sniff.js';

/** The video containers the gateway reads. */
export type VideoContainer = 'mp4' | 'mov' | '3gp' | 'webm' | 'mkv' | 'avi';

/** What a video's container says about it; fields the container does not declare are null. */
export interface VideoHeader {
  container: VideoContainer;
  mediaType: string;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
}

const MEDIA_TYPES: Record<VideoContainer, string> = {
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  '3gp': 'video/3gpp',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
};

interface Box {
  type: string;
  start: number;
  end: number;
}

/** The container of each video type the sniffer names (by file-type's extension). */
const CONTAINERS = new Map<string, VideoContainer>([
  ['mp4', 'mp4'],
  ['m4v', 'mp4'],
  ['m4p', 'mp4'],
  ['f4v', 'mp4'],
  ['f4p', 'mp4'],
  ['mov', 'mov'],
  ['3gp', '3gp'],
  ['3g2', '3gp'],
  ['webm', 'webm'],
  ['mkv', 'mkv'],
  ['avi', 'avi'],
]);

/** The ISO-BMFF boxes between `start` and `end`; a truncated last box is clamped to what is there. */
function boxes(view: DataView, bytes: Uint8Array, start: number, end: number): Box[] {
  const found: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    let size = view.getUint32(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) break;
      size = Number(view.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header) break;
    found.push({ type: fourCC(bytes, at + 4), start: at + header, end: Math.min(at + size, end) });
    at += size;
  }
  return found;
}

function child(view: DataView, bytes: Uint8Array, parent: Box, type: string): Box | undefined {
  return boxes(view, bytes, parent.start, parent.end).find((box) => box.type === type);
}

/** Duration from `mvhd`, dimensions from the first `tkhd` that has any (16.16 fixed point). */
function isoMedia(bytes: Uint8Array, container: VideoContainer): VideoHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const header: VideoHeader = {
    container,
    mediaType: MEDIA_TYPES[container],
    width: null,
    height: null,
    durationSeconds: null,
  };
  const moov = boxes(view, bytes, 0, bytes.length).find((box) => box.type === 'moov');
  if (!moov) return header;
  const mvhd = child(view, bytes, moov, 'mvhd');
  if (mvhd) {
    const v1 = bytes[mvhd.start] === 1;
    const at = mvhd.start + (v1 ? 20 : 12);
    if (at + (v1 ? 12 : 8) <= mvhd.end) {
      const timescale = view.getUint32(at);
      const duration = v1 ? Number(view.getBigUint64(at + 4)) : view.getUint32(at + 4);
      if (timescale > 0) header.durationSeconds = duration / timescale;
    }
  }
  for (const trak of boxes(view, bytes, moov.start, moov.end).filter((box) => box.type === 'trak')) {
    const tkhd = child(view, bytes, trak, 'tkhd');
    if (!tkhd) continue;
    const at = tkhd.start + (bytes[tkhd.start] === 1 ? 88 : 76);
    if (at + 8 > tkhd.end) continue;
    const width = view.getUint32(at) >>> 16;
    const height = view.getUint32(at + 4) >>> 16;
    if (width > 0 && height > 0) {
      header.width = width;
      header.height = height;
      break;
    }
  }
  return header;
}

/** AVI: frame count, frame time and size from the `avih` main header near the start. */
function avi(bytes: Uint8Array): VideoHeader {
  const header: VideoHeader = {
    container: 'avi',
    mediaType: MEDIA_TYPES.avi,
    width: null,
    height: null,
    durationSeconds: null,
  };
  const at = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).indexOf('avih');
  if (at < 0 || at + 48 > bytes.length) return header;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const body = at + 8;
  const microsPerFrame = view.getUint32(body, true);
  const frames = view.getUint32(body + 16, true);
  if (microsPerFrame > 0 && frames > 0) header.durationSeconds = (frames * microsPerFrame) / 1e6;
  header.width = view.getUint32(body + 32, true) || null;
  header.height = view.getUint32(body + 36, true) || null;
  return header;
}

/**
 * Reads a video's container header: the container from the media sniffer, then what the library
 * does not give, read here: MP4/MOV/3GP duration and size from `mvhd`/`tkhd`, AVI's from `avih`
 * (WebM and Matroska declare neither up front). Null when the bytes are no MP4, MOV, 3GP, WebM,
 * Matroska or AVI.
 */
export async function readVideoHeader(bytes: Uint8Array): Promise<VideoHeader | null> {
  const sniffed = await sniffMedia(bytes);
  const container = sniffed ? CONTAINERS.get(sniffed.ext) : undefined;
  if (!container) return null;
  if (container === 'avi') return avi(bytes);
  if (container === 'webm' || container === 'mkv')
    return { container, mediaType: MEDIA_TYPES[container], width: null, height: null, durationSeconds: null };
  return isoMedia(bytes, container);
}
