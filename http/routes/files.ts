import { ApiError } from '../../protocols/errors.js';
import {
  FileDeletedObjectSchema,
  FileListObjectSchema,
  FileObjectSchema,
  FileSearchResultsObjectSchema,
  FileSearchSchema,
  ListFilesQuerySchema,
  MultipartFileFieldsSchema,
  UploadFileJsonSchema,
} from '../../protocols/files.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { fileContentHeaders, fileDeletedView, fileListView, fileSearchView, fileView } from '../views/file-view.js';

/** Stored files: upload (multipart or JSON base64), list, read, download, delete, search. */
export function fileRoutes({ files, config }: AppDeps): RouteDef[] {
  const accountIdOf = (ctx: RequestContext) => accountOf(ctx.principal).id;
  return [
    {
      method: 'GET',
      path: '/v1/files',
      auth: 'token',
      schema: { query: ListFilesQuerySchema, response: FileListObjectSchema },
      handler: (ctx) => json(fileListView(files.list(accountIdOf(ctx), ctx.query(ListFilesQuerySchema)))),
    },
    {
      // multipart/form-data is streamed to disk (the SDK's `files.create`); JSON carries base64 and
      // is bounded by SVC_FILE_JSON_MAX_BYTES, since JSON is parsed whole.
      method: 'POST',
      path: '/v1/files',
      auth: 'token',
      maxBodyBytes: config.SVC_FILE_JSON_MAX_BYTES,
      schema: {
        body: UploadFileJsonSchema,
        // The part's own filename names the file.
        form: {
          fields: MultipartFileFieldsSchema.omit({ filename: true }),
          files: { file: 'application/octet-stream' },
          requiredFiles: ['file'],
        },
        response: FileObjectSchema,
      },
      async handler(ctx) {
        const type = ctx.ex.headers['content-type'] ?? '';
        if (/^multipart\/form-data/i.test(type)) {
          return json(
            fileView(
              await files.uploadMultipart(accountIdOf(ctx), {
                contentType: type,
                pipeBody: (sink, limit) => ctx.ex.pipeBody(sink, limit),
              }),
            ),
          );
        }
        if (type === '' || /^application\/json/i.test(type))
          return json(fileView(await files.uploadBase64(accountIdOf(ctx), await ctx.json(UploadFileJsonSchema))));
        throw new ApiError(
          'unsupported_media_type',
          `Unsupported Content-Type "${type}": send multipart/form-data (a "file" part) or application/json (filename, file_data as base64).`,
        );
      },
    },
    {
      method: 'POST',
      path: '/v1/files/search',
      auth: 'token',
      schema: { body: FileSearchSchema, response: FileSearchResultsObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(FileSearchSchema);
        return json(fileSearchView(body.query, await files.search(accountIdOf(ctx), body)));
      },
    },
    {
      method: 'GET',
      path: '/v1/files/:file_id',
      auth: 'token',
      schema: { response: FileObjectSchema },
      handler: (ctx) => json(fileView(files.get(accountIdOf(ctx), ctx.params.file_id!))),
    },
    {
      method: 'DELETE',
      path: '/v1/files/:file_id',
      auth: 'token',
      schema: { response: FileDeletedObjectSchema },
      async handler(ctx) {
        await files.delete(accountIdOf(ctx), ctx.params.file_id!);
        return json(fileDeletedView(ctx.params.file_id!));
      },
    },
    {
      method: 'GET',
      path: '/v1/files/:file_id/content',
      auth: 'token',
      // The stored bytes under the content type they were uploaded with.
      schema: { media: ['application/octet-stream'] },
      async handler(ctx) {
        const { record, body } = files.content(accountIdOf(ctx), ctx.params.file_id!);
        await ctx.ex.sendSized(200, fileContentHeaders(record), body.size, body.chunks);
        return undefined;
      },
    },
  ];
}
