import type { InputItemsQuery, StoredInputItem } from '../../protocols/responses.js';
import { fieldError } from '../../protocols/validation.js';

/** One page of a list, as OpenAI's cursor pages are shaped. */
export interface ItemPage {
  object: 'list';
  data: StoredInputItem[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

function cursorIndex(items: readonly StoredInputItem[], id: string, param: 'after' | 'before'): number {
  const index = items.findIndex((item) => item.id === id);
  if (index < 0) throw fieldError(['query', param], `'${id}' is not an input item of this response`);
  return index;
}

/** A page of a response's input items: in `order`, strictly after `after` and before `before`, at most `limit`. */
export function inputItemPage(items: readonly StoredInputItem[], query: InputItemsQuery): ItemPage {
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  const start = query.after === undefined ? 0 : cursorIndex(ordered, query.after, 'after') + 1;
  const end = query.before === undefined ? ordered.length : cursorIndex(ordered, query.before, 'before');
  const data = ordered.slice(start, Math.max(start, end)).slice(0, query.limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? null,
    last_id: data[data.length - 1]?.id ?? null,
    has_more: end - start > query.limit,
  };
}
