// The load scenarios: each starts its servers (the gateway, or --target, and the baselines),
// loads every one of them with the same client settings, and derives the figures in checks.ts.
import { loadavg } from 'node:os';
import { chatRequestBody, isStreamingNotServed, probe, simulatedSseEvents, splitSseEvents } from './chat-sample.js';
import { chatChecks, streamChecks, type Check } from './checks.js';
import { runDirectBackend, type DirectResult } from './direct-backend.js';
import type { LoadProgress } from './load-client.js';
import { ResourceSampler, type ServerResources } from './process-sampler.js';
import { runLoadInWorker } from './run-in-worker.js';
import { externalTarget, startBaseline, startGateway, type ServerUnderTest } from './servers.js';
import { medianRound, skippedResult, toTargetResult, type TargetResult } from './target-result.js';

/** Names of the load scenarios. */
export const SCENARIO_NAMES = ['chat', 'chat-latency', 'chat-stream', 'chat-stream-latency'] as const;

/** A load scenario's name. */
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/**
 * Baselines a scenario may run: bare uWS and node:http answering JSON, bare uWS writing SSE, bare
 * uWS fanning SSE out (session-fanout), the upload sink, bare uWS WebSockets (realtime-idle, realtime-active),
 * bare uWS holding SSE streams open (sse-hold).
 */
export type BaselineId =
  'uws' | 'node-http' | 'uws-sse' | 'uws-fanout' | 'uws-sink' | 'uws-ws-idle' | 'uws-ws-audio' | 'uws-sse-hold';

/** Settings shared by every run of a scenario (same client, same connections for every target). */
export interface LoadSettings {
  connections: number;
  durationMs: number;
  warmupMs: number;
  /** The *-latency scenarios: requests per second over all connections. */
  rate: number;
  /** Runs of each target, interleaved; rows show the median round by requests/s. */
  rounds: number;
  timeoutMs: number;
  /** Load a deployment instead of starting the gateway (baselines still start locally). */
  target: { url: string; token: string } | null;
  /** Run the gateway and baselines inside this process instead of as child processes. */
  inProcess: boolean;
  /** Baselines to run (default: all of the scenario's). */
  baselines?: BaselineId[];
  /** Send the same prompt every time (the gateway's response cache answers) instead of a unique one. */
  repeatPrompt?: boolean;
  /** Also time the sim backend called directly (default true). */
  direct?: boolean;
  onProgress?: (label: string, progress: LoadProgress) => void;
}

/** What one scenario measured. */
export interface ScenarioReport {
  scenario: ScenarioName;
  settings: {
    connections: number;
    durationS: number;
    warmupS: number;
    rate: number | null;
    rounds: number;
    target: string | null;
    inProcess: boolean;
    repeatPrompt: boolean;
  };
  rows: TargetResult[];
  direct: DirectResult | null;
  /** SSE events per stream the baseline wrote (streaming scenarios only). */
  chunks: number | null;
  checks: Check[];
}

interface PreparedTarget {
  name: string;
  role: TargetResult['role'];
  server: ServerUnderTest;
  mode: 'json' | 'sse';
  body: string;
}

async function measureOnce(target: PreparedTarget, settings: LoadSettings, paced: boolean): Promise<TargetResult> {
  const sampler =
    target.server.sample === null
      ? null
      : new ResourceSampler(target.server.sample === 'self' ? null : target.server.sample);
  const resources: { value: ServerResources | null } = { value: null };
  const stats = await runLoadInWorker(
    {
      url: `${target.server.url}/v1/chat/completions`,
      headers: target.server.token ? { authorization: `Bearer ${target.server.token}` } : {},
      body: target.body,
      mode: target.mode,
      connections: settings.connections,
      durationMs: settings.durationMs,
      warmupMs: settings.warmupMs,
      rate: paced ? settings.rate : null,
      maxRequests: null,
      timeoutMs: settings.timeoutMs,
    },
    (progress) => {
      if (progress.phase === 'measuring') sampler?.start();
      if (progress.phase === 'done') resources.value = sampler?.stop() ?? null;
      settings.onProgress?.(target.name, progress);
    },
  ).finally(() => {
    if (!resources.value) sampler?.stop(); // the worker failed mid-window: stop sampling anyway
  });
  return toTargetResult(target.name, target.role, stats, resources.value, loadavg()[0] ?? 0);
}

/** Loads every target in turn, `rounds` times interleaved (A B C A B C …), keeping median rounds. */
async function measureAll(targets: PreparedTarget[], settings: LoadSettings, paced: boolean): Promise<TargetResult[]> {
  const runs = targets.map(() => [] as TargetResult[]);
  for (let round = 0; round < Math.max(1, settings.rounds); round++) {
    for (const [index, target] of targets.entries()) runs[index]!.push(await measureOnce(target, settings, paced));
  }
  return runs.map(medianRound);
}

function describe(settings: LoadSettings, paced: boolean): ScenarioReport['settings'] {
  return {
    connections: settings.connections,
    durationS: settings.durationMs / 1000,
    warmupS: settings.warmupMs / 1000,
    rate: paced ? settings.rate : null,
    rounds: Math.max(1, settings.rounds),
    target: settings.target?.url ?? null,
    inProcess: settings.inProcess && !settings.target,
    repeatPrompt: settings.repeatPrompt === true,
  };
}

/** Starts what the scenario needs, runs `body`, and always stops what it started. */
async function withServers<T>(
  settings: LoadSettings,
  body: (ours: ServerUnderTest, start: (server: Promise<ServerUnderTest>) => Promise<ServerUnderTest>) => Promise<T>,
): Promise<T> {
  const started: ServerUnderTest[] = [];
  const start = async (server: Promise<ServerUnderTest>) => {
    const running = await server;
    started.push(running);
    return running;
  };
  try {
    const ours = await start(
      settings.target
        ? Promise.resolve(externalTarget(settings.target.url, settings.target.token))
        : startGateway({ inProcess: settings.inProcess }),
    );
    return await body(ours, start);
  } finally {
    await Promise.all(started.map((server) => server.close()));
  }
}

const wants = (settings: LoadSettings, id: BaselineId) => !settings.baselines || settings.baselines.includes(id);

async function directFigure(settings: LoadSettings, body: Record<string, unknown>): Promise<DirectResult | null> {
  if (settings.direct === false) return null;
  return runDirectBackend({
    body,
    durationMs: Math.min(settings.durationMs, 2000),
    warmupMs: Math.min(settings.warmupMs, 300),
  });
}

/** Non-streaming chat against the gateway, bare uWS and bare node:http; closed loop, or paced for chat-latency. */
async function runChat(scenario: 'chat' | 'chat-latency', settings: LoadSettings): Promise<ScenarioReport> {
  const paced = scenario === 'chat-latency';
  const body = chatRequestBody(false, { unique: !settings.repeatPrompt, simReply: !settings.target });
  const direct = paced ? null : await directFigure(settings, body);
  return withServers(settings, async (ours, start) => {
    const sample = await probe(ours.url, ours.token, body);
    if (sample.status !== 200)
      throw new Error(`${scenario}: the gateway's probe answered ${sample.status}: ${sample.text.slice(0, 300)}`);
    const json = { mode: 'json' as const, body: JSON.stringify(body) };
    const targets: PreparedTarget[] = [{ name: 'svc gateway', role: 'ours', server: ours, ...json }];
    if (wants(settings, 'uws'))
      targets.push({
        name: 'bare uWS',
        role: 'baseline',
        server: await start(startBaseline({ kind: 'uws-json', body: sample.text, inProcess: settings.inProcess })),
        ...json,
      });
    if (wants(settings, 'node-http') && !paced) {
      targets.push({
        name: 'bare node:http',
        role: 'baseline',
        server: await start(
          startBaseline({ kind: 'node-http-json', body: sample.text, inProcess: settings.inProcess }),
        ),
        ...json,
      });
    }
    const rows = await measureAll(targets, settings, paced);
    return {
      scenario,
      settings: describe(settings, paced),
      rows,
      direct,
      chunks: null,
      checks: chatChecks(rows, { paced }),
    };
  });
}

/** Streaming chat (SSE) against the gateway and a bare uWS server writing the same events; closed loop, or paced. */
async function runChatStream(
  scenario: 'chat-stream' | 'chat-stream-latency',
  settings: LoadSettings,
): Promise<ScenarioReport> {
  const paced = scenario === 'chat-stream-latency';
  const body = chatRequestBody(true, { unique: !settings.repeatPrompt, simReply: !settings.target });
  const direct = paced ? null : await directFigure(settings, body);
  return withServers(settings, async (ours, start) => {
    const sample = await probe(ours.url, ours.token, body);
    const streams = sample.status === 200 && sample.contentType.startsWith('text/event-stream');
    let skipped: TargetResult | null = null;
    if (!streams) {
      const note = isStreamingNotServed(sample)
        ? 'stream: true is not served yet (the gateway answers 400 invalid_request); run chat-stream again once it is'
        : `the probe answered ${sample.status} ${sample.contentType}: ${sample.text.slice(0, 200)}`;
      skipped = skippedResult('svc gateway', 'ours', isStreamingNotServed(sample) ? 'not-served' : 'failed', note);
    }
    // The baseline writes the gateway's own events; until the gateway streams, the events it would send.
    const events = streams ? splitSseEvents(sample.text) : await simulatedSseEvents(body);
    const sse = { mode: 'sse' as const, body: JSON.stringify(body) };
    const targets: PreparedTarget[] = streams ? [{ name: 'svc gateway', role: 'ours', server: ours, ...sse }] : [];
    if (wants(settings, 'uws-sse'))
      targets.push({
        name: 'bare uWS SSE',
        role: 'baseline',
        server: await start(startBaseline({ kind: 'uws-sse', events, inProcess: settings.inProcess })),
        ...sse,
      });
    const rows = await measureAll(targets, settings, paced);
    if (skipped) rows.unshift(skipped);
    return {
      scenario,
      settings: describe(settings, paced),
      rows,
      direct,
      chunks: events.length,
      checks: streamChecks(rows, events.length, { paced }),
    };
  });
}

/** Runs one load scenario by name. */
export function runScenario(name: ScenarioName, settings: LoadSettings): Promise<ScenarioReport> {
  return name === 'chat' || name === 'chat-latency' ? runChat(name, settings) : runChatStream(name, settings);
}
