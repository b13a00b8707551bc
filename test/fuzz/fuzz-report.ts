import type { FuzzFailure, FuzzResult } from './fuzz-campaign.js';

/** What the server logged about a request, by request id (from a capturing logger). */
export type ServerLog = Map<string, string>;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

function requestIdOf(failure: FuzzFailure): string | undefined {
  const id = failure.response.headers['x-request-id'];
  return Array.isArray(id) ? id[0] : id;
}

/** One failure, with the seed and index that rebuild the request, the request and the response. */
export function formatFailure(failure: FuzzFailure, log?: ServerLog): string {
  const { request, response } = failure;
  const body = request.wire.body;
  const requestId = requestIdOf(failure);
  const logged = requestId ? log?.get(requestId) : undefined;
  const headers = Object.entries(request.wire.headers)
    .filter(([name]) => name !== 'authorization')
    .map(([name, value]) => `${name}: ${cut(String(value), 120)}`);
  return [
    `#${request.index} (seed ${failure.seed}) ${request.target}`,
    `  problems: ${failure.problems.join('; ')}`,
    `  request:  ${request.wire.method} ${cut(request.wire.path, 200)}${request.wire.chunked ? ' [chunked]' : ''}`,
    `  notes:    ${request.notes.join(' | ')}`,
    ...(headers.length > 0 ? [`  headers:  ${headers.join(' | ')}`] : []),
    `  body:     ${body ? `${body.length} bytes ${cut(JSON.stringify(body.toString('utf8')), 300)}` : '(none)'}`,
    `  response: ${response.status ?? 'none'}${response.error ? ` (${response.error})` : ''} ${cut(response.body.toString('utf8'), 400)}`,
    ...(logged ? [`  server:   ${cut(logged, 1200)}`] : []),
    `  replay:   FUZZ_SEED=${failure.seed} npx tsx test/fuzz/run-fuzz.ts --only ${request.index}`,
  ].join('\n');
}

/** A failure's class: status, target and the first problem, with the error code when there is one. */
export function failureClass(failure: FuzzFailure): string {
  // The error code, except for an oversized body, whose class is its size.
  let code = '';
  try {
    if (!failure.problems[0]!.startsWith('error body is'))
      code = String(JSON.parse(failure.response.body.toString('utf8'))?.error?.code ?? '');
  } catch {
    // not JSON; the problem text says so
  }
  const problem = failure.problems[0]!.replace(/req_[A-Za-z0-9_-]+/g, 'req_…').replace(/\d{3,}/g, 'N');
  const { target, wire } = failure.request;
  // Unknown paths differ by the form of the request target (origin, absolute, asterisk).
  const form =
    target === 'unknown path'
      ? ` ${wire.path.startsWith('/') ? 'origin-form' : wire.path.startsWith('http') ? 'absolute-form' : `"${wire.path.split('?')[0]}"`}`
      : '';
  return `${failure.response.status ?? 'no response'} ${target}${form}${code ? ` [${code}]` : ''}: ${problem}`;
}

/** The run's summary: counts by status, failure classes with their first example, and stale sockets. */
export function formatSummary(result: FuzzResult, options: { log?: ServerLog; maxExamples?: number } = {}): string {
  const statuses = [...result.byStatus.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}: ${count}`);
  const lines = [
    `fuzz: seed ${result.seed}, ${result.sent} requests, ${result.failures.length} failures`,
    `  by status: ${statuses.join(', ')}`,
  ];
  if (result.staleSockets.length > 0) {
    const blamed = result.staleSockets.map((stale) =>
      stale.previous === null ? `#${stale.index}` : `#${stale.index} after #${stale.previous}`,
    );
    lines.push(
      `  kept-alive connections the server had closed without Connection: close (the request was answered on a new one): ${cut(blamed.join(', '), 600)}`,
    );
  }
  const classes = new Map<string, FuzzFailure[]>();
  for (const failure of result.failures) {
    const key = failureClass(failure);
    classes.set(key, [...(classes.get(key) ?? []), failure]);
  }
  if (classes.size > 0) lines.push('', `failure classes (${classes.size}):`);
  for (const [key, failures] of classes)
    lines.push(
      `  ${failures.length} × ${key}  (e.g. #${failures
        .slice(0, 5)
        .map((f) => f.request.index)
        .join(', #')})`,
    );
  const examples = [...classes.values()]
    .slice(0, options.maxExamples ?? 40)
    .map((failures) => formatFailure(failures[0]!, options.log));
  if (examples.length > 0) lines.push('', 'first example of each class:', ...examples);
  return lines.join('\n');
}

/** Statuses per target, one line each: which handlers the run really reached. */
export function formatStatusByTarget(result: FuzzResult): string {
  return [...result.statusByTarget.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([target, statuses]) =>
        `  ${target.padEnd(62)} ${[...statuses.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([status, count]) => `${status}:${count}`)
          .join(' ')}`,
    )
    .join('\n');
}
