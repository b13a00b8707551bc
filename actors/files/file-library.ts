import PQueue from 'p-queue';
import type { ExtractedFileText, FileTextSource } from '../../backends/file-text-source.js';
import type { TextExtractor } from '../../backends/text-extraction/text-extractor.js';
import type { Clock } from '../../runtime/clock.js';
import { randomBase62 } from '../../runtime/ids.js';
import type { Logger } from '../../runtime/logger.js';
import type { Store } from '../../runtime/store/store.js';
import type { BlobStore, BlobWriter } from '../../runtime/blobs/blob-store.js';
import { openingSnippet, snippets } from '../../runtime/search/snippets.js';
import { parseQuery } from '../../runtime/search/text-tokens.js';
import { contentTypeOf } from '../../protocols/content-type.js';
import { FileRepo, type Extraction, type FileRecord } from './file-repo.js';
import { SearchIndex } from './search-index.js';

/** A new file id in OpenAI's shape: `file-` and 24 base62 characters. */
export function newFileId(): string {
  return `file-${randomBase62(24)}`;
}

/** One search hit: a passage of a file around a match. */
export interface FileSearchHit {
  fileId: string;
  filename: string;
  score: number;
  snippet: string;
  /** Where the passage starts and ends in the file's extracted text (UTF-16 offsets). */
  start: number;
  end: number;
  /** The matched words, as offsets into `snippet`. */
  matches: { start: number; end: number }[];
}

/** Passages shown per file before the next file gets a turn. */
const SNIPPETS_PER_FILE = 3;
/** Characters of a file's opening shown when its match lies past the snippet scan. */
const OPENING_CHARS = 160;

/**
 * The account's stored files: bytes on disk, metadata and the search index in LMDB. Saving
 * extracts text first and then commits metadata and index in one transaction, so a file is
 * either fully there (listed, readable, searchable) or not at all.
 */
export class FileLibrary implements FileTextSource {
  readonly repo: FileRepo;
  private readonly index: SearchIndex;
  /** Extractions at once: each reads up to SVC_EXTRACT_MAX_SOURCE_BYTES and builds its text in memory. */
  private readonly extractions = new PQueue({ concurrency: 2 });

  constructor(
    private readonly store: Store,
    readonly blobs: BlobStore,
    private readonly extractor: TextExtractor,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.repo = new FileRepo(store);
    this.index = new SearchIndex(store);
  }

  /**
   * Stores what `writer` holds as a file of `accountId`: moves the bytes into place, extracts and
   * indexes the text, and commits the metadata. With `fileId` (a resumed assembly) it is idempotent.
   */
  async save(input: {
    accountId: string;
    filename: string;
    purpose: string;
    writer: BlobWriter;
    fileId?: string;
  }): Promise<FileRecord> {
    const id = input.fileId ?? newFileId();
    const sha256 = input.writer.digest();
    const bytes = input.writer.bytes;
    const path = this.blobs.contentPath(id);
    await input.writer.commit(path);
    try {
      return await this.extractAndCommit(input, { id, sha256, bytes, path });
    } catch (err) {
      // Nothing points at the bytes yet: drop them rather than leave an orphan behind.
      if (!this.repo.get(input.accountId, id)) await this.blobs.removeFile(id);
      throw err;
    }
  }

  /** Sniffs the type, extracts and indexes the text, and commits the metadata of bytes already in place. */
  private async extractAndCommit(
    input: { accountId: string; filename: string; purpose: string },
    blob: { id: string; sha256: string; bytes: number; path: string },
  ): Promise<FileRecord> {
    const { id, sha256, bytes, path } = blob;
    const contentType = await contentTypeOf(input.filename, await this.blobs.readContentHead(id, 4096));
    const result = await this.extractions.add(() =>
      this.extractor.extract({ path, filename: input.filename, contentType, bytes }),
    );
    let extraction: Extraction;
    let text = '';
    if (result.status === 'extracted') {
      text = result.text;
      await this.blobs.writeWhole(this.blobs.textPath(id), text);
      extraction = {
        status: 'extracted',
        kind: result.kind,
        chars: text.length,
        truncated: result.truncated,
        ...(result.pages !== undefined && { pages: result.pages }),
      };
    } else {
      extraction = result;
      if (result.status === 'failed')
        this.logger.warn('text extraction failed', { file_id: id, reason: result.reason });
    }
    const record: FileRecord = {
      id,
      accountId: input.accountId,
      filename: input.filename,
      purpose: input.purpose,
      bytes,
      sha256,
      contentType,
      createdAt: this.clock.now(),
      extraction,
    };
    // Tokenise before the transaction: LMDB has one writer, and a large text must not hold it.
    const analyzed = text ? this.index.analyze(text) : null;
    await this.store.transaction(() => {
      const previous = this.repo.get(input.accountId, id);
      if (previous) this.repo.removeInTransaction(previous);
      this.repo.putInTransaction(record);
      if (analyzed) this.index.addInTransaction(input.accountId, id, analyzed);
      else this.index.removeInTransaction(input.accountId, id);
    });
    return record;
  }

  /** Deletes a file: metadata and index first (atomically), then its bytes. False when not the caller's. */
  async remove(accountId: string, id: string): Promise<boolean> {
    const removed = await this.store.transaction(() => {
      const record = this.repo.get(accountId, id);
      if (!record) return false;
      this.repo.removeInTransaction(record);
      this.index.removeInTransaction(accountId, id);
      return true;
    });
    if (removed) await this.blobs.removeFile(id);
    return removed;
  }

  /** The extracted text of a file the account owns (chat `file_id` parts), or null. */
  async extractedText(accountId: string, fileId: string): Promise<ExtractedFileText | null> {
    const record = this.repo.get(accountId, fileId);
    if (!record) return null;
    if (record.extraction.status !== 'extracted')
      return { filename: record.filename, text: `(no text could be extracted: ${record.extraction.reason})` };
    return { filename: record.filename, text: await this.blobs.readText(fileId) };
  }

  /** Ranked passages matching `query` in the account's files (or in one of them). */
  async search(
    accountId: string,
    query: string,
    options: { fileId: string | null; maxHits: number },
  ): Promise<FileSearchHit[]> {
    const parsed = parseQuery(query);
    const ranked = this.index.search(accountId, query, {
      ...(options.fileId !== null && { fileId: options.fileId }),
      maxFiles: options.maxHits,
    });
    const hits: FileSearchHit[] = [];
    for (const { fileId, score } of ranked) {
      const record = this.repo.get(accountId, fileId);
      if (!record) continue;
      const text = await this.blobs.readText(fileId).catch(() => '');
      const room = Math.min(SNIPPETS_PER_FILE, options.maxHits - hits.length);
      const found = snippets(text, parsed, { max: room, context: 80 });
      // A match past the snippet scan limit is still a hit: show the file's opening instead.
      if (found.length === 0) found.push(openingSnippet(text, OPENING_CHARS));
      for (const snippet of found) {
        hits.push({
          fileId,
          filename: record.filename,
          score,
          snippet: snippet.text,
          start: snippet.start,
          end: snippet.end,
          matches: snippet.matches,
        });
      }
      if (hits.length >= options.maxHits) break;
    }
    return hits;
  }

  /**
   * Deletes stored bytes that no metadata points to (a crash between writing and committing).
   * Only blobs older than `before` are considered, so a save in progress is never touched.
   */
  async sweepOrphans(before: number): Promise<number> {
    let removed = 0;
    for await (const id of this.blobs.storedIds(before)) {
      if (this.repo.exists(id)) continue;
      await this.blobs.removeFile(id);
      removed++;
    }
    return removed;
  }
}
