/** One word OCR read, with the engine's confidence (0 to 100). */
export interface OcrWord {
  text: string;
  confidence: number;
}

/** What OCR read in an image: its lines of words, in reading order. */
export interface OcrReading {
  lines: OcrWord[][];
}

/**
 * How the image is prepared for one OCR pass: `dark_ink` keeps only near-black pixels (dark text
 * on any background, the surest pass), `as_is` reads the grey image, `light_ink` keeps only
 * near-white pixels, inverted (light text on dark ground). Engines miss text that another pass
 * reads, so a text policy reads up to all three.
 */
export const OCR_PASSES = ['dark_ink', 'as_is', 'light_ink'] as const;

/** One OCR pass. */
export type OcrPass = (typeof OCR_PASSES)[number];

/**
 * Optical character recognition (tesseract where installed). `read` takes PNG, JPEG or WebP
 * bytes; it throws TerminalError when the engine fails on them and RetryableError when it could
 * not run.
 */
export interface OcrBackend {
  readonly name: string;
  read(image: Buffer, options: { pass: OcrPass; signal?: AbortSignal }): Promise<OcrReading>;
}
