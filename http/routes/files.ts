import { ApiError } from '../../protocols/errors.js';
import { fileView, FileSearchSchema, FilenameSchema, FilePurposeSchema, ListFilesQuerySchema, stripDataUrl, UploadFileJsonSchema } from '../../protocols/files.js';
import { fieldError, parseOrThrow } from '../../protocols/validation.js';
import type { FileRecord } from '../../runtime/files/file-repo.js';
import type { AppDeps } from '../app.js';
import { receiveMultipartFile } from '../files/receive-multipart.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { z } from 'zod';

const MultipartFieldsSchema = z.looseObject({ filename: FilenameSchema, purpose: FilePurposeSchema.default('assistants') });

/** Stored files: upload (multipart or JSON base64), list, read, download, delete, search. */
export function fileRoutes(deps: AppDeps): RouteDef[] {
  const { files, config } = deps;

  const load = (ctx: RequestContext): FileRecord => {
    const id = ctx.params.file_id!;
    const record = files.repo.get(accountOf(ctx.principal).id, id);
    if (!record) throw new ApiError('not_found', `No file ${id}.`, { param: 'file_id' });
    return record;
  };

  /** multipart/form-data, streamed to disk; the SDK's `files.create` sends this. */
  const createFromForm = async (ctx: RequestContext): Promise<FileRecord> => {
    const form = await receiveMultipartFile(ctx.ex, files.blobs, config.SVC_FILE_MAX_BYTES);
    try {
      if (form.writer.bytes === 0) throw fieldError(['body', 'file'], 'the file is empty');
      const fields = parseOrThrow(MultipartFieldsSchema, { ...form.fields, filename: form.filename });
      return await files.save({ accountId: accountOf(ctx.principal).id, filename: fields.filename, purpose: fields.purpose, writer: form.writer });
    } catch (err) {
      await form.writer.abort();
      throw err;
    }
  };

  /** JSON with the bytes as base64 (spec §2.13); bounded by SVC_FILE_JSON_MAX_BYTES since JSON is parsed whole. */
  const createFromJson = async (ctx: RequestContext): Promise<FileRecord> => {
    const body = await ctx.json(UploadFileJsonSchema);
    const bytes = Buffer.from(stripDataUrl(body.file_data), 'base64');
    if (bytes.length === 0) throw fieldError(['body', 'file_data'], 'the file is empty');
    const writer = await files.blobs.writer();
    try {
      await writer.write(bytes);
      return await files.save({ accountId: accountOf(ctx.principal).id, filename: body.filename, purpose: body.purpose, writer });
    } catch (err) {
      await writer.abort();
      throw err;
    }
  };

  return [
    {
      method: 'GET',
      path: '/v1/files',
      auth: 'token',
      handler(ctx) {
        const query = ctx.query(ListFilesQuerySchema);
        const page = files.repo.list(accountOf(ctx.principal).id, { limit: query.limit, order: query.order, ...(query.after !== undefined && { after: query.after }), ...(query.purpose !== undefined && { purpose: query.purpose }) });
        if (!page) throw new ApiError('not_found', `No file ${query.after} to list after.`, { param: 'after' });
        const data = page.records.map(fileView);
        return json({ object: 'list', data, first_id: page.records[0]?.id ?? null, last_id: page.records.at(-1)?.id ?? null, has_more: page.hasMore });
      },
    },
    {
      method: 'POST',
      path: '/v1/files',
      auth: 'token',
      maxBodyBytes: config.SVC_FILE_JSON_MAX_BYTES,
      async handler(ctx) {
        const type = ctx.ex.headers['content-type'] ?? '';
        let record: FileRecord;
        if (/^multipart\/form-data/i.test(type)) record = await createFromForm(ctx);
        else if (type === '' || /^application\/json/i.test(type)) record = await createFromJson(ctx);
        else throw new ApiError('unsupported_media_type', `Unsupported Content-Type "${type}": send multipart/form-data (a "file" part) or application/json (filename, file_data as base64).`);
        return json(fileView(record));
      },
    },
    {
      method: 'POST',
      path: '/v1/files/search',
      auth: 'token',
      async handler(ctx) {
        const body = await ctx.json(FileSearchSchema);
        const accountId = accountOf(ctx.principal).id;
        if (body.file_id !== null && !files.repo.get(accountId, body.file_id)) throw new ApiError('not_found', `No file ${body.file_id}.`, { param: 'file_id' });
        const hits = await files.search(accountId, body.query, { fileId: body.file_id, maxHits: body.max_hits });
        return json({
          object: 'list',
          query: body.query,
          data: hits.map((hit) => ({
            object: 'file.search_hit',
            file_id: hit.fileId,
            filename: hit.filename,
            score: Math.round(hit.score * 1e4) / 1e4,
            snippet: hit.snippet,
            matches: hit.matches,
            start: hit.start,
            end: hit.end,
          })),
        });
      },
    },
    {
      method: 'GET',
      path: '/v1/files/:file_id',
      auth: 'token',
      handler: (ctx) => json(fileView(load(ctx))),
    },
    {
      method: 'DELETE',
      path: '/v1/files/:file_id',
      auth: 'token',
      async handler(ctx) {
        const id = ctx.params.file_id!;
        if (!(await files.remove(accountOf(ctx.principal).id, id))) throw new ApiError('not_found', `No file ${id}.`, { param: 'file_id' });
        return json({ id, object: 'file', deleted: true });
      },
    },
    {
      method: 'GET',
      path: '/v1/files/:file_id/content',
      auth: 'token',
      async handler(ctx) {
        const record = load(ctx);
        const disposition = `attachment; filename*=UTF-8''${encodeURIComponent(record.filename)}`;
        await ctx.ex.sendSized(200, { 'content-type': record.contentType, 'content-disposition': disposition, 'x-content-type-options': 'nosniff', 'x-content-sha256': record.sha256 }, record.bytes, files.blobs.read(files.blobs.contentPath(record.id)));
        return undefined;
      },
    },
  ];
}
