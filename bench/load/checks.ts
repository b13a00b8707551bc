// Figures derived from a scenario's rows, each next to its design target. Reported, never
// asserted: `met` is what the report prints, nothing fails on it.
import type { TargetResult } from './target-result.js';

/** One derived figure and its target. */
export interface Check {
  figure: string;
  /** null when it could not be measured (see `note`). */
  value: number | null;
  unit: '%' | 'ms' | 'µs';
  /** The design target in words, or null for an informative figure. */
  target: string | null;
  met: boolean | null;
  /** Why the figure is missing, or a caveat on it. */
  note: string | null;
}

function usable(rows: TargetResult[], name: string): TargetResult | null {
  const row = rows.find((r) => r.name === name);
  return row && row.status === 'ok' ? row : null;
}

function reason(rows: TargetResult[], ...names: string[]): string {
  const missing = names.map((name) => rows.find((r) => r.name === name) ?? { name, status: 'not run', note: null });
  const bad = missing.find((r) => r.status !== 'ok');
  return bad ? `${bad.name}: ${bad.status}${bad.note ? ` (${bad.note.slice(0, 120)})` : ''}` : 'not measured';
}

function check(
  figure: string,
  unit: Check['unit'],
  value: number | null,
  target: { text: string; met: (v: number) => boolean } | null,
  note: string | null,
): Check {
  const rounded = value === null ? null : Math.round(value * 1000) / 1000;
  return {
    figure,
    value: rounded,
    unit,
    target: target?.text ?? null,
    met: rounded === null || !target ? null : target.met(rounded),
    note: value === null ? note : null,
  };
}

/** Non-streaming chat: throughput ratio and added latency against bare uWS (and node:http). */
export function chatChecks(rows: TargetResult[], options: { paced: boolean }): Check[] {
  const ours = usable(rows, 'svc gateway');
  const uws = usable(rows, 'bare uWS');
  const node = usable(rows, 'bare node:http');
  const why = reason(rows, 'svc gateway', 'bare uWS');
  const both = ours && uws;
  const checks: Check[] = [];
  if (!options.paced) {
    checks.push(
      check(
        'requests/s, ours ÷ bare uWS',
        '%',
        both ? (ours.requestsPerSecond / uws.requestsPerSecond) * 100 : null,
        { text: '≥ 70 %', met: (v) => v >= 70 },
        why,
      ),
    );
    if (node || rows.some((r) => r.name === 'bare node:http')) {
      checks.push(
        check(
          'requests/s, ours ÷ bare node:http',
          '%',
          ours && node ? (ours.requestsPerSecond / node.requestsPerSecond) * 100 : null,
          null,
          reason(rows, 'svc gateway', 'bare node:http'),
        ),
      );
    }
  }
  checks.push(
    check('added p50 (ours − bare uWS)', 'ms', both ? ours.latencyMs.p50 - uws.latencyMs.p50 : null, null, why),
  );
  checks.push(
    check(
      'added p99 (ours − bare uWS)',
      'ms',
      both ? ours.latencyMs.p99 - uws.latencyMs.p99 : null,
      { text: '< 1 ms', met: (v) => v < 1 },
      why,
    ),
  );
  return checks;
}

/** Streaming chat: what relaying each chunk costs over a bare uWS server writing the same events. */
export function streamChecks(rows: TargetResult[], chunks: number, options: { paced: boolean }): Check[] {
  const ours = usable(rows, 'svc gateway');
  const bare = usable(rows, 'bare uWS SSE');
  const why = reason(rows, 'svc gateway', 'bare uWS SSE');
  const both = ours?.sse && bare?.sse ? { ours, bare } : null;
  const perChunkUs = (pick: (r: TargetResult) => number) =>
    both ? ((pick(both.ours) - pick(both.bare)) / chunks) * 1000 : null;
  const oursEvents = both?.ours.sse?.eventsPerStream.mean ?? chunks;
  const relay = check(
    `relay overhead per chunk, p50 time to last byte ÷ ${chunks} chunks`,
    'µs',
    perChunkUs((r) => r.latencyMs.p50),
    { text: '< 100 µs', met: (v) => v < 100 },
    why,
  );
  // Against a --target whose backend we cannot script, stream lengths may differ from the baseline's.
  if (Math.abs(oursEvents - chunks) > chunks * 0.1)
    relay.note = `ours averaged ${oursEvents} events per stream, the baseline ${chunks}: not like for like`;
  // The same after the first byte: the streaming itself, without the request's set-up before it.
  const afterFirstByte = (r: TargetResult) => r.latencyMs.p50 - r.sse!.ttfbMs.p50;
  const checks = [
    relay,
    check(
      `relay overhead per chunk, p99 time to last byte ÷ ${chunks} chunks`,
      'µs',
      perChunkUs((r) => r.latencyMs.p99),
      null,
      why,
    ),
    check(
      'relay overhead per chunk after the first byte, p50 (last − first byte)',
      'µs',
      perChunkUs(afterFirstByte),
      null,
      why,
    ),
    check(
      'added time to first byte, p50 (ours − bare)',
      'ms',
      both ? both.ours.sse!.ttfbMs.p50 - both.bare.sse!.ttfbMs.p50 : null,
      null,
      why,
    ),
  ];
  if (!options.paced)
    checks.push(
      check(
        'streams/s, ours ÷ bare uWS SSE',
        '%',
        both ? (both.ours.requestsPerSecond / both.bare.requestsPerSecond) * 100 : null,
        null,
        why,
      ),
    );
  return checks;
}
