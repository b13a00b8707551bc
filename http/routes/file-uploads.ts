import type { PartBody } from '../../actors/uploads/part-receiver.js';
import {
  CompletedUploadObjectSchema,
  CreateUploadSchema,
  UploadObjectSchema,
  UploadPartObjectSchema,
} from '../../protocols/files.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { completedUploadView, uploadPartView, uploadView } from '../views/upload-view.js';

/** Resumable uploads (spec §2.13, §4.4): reserve, PUT 8 MiB parts, complete, or cancel. */
export function fileUploadRoutes({ uploads }: AppDeps): RouteDef[] {
  const accountIdOf = (ctx: RequestContext) => accountOf(ctx.principal).id;
  return [
    {
      method: 'POST',
      path: '/v1/files/uploads',
      auth: 'token',
      schema: { body: CreateUploadSchema, response: UploadObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(CreateUploadSchema);
        return json(uploadView(await uploads.reserve(accountIdOf(ctx), body)));
      },
    },
    {
      method: 'GET',
      path: '/v1/files/uploads/:upload_id',
      auth: 'token',
      schema: { response: UploadObjectSchema },
      handler: (ctx) => json(uploadView(uploads.status(accountIdOf(ctx), ctx.params.upload_id!))),
    },
    {
      method: 'PUT',
      path: '/v1/files/uploads/:upload_id/parts/:part_number',
      auth: 'token',
      schema: { rawBody: 'application/octet-stream', response: UploadPartObjectSchema },
      async handler(ctx) {
        const { headers } = ctx.ex;
        const body: PartBody = {
          contentType: headers['content-type'],
          contentLength: headers['content-length'],
          pipeBody: (sink, limit) => ctx.ex.pipeBody(sink, limit),
        };
        return json(
          uploadPartView(
            await uploads.receivePart(accountIdOf(ctx), ctx.params.upload_id!, ctx.params.part_number!, body),
          ),
        );
      },
    },
    {
      method: 'POST',
      path: '/v1/files/uploads/:upload_id/complete',
      auth: 'token',
      schema: { response: CompletedUploadObjectSchema },
      handler: async (ctx) =>
        json(completedUploadView(await uploads.complete(accountIdOf(ctx), ctx.params.upload_id!))),
    },
    {
      method: 'DELETE',
      path: '/v1/files/uploads/:upload_id',
      auth: 'token',
      schema: { response: UploadObjectSchema },
      handler: async (ctx) => json(uploadView(await uploads.cancel(accountIdOf(ctx), ctx.params.upload_id!))),
    },
  ];
}
