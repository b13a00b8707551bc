import { receiveForm } from '../../actors/images/form-intake.js';
import { IMAGE_FORM_LIMITS, type ImageCaller } from '../../actors/images/image-service.js';
import { ApiError, quoted } from '../../protocols/errors.js';
import { ImageEditJsonSchema, ImageGenerationRequestSchema, ImagesResponseSchema } from '../../protocols/images.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { imagesResponseView } from '../views/image-view.js';
import { publicBase } from './media-urls.js';

/** The media types an image part may have. */
const IMAGE_PART = 'image/png, image/jpeg, image/webp';

/** Images (spec §2.6, §4.3): generations and edits, JSON or the SDK's multipart. */
export function imageRoutes({ images, mediaLinks, config }: AppDeps): RouteDef[] {
  const caller = (ctx: RequestContext): ImageCaller => ({
    accountId: accountOf(ctx.principal).id,
    tokenId: ctx.principal.token?.id ?? null,
    requestId: ctx.ex.requestId,
    signal: ctx.ex.signal,
  });
  const urlOf = (ctx: RequestContext) => {
    const base = publicBase(ctx, config);
    return (mediaId: string, expiresAt: number) => mediaLinks.url(base, mediaId, expiresAt);
  };
  return [
    {
      method: 'POST',
      path: '/v1/images/generations',
      auth: 'token',
      schema: { body: ImageGenerationRequestSchema, response: ImagesResponseSchema },
      maxBodyBytes: IMAGE_FORM_LIMITS.maxBytes,
      async handler(ctx) {
        const request = await ctx.json(ImageGenerationRequestSchema);
        return json(imagesResponseView(await images.generate(caller(ctx), request), urlOf(ctx)));
      },
    },
    {
      // The SDK's `images.edit` sends multipart (`image` / `image[]`, `mask`, fields); JSON takes
      // `input_references` (file ids or image URLs). The whole body is read before any answer.
      method: 'POST',
      path: '/v1/images/edits',
      auth: 'token',
      schema: {
        body: ImageEditJsonSchema,
        form: {
          fields: ImageGenerationRequestSchema,
          files: { image: IMAGE_PART, 'image[]': IMAGE_PART, mask: IMAGE_PART },
        },
        response: ImagesResponseSchema,
      },
      maxBodyBytes: IMAGE_FORM_LIMITS.maxBytes,
      async handler(ctx) {
        const type = ctx.ex.headers['content-type'] ?? '';
        if (/^multipart\/form-data/i.test(type)) {
          const form = await receiveForm(
            { contentType: type, pipeBody: (sink, limit) => ctx.ex.pipeBody(sink, limit) },
            IMAGE_FORM_LIMITS,
          );
          return json(imagesResponseView(await images.editForm(caller(ctx), form), urlOf(ctx)));
        }
        if (type === '' || /^application\/json/i.test(type))
          return json(
            imagesResponseView(await images.editJson(caller(ctx), await ctx.json(ImageEditJsonSchema)), urlOf(ctx)),
          );
        await ctx.ex.readBody(IMAGE_FORM_LIMITS.maxBytes).catch(() => undefined);
        throw new ApiError(
          'unsupported_media_type',
          `Unsupported Content-Type "${quoted(type)}": send multipart/form-data (image parts) or application/json (input_references).`,
        );
      },
    },
  ];
}
