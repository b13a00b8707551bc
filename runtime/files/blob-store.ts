import { createHash, type Hash } from 'node:crypto';
import { createReadStream, mkdirSync, rmSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../../protocols/errors.js';
import { randomBase62 } from '../ids.js';

/** Writes are gathered to this size before they reach the disk: fewer syscalls per MiB. */
const WRITE_BATCH_BYTES = 256 * 1024;

/**
 * Content on disk under `<dataDir>/files`: stored files (`<shard>/<id>`), their extracted text
 * (`<shard>/<id>.txt`) and upload parts (`uploads/<upload_id>/<n>`). Every blob is written to
 * `tmp/` first and renamed into place after an fsync, so a reader or a crash never sees half a blob.
 */
export class BlobStore {
  readonly root: string;
  private readonly tmp: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, 'files');
    this.tmp = join(this.root, 'tmp');
  }

  /** Creates the directories and drops temporary files a crash left behind; at boot, before serving. */
  openSync(): void {
    rmSync(this.tmp, { recursive: true, force: true });
    mkdirSync(this.tmp, { recursive: true });
    mkdirSync(join(this.root, 'uploads'), { recursive: true });
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

  /** Deletes a stored file's content and text; missing ones are fine. */
  async removeFile(fileId: string): Promise<void> {
    await Promise.all([unlink(this.contentPath(fileId)).catch(ignoreMissing), unlink(this.textPath(fileId)).catch(ignoreMissing)]);
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

  constructor(readonly tmpPath: string, private readonly handle: FileHandle) {}

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

  /** The SHA-256 of everything written, hex; call once, after the last write. */
  digest(): string {
    return this.hash.digest('hex');
  }

  /** Flushes, fsyncs and renames the blob to `path` (replacing what was there). */
  async commit(path: string): Promise<void> {
    await this.flush();
    await this.handle.datasync().catch(storageError);
    await this.close();
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
  if (err.code === 'ENOSPC' || err.code === 'EDQUOT') throw new ApiError('insufficient_storage', 'The server is out of disk space; nothing was stored. Try again later.', { cause: err });
  throw err;
}
