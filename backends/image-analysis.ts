import type { ImageFormat } from './image-header.js';

/** One image to describe. */
export interface ImageAnalysisRequest {
  image: Buffer;
  /** The caller's `image_url.detail`; `low` may analyse a downscaled copy. */
  detail: 'auto' | 'low' | 'high';
  signal: AbortSignal;
}

/** What the analyser saw: the image's format and size, and a description a chat model can read. */
export interface ImageAnalysis {
  format: ImageFormat;
  width: number;
  height: number;
  description: string;
}

/**
 * Image analysis (sim, a vision upstream, …). Throws UnreadableMediaError for bytes that are no
 * recognised image, TerminalError or RetryableError when the analyser itself fails.
 */
export interface ImageAnalysisBackend {
  readonly name: string;
  analyse(request: ImageAnalysisRequest): Promise<ImageAnalysis>;
}
