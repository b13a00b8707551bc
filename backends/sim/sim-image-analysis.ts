import type { ImageAnalysis, ImageAnalysisBackend, ImageAnalysisRequest } from '../image-analysis.js';
import { readImageHeader } from '../image-header.js';
import { UnreadableMediaError } from '../unreadable-media-error.js';
import { seedFromBytes } from './sim-media-seed.js';
import { simPalette, simScene } from './sim-scene.js';

function orientation(width: number, height: number): string {
  if (width === height) return 'square';
  return width > height ? 'landscape' : 'portrait';
}

function analyse(request: ImageAnalysisRequest): ImageAnalysis {
  request.signal.throwIfAborted();
  const header = readImageHeader(request.image);
  if (!header) throw new UnreadableMediaError('not a recognised image (PNG, JPEG, GIF or WebP)');
  const random = seedFromBytes(request.image, 'image');
  const description = `${orientation(header.width, header.height)} picture in ${simPalette(random)}: ${simScene(random)}`;
  return { format: header.format, width: header.width, height: header.height, description };
}

/**
 * The embedded image analyser: format and size from the header bytes, a description derived
 * from a hash of the bytes (the same image always reads the same), instant.
 */
export function createSimImageAnalysisBackend(): ImageAnalysisBackend {
  return {
    name: 'sim',
    analyse: (request) => Promise.resolve(request).then(analyse),
  };
}
