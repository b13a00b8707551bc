/** One page of the public docs: its path in the repository (`docs/chat.md`) and its Markdown. */
export interface DocPage {
  path: string;
  text: string;
}

/** A section of a page (from one heading to the next), as the index ranks it. */
interface Section {
  path: string;
  pageTitle: string;
  heading: string;
  text: string;
  terms: Map<string, number>;
  length: number;
}

/** One search hit: where, how well, and the words around the match. */
export interface DocHit {
  path: string;
  title: string;
  section: string;
  score: number;
  snippet: string;
}

const STOP_WORDS = new Set(
  'a an and are as at be by for from has in is it its of on or that the this to was were will with not no do does'.split(
    ' ',
  ),
);
const BM25_K1 = 1.2;
const BM25_B = 0.75;
/** A word of a heading counts as this many words of text. */
const HEADING_WEIGHT = 3;
const SNIPPET_CHARS = 240;

/** Lower-case words of `text` without stop words. */
export function termsOf(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]/g) ?? []).filter(
    (term) => !STOP_WORDS.has(term),
  );
}

function countTerms(terms: readonly string[], into: Map<string, number>, weight: number): void {
  for (const term of terms) into.set(term, (into.get(term) ?? 0) + weight);
}

/** Splits a page into sections at its Markdown headings (outside code fences). */
function sectionsOf(page: DocPage): Section[] {
  const lines = page.text.split('\n');
  const title = (lines.find((line) => line.startsWith('# ')) ?? page.path).replace(/^#\s+/, '');
  const out: Section[] = [];
  let heading = title;
  let body: string[] = [];
  let fenced = false;
  const flush = () => {
    const text = body.join('\n').trim();
    if (!text && heading === title && out.length > 0) return;
    const terms = new Map<string, number>();
    const headingTerms = termsOf(heading);
    const textTerms = termsOf(text);
    countTerms(headingTerms, terms, HEADING_WEIGHT);
    countTerms(textTerms, terms, 1);
    out.push({
      path: page.path,
      pageTitle: title,
      heading,
      text,
      terms,
      length: textTerms.length + HEADING_WEIGHT * headingTerms.length,
    });
  };
  for (const line of lines) {
    if (line.startsWith('```')) fenced = !fenced;
    if (!fenced && /^#{1,4}\s/.test(line)) {
      flush();
      heading = line.replace(/^#+\s+/, '');
      body = [];
    } else body.push(line);
  }
  flush();
  return out;
}

/** The words around the first place the text matches most of `terms`, cut at word edges. */
export function snippetOf(text: string, terms: readonly string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  let best = -1;
  let bestCount = 0;
  for (const term of terms) {
    for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + 1)) {
      const window = lower.slice(Math.max(0, at - SNIPPET_CHARS / 2), at + SNIPPET_CHARS / 2);
      const count = terms.filter((t) => window.includes(t)).length;
      if (count > bestCount) {
        best = at;
        bestCount = count;
      }
      if (bestCount === terms.length) break;
    }
  }
  if (best === -1)
    return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS).replace(/\s+\S*$/, '')}…` : flat;
  const start = Math.max(0, best - SNIPPET_CHARS / 3);
  const end = Math.min(flat.length, start + SNIPPET_CHARS);
  let cut = flat.slice(start, end);
  if (start > 0) cut = cut.replace(/^\S*\s/, '');
  if (end < flat.length) cut = cut.replace(/\s\S*$/, '');
  return `${start > 0 ? '…' : ''}${cut}${end < flat.length ? '…' : ''}`;
}

/**
 * The public docs as the docs tools read them: pages loaded once (on first use) and split into
 * sections at their headings, ranked by BM25 (heading words weigh more), each hit with a snippet
 * around the words that matched.
 */
export class DocsLibrary {
  private loaded: Promise<{
    pages: DocPage[];
    sections: Section[];
    documentFrequency: Map<string, number>;
    averageLength: number;
  }> | null = null;

  constructor(private readonly load: () => Promise<DocPage[]>) {}

  private index() {
    this.loaded ??= this.load().then((pages) => {
      const sections = pages.flatMap(sectionsOf);
      const documentFrequency = new Map<string, number>();
      for (const section of sections)
        for (const term of section.terms.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      const averageLength = sections.reduce((sum, s) => sum + s.length, 0) / Math.max(1, sections.length);
      return { pages, sections, documentFrequency, averageLength };
    });
    return this.loaded;
  }

  /** Every page's path and title. */
  async pages(): Promise<{ path: string; title: string }[]> {
    const { pages } = await this.index();
    return pages.map((page) => ({
      path: page.path,
      title: (page.text.split('\n').find((line) => line.startsWith('# ')) ?? page.path).replace(/^#\s+/, ''),
    }));
  }

  /** A page by its path (`docs/chat.md`) or short name (`chat`); undefined when there is none. */
  async page(name: string): Promise<DocPage | undefined> {
    const { pages } = await this.index();
    const wanted = name.trim().replace(/^\/+/, '').toLowerCase();
    return pages.find((page) => {
      const path = page.path.toLowerCase();
      return (
        path === wanted ||
        path === `docs/${wanted}` ||
        path === `docs/${wanted}.md` ||
        path.replace(/\.md$/, '') === wanted
      );
    });
  }

  /** The sections of a page (heading and text), in order; empty when there is no such page. */
  async sections(name: string): Promise<{ heading: string; text: string }[]> {
    const page = await this.page(name);
    return page ? sectionsOf(page).map((section) => ({ heading: section.heading, text: section.text })) : [];
  }

  /** The sections best matching `query`, best first, at most `limit`. */
  async search(query: string, limit: number): Promise<DocHit[]> {
    const { sections, documentFrequency, averageLength } = await this.index();
    const terms = [...new Set(termsOf(query))];
    if (terms.length === 0) return [];
    const count = sections.length;
    const scored: { section: Section; score: number }[] = [];
    for (const section of sections) {
      let score = 0;
      for (const term of terms) {
        const tf = section.terms.get(term);
        if (!tf) continue;
        const df = documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
        score += (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * section.length) / averageLength));
      }
      if (score > 0) scored.push({ section, score });
    }
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, limit).map(({ section, score }) => ({
      path: section.path,
      title: section.pageTitle,
      section: section.heading,
      score: Math.round(score * 1000) / 1000,
      snippet: snippetOf(section.text, terms),
    }));
  }
}
