import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { percentile } from './serve-figures.js';
import type { ServeReport } from './serve-scenario.js';

const require = createRequire(import.meta.url);

/** uPlot's script and stylesheet, inlined so the report needs no network when viewed. */
function uplotAssets(): { js: string; css: string } {
  return {
    js: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    css: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
}

/** 101 quantiles (0–100 %) of `values` in ms: a distribution small enough to embed for any run size. */
function quantiles(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return Array.from({ length: 101 }, (_, q) => Math.round(percentile(sorted, q) * 1000) / 1000);
}

/** What the page draws: per point the summary figures, the TTFT and ITL distributions, and the server series. */
function pageData(report: ServeReport) {
  return {
    mode: report.options.mode,
    points: report.points.map(({ x, figures }) => ({ x, ...figures })),
    ttft: report.points.map((p) =>
      quantiles(p.timings.flatMap((t) => (t.error || t.ttftMs === null ? [] : [t.ttftMs]))),
    ),
    itl: report.points.map((p) => quantiles(p.timings.flatMap((t) => (t.error ? [] : t.itlMs)))),
    server: report.serverSeries,
  };
}

// Runs in the browser: one uPlot per figure, from the embedded data. Plain ES2017, no imports.
const DRAW = `
const data = JSON.parse(document.getElementById('data').textContent);
const colours = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const xName = data.mode === 'concurrency' ? 'concurrent users' : 'requests/s';
const xs = data.points.map((p) => p.x);
const pick = (figure, stat) => data.points.map((p) => (p[figure] ? p[figure][stat] : null));
function chart(id, title, xLabel, x, series, options) {
  const el = document.getElementById(id);
  const axes = [{ label: xLabel }, { label: series[0].unit }];
  const scales = { x: { time: false } };
  if (options && options.logX) scales.x.distr = 3, scales.x.log = 2;
  if (options && options.right) {
    axes.push({ side: 1, scale: 'right', label: options.right, grid: { show: false } });
    scales.right = {};
  }
  new uPlot({
    title, width: 760, height: 320, scales, axes,
    series: [{ label: xLabel }].concat(series.map((s, i) => ({
      label: s.label, stroke: colours[i % colours.length], width: 2, scale: s.scale || 'y', points: { show: x.length < 40 },
    }))),
  }, [x].concat(series.map((s) => s.values)), el);
}
const logX = data.mode === 'concurrency' && xs.length > 1;
chart('ttft', 'Time to first token', xName, xs, ['p50', 'p90', 'p99', 'mean'].map((s) => ({ label: 'TTFT ' + s, unit: 'ms', values: pick('ttftMs', s) })), { logX });
chart('tpot', 'Time per output token and inter-token latency', xName, xs,
  [['tpotMs', 'TPOT'], ['itlMs', 'ITL']].flatMap(([f, n]) => ['p50', 'p99'].map((s) => ({ label: n + ' ' + s, unit: 'ms', values: pick(f, s) }))), { logX });
chart('e2el', 'End-to-end latency', xName, xs, ['p50', 'p90', 'p99', 'mean'].map((s) => ({ label: 'E2E ' + s, unit: 'ms', values: pick('e2elMs', s) })), { logX });
chart('throughput', 'Throughput', xName, xs, [
  { label: 'output tokens/s', unit: 'tokens/s', values: data.points.map((p) => p.outputTokensPerS) },
  { label: 'total tokens/s', unit: 'tokens/s', values: data.points.map((p) => p.totalTokensPerS) },
  { label: 'requests/s', unit: 'tokens/s', scale: 'right', values: data.points.map((p) => p.requestThroughput) },
  { label: 'goodput requests/s', unit: 'tokens/s', scale: 'right', values: data.points.map((p) => p.goodput) },
], { logX, right: 'requests/s' });
const q = Array.from({ length: 101 }, (_, i) => i);
const perPoint = (name, rows) => rows.map((values, i) => ({ label: name + ' at ' + xs[i], unit: 'ms', values }));
chart('ttft-dist', 'TTFT distribution (quantiles)', 'percentile', q, perPoint('TTFT', data.ttft));
chart('itl-dist', 'ITL distribution (quantiles)', 'percentile', q, perPoint('ITL', data.itl));
if (data.server && data.server.samples.length > 1) {
  const s = data.server.samples;
  chart('server', 'Server CPU and RSS (points start at ' + data.server.pointStartsS.join(', ') + ' s)', 'seconds', s.map((r) => r.tS), [
    { label: 'CPU %', unit: '% of a core', values: s.map((r) => r.cpuPercent) },
    { label: 'RSS MB', unit: '% of a core', scale: 'right', values: s.map((r) => r.rssMb) },
  ], { right: 'MB' });
}
document.body.dataset.drawn = 'yes';
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function summaryTable(report: ServeReport): string {
  const ms = (s: { p50: number; p99: number } | null) => (s ? `${s.p50.toFixed(1)} / ${s.p99.toFixed(1)}` : '–');
  const rows = report.points.map(({ x, figures: f, client }) =>
    [
      x,
      `${f.completed}${f.failed ? ` (+${f.failed} failed)` : ''}`,
      f.requestThroughput,
      `${f.outputTokensPerS}${f.tokensEstimated ? ' (est.)' : ''}`,
      f.totalTokensPerS,
      ms(f.ttftMs),
      ms(f.tpotMs),
      ms(f.itlMs),
      ms(f.e2elMs),
      f.goodput ?? '–',
      Object.entries(f.errors)
        .map(([kind, count]) => `${kind} ${count}`)
        .join(', ') || '–',
      `${Math.round(client.eventLoopUtilization * 100)} %`,
    ]
      .map((cell) => `<td>${escapeHtml(String(cell))}</td>`)
      .join(''),
  );
  const head = [
    report.options.mode,
    'completed',
    'req/s',
    'output tok/s',
    'total tok/s',
    'TTFT p50 / p99 ms',
    'TPOT p50 / p99 ms',
    'ITL p50 / p99 ms',
    'E2E p50 / p99 ms',
    'goodput req/s',
    'errors',
    'client loop busy',
  ];
  return `<table><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>${rows.map((r) => `<tr>${r}</tr>`).join('')}</table>`;
}

/** A self-contained HTML report: uPlot inlined, the data embedded, nothing fetched when viewed. */
export function serveHtml(report: ServeReport): string {
  const { js, css } = uplotAssets();
  const o = report.options;
  const about = [
    `${report.target} (${report.server}), model ${o.model}, ${o.api === 'chat' ? 'chat completions' : 'Responses API'}, streamed`,
    o.mode === 'rate'
      ? `open loop, gamma arrivals with burstiness ${o.burstiness}${o.maxConcurrency ? `, at most ${o.maxConcurrency} in flight` : ''}`
      : 'closed loop',
    o.promptsFile
      ? `prompts from ${o.promptsFile}`
      : `synthetic prompts: input ${o.inputTokens.mean} ± ${o.inputTokens.stddev} tokens, output ${o.outputTokens.mean} ± ${o.outputTokens.stddev}`,
    Object.keys(o.slo).length ? `SLO ${JSON.stringify(o.slo)}` : 'no SLO (goodput not computed)',
  ];
  const json = JSON.stringify(pageData(report)).replace(/</g, '\\u003c');
  const charts = ['ttft', 'tpot', 'e2el', 'throughput', 'ttft-dist', 'itl-dist', 'server'];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>serve bench ${escapeHtml(report.when)}</title>
<style>${css}
body { font: 14px system-ui, sans-serif; margin: 24px; color: #222; }
table { border-collapse: collapse; margin: 12px 0; } td, th { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
.chart { display: inline-block; margin: 8px 16px 8px 0; vertical-align: top; } .warn { color: #b00; }
</style></head><body>
<h1>LLM serving bench, ${escapeHtml(report.when)}</h1>
<ul>${about.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>
${report.warnings.map((w) => `<p class="warn">${escapeHtml(w)}</p>`).join('')}
${summaryTable(report)}
<p>Latency in ms. TTFT: sent → first output text; TPOT: (E2E − TTFT) ÷ (output tokens − 1); ITL: gaps between chunks with output text; E2E: sent → stream end; throughput over first send → last end. (est.): no usage from the server, tokens counted as chunks with text.</p>
${charts.map((id) => `<div class="chart" id="${id}"></div>`).join('\n')}
<script id="data" type="application/json">${json}</script>
<script>${js}</script>
<script>${DRAW}</script>
</body></html>
`;
}
