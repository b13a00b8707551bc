import type { ChatMessage } from '../../protocols/chat.js';
import { messageText } from '../../protocols/chat.js';
import type { FileSearchCall, ResponseCreateRequest } from '../../protocols/responses.js';
import { randomBase62 } from '../../runtime/ids.js';
import type { FileSearchHit } from '../files/file-library.js';

/** The keyword search over an account's files (the files feature's). */
export type SearchFiles = (accountId: string, query: string, maxHits: number) => Promise<FileSearchHit[]>;

const DEFAULT_HITS = 5;

/** The query a `file_search` tool runs: the last user message, when the turn ends with one and search is allowed. */
export function fileSearchQuery(request: ResponseCreateRequest, turn: readonly ChatMessage[]): string | null {
  const tool = request.tools?.find((candidate) => candidate.type === 'file_search');
  if (!tool || request.tool_choice === 'none') return null;
  const last = turn[turn.length - 1];
  if (last?.role !== 'user') return null;
  const query = messageText(last).trim();
  return query || null;
}

/**
 * Runs the search before the model (the model here has no search step of its own): the
 * `file_search_call` item, with results when `include` asks for them, and the passages as a
 * system note the model reads before the question.
 */
export async function runFileSearch(
  search: SearchFiles,
  accountId: string,
  request: ResponseCreateRequest,
  query: string,
): Promise<{ item: FileSearchCall; note: ChatMessage }> {
  const tool = request.tools!.find((candidate) => candidate.type === 'file_search')!;
  const max = (tool as { max_num_results?: number | null }).max_num_results ?? DEFAULT_HITS;
  const hits = await search(accountId, query, max);
  const results = hits.map((hit) => ({
    file_id: hit.fileId,
    filename: hit.filename,
    score: hit.score,
    text: hit.snippet,
    attributes: {},
  }));
  const item: FileSearchCall = {
    id: `fs_${randomBase62(24)}`,
    type: 'file_search_call',
    status: 'completed',
    queries: [query],
    results: request.include?.includes('file_search_call.results') ? results : null,
  };
  const passages = results.length
    ? results.map((r, i) => `[${i + 1}] ${r.filename} (${r.file_id}): ${r.text}`).join('\n')
    : 'No passage of your files matched.';
  return { item, note: { role: 'system', content: `File search results for "${query}":\n${passages}` } };
}
