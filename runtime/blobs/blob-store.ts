import { createHash, type Hash } from 'node:crypto';
import { createReadStream, mkdirSync, rmSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, statfs, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../../protocols/errors.js';
import { randomBase62 } from '../ids.js';

/** Writes are gathered to this size before they reach the disk: fewer syscalls per MiB. */
const WRITE_BATCH_BYTES = 256 * 1024;

/**
 * Content on disk under `<dataDir>/files`: stored files (`<shard>/<id>`), their extracted text
 * (`<shard>/<id>.txt`) and upload parts (`uploads/<upload_id>/<n>`), and generated media under
 * `<dataDir>/media/<shard>/<id>`. Every blob is written to
 * `tmp/` first and renamed into place after an fsync, so a reader or a crash never sees half a blob.
 */
export class BlobStore {
  readonly root: string;
  private readonly tmp: string;
  /** Generated media (images behind signed URLs, video job outputs): `<dataDir>/media/<shard>/<id>`. */
  private readonly mediaRoot: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, 'files');
    this.tmp = join(this.root, 'tmp');
    this.mediaRoot = join(dataDir, 'media');
  }

  /** Creates the directories and drops temporary files a crash left behind; at boot, before serving. */
  openSync(): void {
    rmSync(this.tmp, { recursive: true, force: true });
    mkdirSync(this.tmp, { recursive: true });
    mkdirSync(join(this.root, 'uploads'), { recursive: true });
    mkdirSync(this.mediaRoot, { recursive: true });
  }

  /** Where a stored file's bytes live. */
  contentPath(fileId: string): string {
    return join(this.root, shardOf(fileId), fileId);
  }

  /** Where a stored file's extracted text lives. */
  textPath(fileId: string): string {
    return `${this.contentPath(fileId)}.txt`;
  }

  /** The directory of one resumable upload's parts. */
  uploadDir(uploadId: string): string {
    return join(this.root, 'uploads', uploadId);
  }

  /** Bytes the disk under the blobs can still take (for refusing what would not fit). */
  async freeBytes(): Promise<number> {
    const disk = await statfs(this.root);
    return disk.bavail * disk.bsize;
  }

  /** Deletes part `n` of an upload, if it is there. */
  async removePart(uploadId: string, n: number): Promise<void> {
    await unlink(this.partPath(uploadId, n)).catch(() => undefined);
  }

  /** Where part `n` of an upload lives once received. */
  partPath(uploadId: string, n: number): string {
    return join(this.uploadDir(uploadId), String(n));
  }

  /** Starts writing a new blob in `tmp/`; commit it to its final path or abort it. */
  async writer(): Promise<BlobWriter> {
    const path = join(this.tmp, randomBase62(16));
    return new BlobWriter(path, await open(path, 'wx'));
  }

  /** Writes a whole small blob (extracted text) atomically to `path`. */
  async writeWhole(path: string, data: string | Buffer): Promise<void> {
    const writer = await this.writer();
    try {
      await writer.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      await writer.commit(path);
    } catch (err) {
      await writer.abort();
      throw err;
    }
  }

  /** Reads `path` in chunks (for streaming a download). */
  read(path: string): AsyncIterable<Buffer> {
    return createReadStream(path, { highWaterMark: 256 * 1024 });
  }

  /** A stored file's bytes in 256 KiB chunks, for streaming a download. */
  readContent(fileId: string): AsyncIterable<Buffer> {
    return this.read(this.contentPath(fileId));
  }

  /** The first `bytes` of a stored file (fewer when it is shorter), for sniffing its type. */
  async readContentHead(fileId: string, bytes: number): Promise<Buffer> {
    const handle = await open(this.contentPath(fileId), 'r');
    try {
      const head = Buffer.alloc(bytes);
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      return head.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  /** A stored file's extracted text; rejects when there is none on disk. */
  readText(fileId: string): Promise<string> {
    return readFile(this.textPath(fileId), 'utf8');
  }

  /** The size of part `n` of an upload on disk, or null when it is not there. */
  async partSize(uploadId: string, n: number): Promise<number | null> {
    const info = await stat(this.partPath(uploadId, n)).catch(() => null);
    return info ? info.size : null;
  }

  /** Part `n` of an upload in 1 MiB chunks, for assembly. */
  readPart(uploadId: string, n: number): AsyncIterable<Buffer> {
    return createReadStream(this.partPath(uploadId, n), { highWaterMark: 1024 * 1024 });
  }

  /** Deletes a stored file's content and text; missing ones are fine. */
  async removeFile(fileId: string): Promise<void> {
    await Promise.all([
      unlink(this.contentPath(fileId)).catch(ignoreMissing),
      unlink(this.textPath(fileId)).catch(ignoreMissing),
    ]);
  }

  /** Deletes an upload's parts. */
  async removeUpload(uploadId: string): Promise<void> {
    await rm(this.uploadDir(uploadId), { recursive: true, force: true });
  }

  /** Ids of stored files on disk (content, not text) last written before `before`, for the orphan sweep. */
  async *storedIds(before: number): AsyncIterable<string> {
    for (const shard of await readdir(this.root)) {
      if (shard.length !== 2) continue;
      for (const name of await readdir(join(this.root, shard))) {
        if (name.endsWith('.txt')) continue;
        const info = await stat(join(this.root, shard, name)).catch(() => null);
        if (info && info.mtimeMs < before) yield name;
      }
    }
  }

  /** Where a media blob lives. */
  mediaPath(mediaId: string): string {
    return join(this.mediaRoot, shardOf(mediaId), mediaId);
  }

  /** Writes a media blob atomically (fsync, rename), replacing what was there: a step run again writes it again. */
  writeMedia(mediaId: string, data: Buffer): Promise<void> {
    return this.writeWhole(this.mediaPath(mediaId), data);
  }

  /** A media blob's size, or null when it is not on disk. */
  async mediaSize(mediaId: string): Promise<number | null> {
    const info = await stat(this.mediaPath(mediaId)).catch(() => null);
    return info ? info.size : null;
  }

  /** A media blob in 256 KiB chunks, for streaming a download. */
  readMedia(mediaId: string): AsyncIterable<Buffer> {
    return this.read(this.mediaPath(mediaId));
  }

  /** Deletes a media blob; a missing one is fine. */
  async removeMedia(mediaId: string): Promise<void> {
    await unlink(this.mediaPath(mediaId)).catch(ignoreMissing);
  }

  /** Ids of uploads with parts on disk. */
  async uploadIds(): Promise<string[]> {
    return readdir(join(this.root, 'uploads'));
  }
}

/**
 * One blob being written: bytes are hashed (SHA-256) and counted as they pass, gathered into
 * large writes, and fsynced before the atomic rename that makes them visible.
 */
export class BlobWriter {
  bytes = 0;
  private readonly hash: Hash = createHash('sha256');
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private closed = false;

  constructor(
    readonly tmpPath: string,
    private readonly handle: FileHandle,
  ) {}

  /** Appends `chunk`; the returned promise settles when it may be reused and the disk has caught up. */
  async write(chunk: Buffer): Promise<void> {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    if (this.batchBytes >= WRITE_BATCH_BYTES) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.batchBytes === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    await this.handle.writev(batch).catch(storageError);
  }

  /**
   * Writes out what is gathered (no fsync) and returns the temporary path, so a reader on this
   * machine (a decoder) can open the blob before it is committed or aborted.
   */
  async readablePath(): Promise<string> {
    await this.flush();
    return this.tmpPath;
  }

  /** The SHA-256 of everything written, hex; call once, after the last write. */
  digest(): string {
    return this.hash.digest('hex');
  }

  /** Flushes and fsyncs the blob, so a later {@link commit} only renames it (idempotent). */
  async sync(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    await this.handle.datasync().catch(storageError);
    await this.close();
  }

  /** Flushes, fsyncs (unless {@link sync} did) and renames the blob to `path` (replacing what was there). */
  async commit(path: string): Promise<void> {
    await this.sync();
    await mkdir(join(path, '..'), { recursive: true });
    await rename(this.tmpPath, path);
  }

  /** Discards the blob. */
  async abort(): Promise<void> {
    await this.close();
    await unlink(this.tmpPath).catch(ignoreMissing);
  }

  private async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/** Two characters of the random part of an id: 3,844 directories, none huge. */
function shardOf(id: string): string {
  return id.slice(-2);
}

function ignoreMissing(err: NodeJS.ErrnoException): void {
  if (err.code !== 'ENOENT') throw err;
}

/** A full disk is the operator's problem, said plainly; anything else is a bug. */
function storageError(err: NodeJS.ErrnoException): never {
  if (err.code === 'ENOSPC' || err.code === 'EDQUOT')
    throw new ApiError(
      'insufficient_storage',
      'The server is out of disk space; nothing was stored. Try again later.',
      { cause: err },
    );
  throw err;
}
