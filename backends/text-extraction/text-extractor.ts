import type { ExtractionKind } from '../../protocols/content-type.js';

/**
 * What extraction made of a file: its text (`truncated` when the file or its text passed the
 * extractor's caps; `pages` for PDFs), `unsupported` for a type or size the extractor does not
 * take, `failed` for a file it takes but could not read (corrupt, encrypted, timed out).
 */
export type ExtractionResult =
  | { status: 'extracted'; kind: ExtractionKind; text: string; truncated: boolean; pages?: number }
  | { status: 'unsupported'; reason: string }
  | { status: 'failed'; reason: string };

/** One stored file to extract text from. */
export interface ExtractionInput {
  /** The file, already complete on disk. */
  path: string;
  filename: string;
  /** As contentTypeOf gave it (a `charset` parameter is honoured for text without a byte-order mark). */
  contentType: string;
  bytes: number;
}

/** Text extraction for stored files, run when a file is saved. Never throws for a bad file: it answers `failed`. */
export interface TextExtractor {
  /** Extracts text from the file at `path` (already on disk), bounded by the extractor's limits. */
  extract(input: ExtractionInput): Promise<ExtractionResult>;
  /** Stops any worker; extractions still queued or running answer `failed`. */
  close(): Promise<void>;
}
