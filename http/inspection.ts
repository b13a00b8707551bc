import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../runtime/clock.js';
import type { ActorHost } from '../runtime/host/actor-host.js';
import { ActorInspector, statePaths } from '../runtime/host/actor-inspector.js';
import { Metrics, type MetricSources } from '../runtime/metrics.js';
import { SOURCE_ROOT } from '../runtime/source-root.js';
import { loadStaticAssets, type StaticAsset } from '../runtime/static-assets.js';
import { SseWriter } from './sse-writer.js';

/** The operator's tools: the actor inspector, its page and the metrics. */
export interface Inspection {
  inspector: ActorInspector;
  metrics: Metrics;
  /** The page's files by the name /inspector/:file serves them under (`index.html` at /inspector). */
  assets: ReadonlyMap<string, StaticAsset>;
  /** The node actors run on (this process's host name until cluster mode names nodes). */
  node: string;
}

const PAGE_DIR = join(SOURCE_ROOT, 'http', 'inspector', '/');
const PAGE_FILES = [
  'index.html',
  'inspector.css',
  'main.js',
  'api.js',
  'actor-list.js',
  'actor-view.js',
  'chart.js',
  'tree.js',
];

/** The page's files: its plain ES modules, and elkjs (the layout library) straight from node_modules. */
function pageFiles(): Record<string, string> {
  const files = Object.fromEntries(PAGE_FILES.map((name) => [name, PAGE_DIR + name]));
  files['elk.js'] = createRequire(import.meta.url).resolve('elkjs/lib/elk.bundled.js');
  return files;
}

/** What the metrics read of the actor host: actors in memory by state, parked ones by machine, transitions. */
export function hostMetricSources(host: ActorHost): Pick<MetricSources, 'actors' | 'parkedActors' | 'transitions'> {
  return {
    *actors() {
      for (const record of host.loadedRecords())
        yield { machine: record.machine, state: statePaths((record.snapshot as { value?: unknown } | null)?.value) };
    },
    parkedActors: () => host.parkedByMachine(),
    transitions: () => host.transitions,
  };
}

/** Builds the inspector and the metrics over `host`; the page is read once here, at start. */
export function createInspection(host: ActorHost, clock: Clock, options: { withPage: boolean }): Inspection {
  const inspector = new ActorInspector(host, clock);
  const metrics = new Metrics({
    ...hostMetricSources(host),
    sseStreams: () => SseWriter.openCount,
    realtimeCalls: () => host.registry.list('realtime-call').length,
  });
  const assets = options.withPage ? loadStaticAssets(pageFiles()) : new Map<string, StaticAsset>();
  return { inspector, metrics, assets, node: hostname() };
}
