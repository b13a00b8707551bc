import type { ImageTier } from '../protocols/images.js';

/** The text an image must carry: exactly these lines, none at all, or whatever the prompt implies. */
export type ImageText = { mode: 'exact'; lines: string[] } | { mode: 'none' } | null;

/** One image to make, fully decided: exact pixels, encoding, text and the attempt it is. */
export interface ImageRenderRequest {
  prompt: string;
  negativePrompt: string | null;
  width: number;
  height: number;
  tier: ImageTier;
  seed: number;
  format: 'png' | 'jpeg' | 'webp';
  /** 0 to 100 (quality for JPEG and WebP, compression effort for PNG); null for the encoder's default. */
  compression: number | null;
  background: 'transparent' | 'opaque';
  text: ImageText;
  /** Reference images (edits, multi-reference generation), decoded-checked PNG/JPEG/WebP/GIF bytes. */
  references: Buffer[];
  /** Where the first reference may change (transparent pixels), or null for the whole image. */
  mask: Buffer | null;
  /** 0 for the first attempt, then 1, 2 … for repairs of a text policy. */
  attempt: number;
  /** What OCR read in the previous attempt, when this one repairs it. */
  repairOf: string | null;
  /** The request's `metadata.sim` (scripted behaviours of the sim; ignored by other backends). */
  script: Readonly<Record<string, unknown>> | null;
  signal: AbortSignal;
  /** W3C trace context for the upstream (`traceparent`), set while tracing is on; other engines ignore it. */
  traceHeaders?: Readonly<Record<string, string>>;
}

/** A finished image: encoded bytes of exactly the requested size and what the backend charged us. */
export interface GeneratedImage {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
  costMicros: number;
}

/**
 * Image generation and editing (sim, an OpenAI-compatible upstream). `costMicros` is the
 * backend's declared cost of one image, known before the call; `render` throws TerminalError or
 * RetryableError when the backend fails (nothing is charged then).
 */
export interface ImageBackend {
  readonly name: string;
  costMicros(image: { tier: ImageTier; width: number; height: number }): number;
  render(request: ImageRenderRequest): Promise<GeneratedImage>;
}
