import { analyzeFields } from '../../runtime/search/bm25.js';
import { MemorySearchIndex } from '../../runtime/search/memory-search-index.js';
import { openingSnippet, snippets } from '../../runtime/search/snippets.js';
import { parseQuery, type ParsedQuery } from '../../runtime/search/text-tokens.js';

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
}

/** One search hit: where, how well, and the words around the match. */
export interface DocHit {
  path: string;
  title: string;
  section: string;
  score: number;
  snippet: string;
}

/** Words too common to rank by; dropped from a query's free terms (a quoted phrase keeps them). */
const STOP_WORDS = new Set(
  'a an and are as at be by for from has in is it its of on or that the this to was were will with not no do does'.split(
    ' ',
  ),
);
/** A word of a heading counts as this many words of text. */
const HEADING_WEIGHT = 3;
/** Characters of context each side of a snippet's matches, so about 240 in all. */
const SNIPPET_CONTEXT = 120;
/** Characters of a section's opening shown when its match is only in the heading. */
const OPENING_CHARS = 240;

/** A query as the docs search reads it: the engine's parse, without stop words among the free terms. */
function docsQuery(query: string): ParsedQuery {
  const parsed = parseQuery(query);
  return { terms: parsed.terms.filter((term) => !STOP_WORDS.has(term)), phrases: parsed.phrases };
}

/** A section's id in the index: its place, zero-padded so equal scores keep the pages' order. */
function sectionId(at: number): string {
  return String(at).padStart(6, '0');
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
    out.push({ path: page.path, pageTitle: title, heading, text });
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

/**
 * The public docs as the docs tools read them: pages loaded once (on first use) and split into
 * sections at their headings and indexed in memory by the search engine (`runtime/search/`, the
 * files' tokenizer, BM25 and snippets; heading words weigh more), each hit with a snippet around
 * the words that matched.
 */
export class DocsLibrary {
  private loaded: Promise<{ pages: DocPage[]; sections: Section[]; index: MemorySearchIndex }> | null = null;

  constructor(private readonly load: () => Promise<DocPage[]>) {}

  private index() {
    this.loaded ??= this.load().then((pages) => {
      const sections = pages.flatMap(sectionsOf);
      const index = new MemorySearchIndex();
      sections.forEach((section, at) =>
        index.add(
          sectionId(at),
          analyzeFields([
            { text: section.heading, weight: HEADING_WEIGHT },
            { text: section.text, weight: 1 },
          ]),
        ),
      );
      return { pages, sections, index };
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
    const { sections, index } = await this.index();
    const parsed = docsQuery(query);
    return index.search(parsed, { maxResults: limit }).map(({ id, score }) => {
      const section = sections[Number(id)]!;
      const [snippet] = snippets(section.text, parsed, { max: 1, context: SNIPPET_CONTEXT });
      return {
        path: section.path,
        title: section.pageTitle,
        section: section.heading,
        score: Math.round(score * 1000) / 1000,
        snippet: (snippet ?? openingSnippet(section.text, OPENING_CHARS)).text,
      };
    });
  }
}
