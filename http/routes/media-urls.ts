import { z } from 'zod';
import type { Config } from '../../runtime/config.js';
import type { AppDeps } from '../app-deps.js';
import type { RequestContext, RouteDef } from '../route.js';
import type { UrlSigner } from '../views/video-view.js';

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
};
/** A Host header that can go into a URL as it is. */
const HOST = /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/;

/**
 * Where media URLs point: `SVC_PUBLIC_URL` when set (a proxy or CDN in front), else the scheme
 * this server speaks and the Host the client used, else the listen address.
 */
export function publicBase(ctx: RequestContext, config: Config): string {
  if (config.SVC_PUBLIC_URL) return config.SVC_PUBLIC_URL.replace(/\/+$/, '');
  const scheme = config.SVC_TLS_CERT_FILE ? 'https' : 'http';
  const host = ctx.ex.headers.host;
  return host && HOST.test(host) ? `${scheme}://${host}` : `${scheme}://${config.HOST}:${config.PORT}`;
}

/** Signs media URLs for one response: valid for `SVC_MEDIA_URL_TTL_S` from now. */
export function mediaSigner(
  ctx: RequestContext,
  { config, clock, mediaLinks }: Pick<AppDeps, 'config' | 'clock' | 'mediaLinks'>,
): UrlSigner {
  const base = publicBase(ctx, config);
  return (mediaId) => {
    const expiresAt = clock.now() + config.SVC_MEDIA_URL_TTL_S * 1000;
    return { url: mediaLinks.url(base, mediaId, expiresAt), expiresAt };
  };
}

/** The signature of a media URL, as `mediaLinks.url` wrote it (checked by the feature, not here). */
const MediaUrlQuerySchema = z.object({ expires: z.string(), signature: z.string() });

/** GET /v1/media/{media_id}: generated images and clips behind signed, expiring URLs; no token needed. */
export function mediaUrlRoutes({ mediaLinks }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/media/:media_id',
      auth: 'public',
      schema: { query: MediaUrlQuerySchema, media: Object.keys(EXTENSIONS) },
      async handler(ctx) {
        const id = ctx.params.media_id!;
        const { record, size, chunks } = await mediaLinks.open(
          id,
          ctx.ex.query.get('expires') ?? undefined,
          ctx.ex.query.get('signature') ?? undefined,
        );
        const headers = {
          'content-type': record.contentType,
          'cache-control': 'private, max-age=300',
          'content-disposition': `inline; filename="${record.id}.${EXTENSIONS[record.contentType] ?? 'bin'}"`,
        };
        await ctx.ex.sendSized(200, headers, size, chunks);
        return undefined;
      },
    },
  ];
}
