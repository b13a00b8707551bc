import { countTokens } from '../../../protocols/tokens.js';
import type { VideoAnalysis } from '../../../backends/video-analysis.js';
import type { ContentPart } from '../../../protocols/chat.js';
import { ApiError } from '../../../protocols/errors.js';
import { decodeInlineMedia, loadMedia } from './load-media.js';
import { formatBytes, formatSeconds } from './media-labels.js';
import type { ResolveContext, ResolvedPart } from './part-context.js';
import { callMediaBackend, partError, type PartRef } from './part-errors.js';

type VideoPart = Extract<ContentPart, { type: 'input_video' }>;

async function videoBytes(
  part: VideoPart,
  at: string,
  context: ResolveContext,
): Promise<{ bytes: Buffer; ref: PartRef }> {
  const { url, file_id: fileId, data } = part.input_video;
  const given = [url, fileId, data].filter((value) => value !== undefined).length;
  if (given !== 1)
    throw partError(
      { label: `the video in ${at}`, param: `${at}.input_video` },
      `The video in ${at} needs exactly one of url, file_id or data.`,
    );
  // Stored videos come with the files feature; until then no file id exists, and absent looks like foreign.
  if (fileId !== undefined)
    throw new ApiError('not_found', `No file ${fileId}.`, { param: `${at}.input_video.file_id` });
  const { options, signal } = context;
  const source = url ?? data!;
  const ref = { label: `the video in ${at}`, param: `${at}.input_video.${url !== undefined ? 'url' : 'data'}` };
  if (url !== undefined || /^data:/i.test(source))
    return { bytes: (await loadMedia(source, { ...ref, kind: 'video', limits: options.fetch, signal })).bytes, ref };
  return { bytes: decodeInlineMedia(source, ref, options.fetch.maxBytes), ref };
}

function describe(analysis: VideoAnalysis, bytes: number): string {
  const size = analysis.width && analysis.height ? ` ${analysis.width}×${analysis.height}` : '';
  const duration = `${analysis.durationEstimated ? '~' : ''}${formatSeconds(analysis.durationSeconds)}`;
  const frames = analysis.frames.map((frame) => `${formatSeconds(frame.atSeconds)}: ${frame.description}`).join('; ');
  return `[video ${analysis.container.toUpperCase()}${size}, ${duration}, ${formatBytes(bytes)}: frames ${frames}; speech: ${analysis.transcript || '(none)'}]`;
}

/** An `input_video` part as text: `[video MP4 1280×720, 12.0 s, 2.1 MB: frames 0.0 s: …; speech: …]`. */
export async function resolveVideoPart(part: VideoPart, at: string, context: ResolveContext): Promise<ResolvedPart> {
  const { bytes, ref } = await videoBytes(part, at, context);
  const analysis = await callMediaBackend(ref, () =>
    context.options.video.analyse({ video: bytes, signal: context.signal }),
  );
  const text = describe(analysis, bytes.length);
  return { text, generatedTokens: countTokens(text) };
}
