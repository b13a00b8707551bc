import { statfs, unlink } from 'node:fs/promises';
import { expectedPartBytes, missingParts, OPEN_UPLOAD_STATES, type UploadEvent, type UploadInput } from '../../actors/upload-machine.js';
import { ApiError } from '../../protocols/errors.js';
import { CreateUploadSchema, fileView, UPLOAD_PART_BYTES } from '../../protocols/files.js';
import { fieldError } from '../../protocols/validation.js';
import type { ActorRecord } from '../../runtime/actor-host.js';
import { newFileId } from '../../runtime/files/file-library.js';
import { newId } from '../../runtime/ids.js';
import { KeyedMutex } from '../../runtime/keyed-mutex.js';
import type { AppDeps } from '../app.js';
import { UPLOAD_MACHINE } from '../files/upload-runtime.js';
import { uploadOf, uploadView } from '../files/upload-view.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';

const noRetry = { 'x-should-retry': 'false' };

/** Resumable uploads (spec §2.13, §4.4): reserve, PUT 8 MiB parts, complete, or cancel. Each is an actor. */
export function fileUploadRoutes(deps: AppDeps): RouteDef[] {
  const { host, files, clock, config } = deps;
  // One part write-and-record at a time per upload and part, so the recorded checksum is the one on disk.
  const partLocks = new KeyedMutex();

  const load = (ctx: RequestContext): ActorRecord => {
    const id = ctx.params.upload_id!;
    const record = host.find(id, accountOf(ctx.principal).id);
    if (!record || record.machine !== UPLOAD_MACHINE) throw new ApiError('not_found', `No upload ${id}.`, { param: 'upload_id' });
    return record;
  };
  const fileOf = (record: ActorRecord) => {
    const { value, context } = uploadOf(record);
    const file = value === 'completed' ? files.repo.get(context.accountId, context.fileId) : undefined;
    return file ? fileView(file) : null;
  };
  const closed = (record: ActorRecord) => {
    const { value, context } = uploadOf(record);
    const hint = value === 'completed' ? `; it is file ${context.fileId}` : value === 'assembling' ? '; it is being assembled' : '';
    return new ApiError('upload_closed', `Upload ${record.id} is ${value}${hint}.`, { headers: noRetry });
  };
  const isOpen = (record: ActorRecord) => OPEN_UPLOAD_STATES.includes(uploadOf(record).value) && host.isLive(record.id);

  return [
    {
      method: 'POST',
      path: '/v1/files/uploads',
      auth: 'token',
      async handler(ctx) {
        const body = await ctx.json(CreateUploadSchema);
        const account = accountOf(ctx.principal);
        // Parts and the assembled file coexist until assembly ends: refuse what the disk cannot hold.
        const disk = await statfs(files.blobs.root);
        if (disk.bavail * disk.bsize < body.bytes * 2) throw new ApiError('insufficient_storage', `The server has no room for an upload of ${body.bytes} bytes now.`);
        const id = newId('upload');
        const input: UploadInput = { id, accountId: account.id, fileId: newFileId(), filename: body.filename, purpose: body.purpose, bytes: body.bytes, partBytes: UPLOAD_PART_BYTES, at: clock.now(), ttlMs: config.SVC_UPLOAD_TTL_S * 1000 };
        await host.spawn(UPLOAD_MACHINE, { id, ownerId: account.id, input });
        return json(uploadView(host.find(id, account.id)!, null));
      },
    },
    {
      method: 'GET',
      path: '/v1/files/uploads/:upload_id',
      auth: 'token',
      handler(ctx) {
        const record = load(ctx);
        return json(uploadView(record, fileOf(record)));
      },
    },
    {
      method: 'PUT',
      path: '/v1/files/uploads/:upload_id/parts/:part_number',
      auth: 'token',
      async handler(ctx) {
        const record = load(ctx);
        const { context } = uploadOf(record);
        const raw = ctx.params.part_number!;
        if (!/^\d{1,9}$/.test(raw)) throw fieldError(['path', 'part_number'], 'must be a non-negative integer', 'int_parsing');
        const n = Number(raw);
        if (n >= context.partCount) throw fieldError(['path', 'part_number'], `must be from 0 to ${context.partCount - 1} for an upload of ${context.bytes} bytes`, 'less_than');
        if (!isOpen(record)) throw closed(record);
        const type = ctx.ex.headers['content-type'] ?? '';
        if (/^(multipart\/|application\/json)/i.test(type)) throw new ApiError('unsupported_media_type', `A part is the raw bytes (application/octet-stream), not ${type}.`);
        const expected = expectedPartBytes(context, n);
        const declared = ctx.ex.headers['content-length'];
        if (declared !== undefined && Number(declared) !== expected) {
          throw fieldError(['header', 'content-length'], `part ${n} must be exactly ${expected} bytes; Content-Length is ${declared}`);
        }
        const writer = await files.blobs.writer();
        try {
          await ctx.ex.pipeBody((chunk) => {
            if (writer.bytes + chunk.length > expected) throw fieldError(['body'], `part ${n} must be exactly ${expected} bytes; more were sent`);
            return writer.write(chunk);
          }, Number.MAX_SAFE_INTEGER);
          if (writer.bytes !== expected) throw fieldError(['body'], `part ${n} must be exactly ${expected} bytes; ${writer.bytes} arrived`);
          const sha256 = writer.digest();
          const event: UploadEvent = { type: 'PART', n, bytes: expected, sha256, at: clock.now() };
          const path = files.blobs.partPath(record.id, n);
          const after = await partLocks.run(`${record.id}/${n}`, async () => {
            if (!host.accepts(record.id, event)) throw closed(host.find(record.id, record.ownerId) ?? record);
            await writer.commit(path);
            await host.send(record.id, event);
            const now = host.find(record.id, record.ownerId)!;
            // The upload closed while the part was being written: it must not leave bytes behind.
            if (uploadOf(now).context.parts[n]?.sha256 !== sha256) {
              await unlink(path).catch(() => undefined);
              throw closed(now);
            }
            return now;
          });
          const now = uploadOf(after).context;
          return json({ object: 'upload.part', upload_id: record.id, part_number: n, bytes: expected, sha256, received_parts: Object.keys(now.parts).length, missing_parts: missingParts(now).length });
        } catch (err) {
          await writer.abort();
          throw err;
        }
      },
    },
    {
      method: 'POST',
      path: '/v1/files/uploads/:upload_id/complete',
      auth: 'token',
      async handler(ctx) {
        let record = load(ctx);
        const { value, context } = uploadOf(record);
        if (value !== 'completed' && value !== 'assembling') {
          if (!isOpen(record)) throw closed(record);
          const missing = missingParts(context);
          if (missing.length > 0) {
            const shown = missing.length > 20 ? `${missing.slice(0, 20).join(', ')} … (${missing.length} in all)` : missing.join(', ');
            throw new ApiError('upload_incomplete', `Upload ${record.id} is missing parts ${shown}.`, { param: 'missing_parts', headers: noRetry });
          }
          await host.send(record.id, { type: 'COMPLETE', at: clock.now() });
        }
        await host.waitFor(record.id, (snapshot) => snapshot.value !== 'assembling');
        record = host.find(record.id, record.ownerId)!;
        const after = uploadOf(record);
        if (after.value === 'completed') {
          const file = fileOf(record);
          if (!file) throw new ApiError('not_found', `Upload ${record.id} became file ${after.context.fileId}, which has since been deleted.`, { param: 'upload_id' });
          return json({ ...file, upload_id: record.id });
        }
        const failure = after.context.lastError;
        if (failure?.code === 'parts_missing') throw new ApiError('upload_incomplete', failure.message, { param: 'missing_parts', headers: noRetry });
        if (failure?.code === 'insufficient_storage') throw new ApiError('insufficient_storage', failure.message);
        if (failure) throw new Error(`assembly of ${record.id} failed: ${failure.message}`);
        throw closed(record);
      },
    },
    {
      method: 'DELETE',
      path: '/v1/files/uploads/:upload_id',
      auth: 'token',
      async handler(ctx) {
        let record = load(ctx);
        const { value } = uploadOf(record);
        if (value === 'completed' || value === 'assembling') throw closed(record);
        // A completion may get in between: the cancel is then ignored while it assembles. Wait until the
        // upload has finished (cancelled, expired or completed) or is open again after a failed assembly,
        // and cancel again in that case; never wait on a state that does not end by itself.
        while (host.isLive(record.id)) {
          if (isOpen(record)) await host.send(record.id, { type: 'CANCEL', at: clock.now() });
          await host.waitFor(record.id, (snapshot) => OPEN_UPLOAD_STATES.includes(snapshot.value as string));
          record = host.find(record.id, record.ownerId)!;
        }
        // A completion that got in first wins: nothing was cancelled, so answer as for any completed upload.
        if (uploadOf(record).value === 'completed') throw closed(record);
        return json(uploadView(record, null));
      },
    },
  ];
}
