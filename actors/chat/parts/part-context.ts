import type { FileTextSource } from '../../../backends/file-text-source.js';
import { noFileTextSource } from '../../../backends/file-text-source.js';
import type { ImageAnalysisBackend } from '../../../backends/image-analysis.js';
import type { TranscriptionBackend } from '../../../backends/transcription.js';
import type { VideoAnalysisBackend } from '../../../backends/video-analysis.js';
import type { Config } from '../../../runtime/config.js';
import type { RemoteFetchLimits } from './fetch-remote.js';

/** The analysers, file source and fetch limits part resolution uses; built once per server. */
export interface PartResolverOptions {
  images: ImageAnalysisBackend;
  transcription: TranscriptionBackend;
  video: VideoAnalysisBackend;
  files: FileTextSource;
  fetch: RemoteFetchLimits;
}

/** Where part resolution runs: whose files may be read, when to give up, and with what. */
export interface ResolveContext {
  accountId: string;
  signal: AbortSignal;
  options: PartResolverOptions;
}

/** One non-text part turned into text, and the tokens of that text the service generated. */
export interface ResolvedPart {
  text: string;
  generatedTokens: number;
}

/** The options from configuration and the analysers the composition root chose; no stored files unless given. */
export function createPartResolverOptions(
  config: Config,
  analysis: Pick<PartResolverOptions, 'images' | 'transcription' | 'video'>,
  overrides: Partial<PartResolverOptions> = {},
): PartResolverOptions {
  return {
    ...analysis,
    files: noFileTextSource,
    fetch: {
      maxBytes: config.SVC_FETCH_MAX_BYTES,
      timeoutMs: config.SVC_FETCH_TIMEOUT_MS,
      allowPrivate: config.SVC_FETCH_ALLOW_PRIVATE,
    },
    ...overrides,
  };
}
