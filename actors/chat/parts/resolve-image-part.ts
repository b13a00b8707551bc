import type { ImageFormat } from '../../../backends/image-header.js';
import { countTokens } from '../../../protocols/tokens.js';
import type { ContentPart } from '../../../protocols/chat.js';
import { loadMedia } from './load-media.js';
import { formatBytes } from './media-labels.js';
import type { ResolveContext, ResolvedPart } from './part-context.js';
import { callMediaBackend } from './part-errors.js';

type ImagePart = Extract<ContentPart, { type: 'image_url' }>;

const FORMAT_NAMES: Record<ImageFormat, string> = { png: 'PNG', jpeg: 'JPEG', gif: 'GIF', webp: 'WebP' };

/** An `image_url` part as text: `[image 640×480 PNG, 12.0 KB: <analysis>]`. */
export async function resolveImagePart(part: ImagePart, at: string, context: ResolveContext): Promise<ResolvedPart> {
  const ref = { label: `the image in ${at}`, param: `${at}.image_url.url` };
  const { options, signal } = context;
  const media = await loadMedia(part.image_url.url, { ...ref, kind: 'image', limits: options.fetch, signal });
  const detail = part.image_url.detail ?? 'auto';
  const analysis = await callMediaBackend(ref, () => options.images.analyse({ image: media.bytes, detail, signal }));
  const text = `[image ${analysis.width}×${analysis.height} ${FORMAT_NAMES[analysis.format]}, ${formatBytes(media.bytes.length)}: ${analysis.description}]`;
  return { text, generatedTokens: countTokens(text) };
}
