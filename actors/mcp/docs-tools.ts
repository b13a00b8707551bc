import { ApiError } from '../../protocols/errors.js';
import {
  ApiContractInputSchema,
  BenchmarkMethodologyInputSchema,
  ChangelogInputSchema,
  FetchDocInputSchema,
  SearchDocsInputSchema,
} from '../../protocols/mcp.js';
import type { DocsLibrary } from './docs-library.js';
import { defineTool, READ_ONLY, type McpTool } from './mcp-tool.js';

/** An OpenAPI document as the contract tool reads it. */
export interface OpenApiDocumentLike {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}

/** What the docs tools read: the docs pages and the live API contract. */
export interface DocsToolsDeps {
  library: DocsLibrary;
  /** The OpenAPI document of the routes this server serves. */
  contract: () => OpenApiDocumentLike;
}

const CHANGELOG_PAGE = 'docs/changelog.md';
const METHOD_PAGES = [
  { page: 'bench/README.md', headings: /^(Benchmarks|Running|How the figures are made)$/ },
  { page: 'docs/benchmarks.md', headings: /./ },
];
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** `#/components/schemas/X` names used anywhere in `value`, transitively through `schemas`. */
function referencedSchemas(value: unknown, schemas: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const visit = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')) {
        const name = child.slice('#/components/schemas/'.length);
        if (!(name in out) && name in schemas) {
          out[name] = schemas[name];
          visit(schemas[name]);
        }
      } else visit(child);
    }
  };
  visit(value);
  return out;
}

/** Finds an operation by `METHOD /path` (`{param}` or `:param`) or by operationId. */
function findOperation(
  doc: OpenApiDocumentLike,
  wanted: string,
): { method: string; path: string; operation: Record<string, unknown> } | undefined {
  const match = /^([A-Za-z]+)\s+(\S+)$/.exec(wanted.trim());
  if (match) {
    const method = match[1]!.toLowerCase();
    const path = match[2]!.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
    const operation = doc.paths[path]?.[method];
    if (operation && typeof operation === 'object')
      return { method: method.toUpperCase(), path, operation: operation as Record<string, unknown> };
  }
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as { operationId?: unknown } | undefined;
      if (operation?.operationId === wanted.trim()) return { method: method.toUpperCase(), path, operation: operation };
    }
  }
  return undefined;
}

/** The index of a contract: every operation's method, path, id, summary and tags. */
function contractIndex(doc: OpenApiDocumentLike) {
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method]).map((method) => {
      const operation = item[method] as { operationId?: string; summary?: string; tags?: string[] };
      return {
        method: method.toUpperCase(),
        path,
        operation_id: operation.operationId ?? null,
        summary: operation.summary ?? null,
        tags: operation.tags ?? [],
      };
    }),
  );
  return { openapi: doc.openapi, info: doc.info, served_at: '/v1/openapi.json', count: operations.length, operations };
}

/**
 * The tools of the public docs endpoint (`/mcp/docs`): every one read-only, needing no token and
 * changing nothing. Search the docs (ranked sections with snippets), fetch a page, inspect the API
 * contract (its index, one operation with the schemas it uses, or the whole OpenAPI document), the
 * changelog and the benchmark methodology.
 */
export function docsTools({ library, contract }: DocsToolsDeps): McpTool[] {
  return [
    defineTool({
      name: 'search_docs',
      title: 'Search the documentation',
      description:
        'Searches the public documentation of the svc API and returns the best-matching sections, ranked, each with a snippet and the page to fetch.',
      input: SearchDocsInputSchema,
      annotations: READ_ONLY,
      scope: null,
      async run({ query, limit }) {
        const hits = await library.search(query, limit);
        return {
          structured: { object: 'list', query, data: hits },
          summary:
            hits.length === 0
              ? `No section matches "${query}".`
              : `${hits.length} section(s) match "${query}"; best: ${hits[0]!.path} › ${hits[0]!.section}.`,
        };
      },
    }),
    defineTool({
      name: 'fetch_doc',
      title: 'Fetch a documentation page',
      description:
        'Returns one page of the public documentation as Markdown (in slices for long pages). Without a known path, lists the pages.',
      input: FetchDocInputSchema,
      annotations: READ_ONLY,
      scope: null,
      async run({ path, offset, max_chars: maxChars }) {
        const page = await library.page(path);
        if (!page) {
          const pages = await library.pages();
          throw new ApiError(
            'not_found',
            `No documentation page ${path}; the pages are: ${pages.map((p) => p.path).join(', ')}.`,
            { param: 'path' },
          );
        }
        const text = page.text.slice(offset, offset + maxChars);
        const next = offset + text.length < page.text.length ? offset + text.length : null;
        return {
          structured: {
            object: 'doc_page',
            path: page.path,
            total_chars: page.text.length,
            offset,
            next_offset: next,
            text,
          },
          summary: `${page.path}: ${text.length} of ${page.text.length} characters from ${offset}.`,
        };
      },
    }),
    defineTool({
      name: 'get_api_contract',
      title: 'Inspect the API contract',
      description:
        'The published OpenAPI 3.1 contract of the svc HTTP API (also at GET /v1/openapi.json): by default an index of every operation; with operation ("POST /v1/chat/completions" or an operationId) that operation and the schemas it uses; with full=true the whole document.',
      input: ApiContractInputSchema,
      annotations: READ_ONLY,
      scope: null,
      run({ operation, full }) {
        const doc = contract();
        if (operation !== undefined) {
          const found = findOperation(doc, operation);
          if (!found)
            throw new ApiError(
              'not_found',
              `No operation ${operation} in the contract; call get_api_contract without arguments for the index.`,
              { param: 'operation' },
            );
          const schemas = referencedSchemas(found.operation, doc.components?.schemas ?? {});
          return Promise.resolve({
            structured: {
              object: 'api_operation',
              method: found.method,
              path: found.path,
              operation: found.operation,
              components: { schemas },
            },
            summary: `${found.method} ${found.path}`,
          });
        }
        if (full)
          return Promise.resolve({
            structured: doc as unknown as Record<string, unknown>,
            summary: `OpenAPI ${doc.openapi} document, ${Object.keys(doc.paths).length} paths.`,
          });
        const index = contractIndex(doc);
        return Promise.resolve({
          structured: index,
          summary: `${index.count} operations; ask for one with operation, or full=true.`,
        });
      },
    }),
    defineTool({
      name: 'get_changelog',
      title: 'Read the changelog',
      description: 'The changelog of the svc API, newest entry first.',
      input: ChangelogInputSchema,
      annotations: READ_ONLY,
      scope: null,
      async run({ limit }) {
        const sections = (await library.sections(CHANGELOG_PAGE)).filter((section) => section.heading !== 'Changelog');
        const entries = sections.slice(0, limit).map((section) => ({ title: section.heading, text: section.text }));
        return {
          structured: { object: 'list', source: CHANGELOG_PAGE, data: entries },
          summary:
            entries.length > 0 ? `${entries.length} entries; newest: ${entries[0]!.title}.` : 'The changelog is empty.',
        };
      },
    }),
    defineTool({
      name: 'get_benchmark_methodology',
      title: 'Read the benchmark methodology',
      description:
        'How the benchmark figures are measured (same-run baselines, clients, measures) and how the public benchmark views are published from a signed evidence package.',
      input: BenchmarkMethodologyInputSchema,
      annotations: READ_ONLY,
      scope: null,
      async run() {
        const sections = [];
        for (const { page, headings } of METHOD_PAGES) {
          for (const section of await library.sections(page))
            if (headings.test(section.heading)) sections.push({ page, heading: section.heading, text: section.text });
        }
        return {
          structured: { object: 'benchmark_methodology', sources: METHOD_PAGES.map((p) => p.page), sections },
          summary: `${sections.length} sections on how benchmarks are measured and published.`,
        };
      },
    }),
  ];
}
