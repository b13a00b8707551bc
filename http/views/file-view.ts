import type { FileSearchHit } from '../../actors/files/file-library.js';
import type { FilePage, FileRecord } from '../../actors/files/file-repo.js';
import type { FileDeletedObject, FileListObject, FileObject, FileSearchResultsObject } from '../../protocols/files.js';

/** A stored file on the wire. */
export function fileView(record: FileRecord): FileObject {
  return {
    id: record.id,
    object: 'file',
    bytes: record.bytes,
    created_at: Math.floor(record.createdAt / 1000),
    expires_at: null,
    filename: record.filename,
    purpose: record.purpose,
    status: 'processed',
    status_details:
      record.extraction.status === 'failed' ? `text extraction failed: ${record.extraction.reason}` : null,
    sha256: record.sha256,
    content_type: record.contentType,
    extraction: record.extraction,
  };
}

/** A page of files with OpenAI's cursor fields. */
export function fileListView(page: FilePage): FileListObject {
  return {
    object: 'list',
    data: page.records.map(fileView),
    first_id: page.records[0]?.id ?? null,
    last_id: page.records.at(-1)?.id ?? null,
    has_more: page.hasMore,
  };
}

/** The answer to a file deletion. */
export function fileDeletedView(id: string): FileDeletedObject {
  return { id, object: 'file', deleted: true };
}

/** Search hits on the wire, best first; scores rounded to four decimals. */
export function fileSearchView(query: string, hits: readonly FileSearchHit[]): FileSearchResultsObject {
  return {
    object: 'list',
    query,
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
  };
}

/** Headers of a download: its type, an attachment name, and its checksum. */
export function fileContentHeaders(record: FileRecord): Record<string, string> {
  return {
    'content-type': record.contentType,
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(record.filename)}`,
    'x-content-type-options': 'nosniff',
    'x-content-sha256': record.sha256,
  };
}
