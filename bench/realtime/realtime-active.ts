// The realtime-active scenario: N live calls at once, each caller saying a short sentence then
// pausing, over and over, in 20 ms appends at real time; the server hears every turn (VAD),
// transcribes it and speaks an answer at playback speed. Measures the relay latency of every
// output audio frame (receipt − the server's `svc_ts`), turn latency, frames in and out, drops,
// errors, and the server's CPU and RSS; beside a bare uWS server streaming the same frames.
import type { LatencySummary } from '../load/histogram.js';
import { Histogram } from '../load/histogram.js';
import type { ServerResources } from '../load/process-sampler.js';
import { measureOursThenBaseline, type ServerUnderTest } from '../load/servers.js';
import type { ActiveStats } from './active-client.js';
import type { TurnCounts } from './call-events.js';
import { ErrorTally } from './error-tally.js';
import { assertFilesFor } from './open-files-limit.js';
import { startRealtimeWorkers } from './realtime-workers.js';
import { serverSampler, shares } from './server-readings.js';
import { buildSpeechLoop, INPUT_FRAME_MS, type SpeechLoop } from './speech-loop.js';
import type { ThreadLoad } from './thread-meter.js';

/** The scenario's name on the command line. */
export const ACTIVE_SCENARIO = 'realtime-active';

/** What each caller says: about 1.1 s in the sim's voice; not a farewell, so calls never end. */
const SENTENCE = 'Tell me more.';
/** Silence after each sentence: the VAD's 500 ms to end the turn, and a breath. */
const SILENCE_MS = 700;
/**
 * The answers: the sim echoes the sentence ("On: Tell me more", about 1.3 s spoken) and stops at
 * 5 tokens. Barge-in is off (interrupt_response: false), so each answer is spoken whole while the
 * caller goes on; at 1.3 s it ends before the next turn is committed, so turns never queue and
 * output is steady. With barge-in on, the next sentence would cut each answer 0.2 s in.
 */
const SESSION_UPDATE = {
  max_output_tokens: 5,
  audio: { input: { turn_detection: { type: 'server_vad', interrupt_response: false } } },
};

/** Settings of realtime-active. */
export interface ActiveSettings {
  calls: number;
  durationMs: number;
  /** Streaming before the window (default: two cycles of the loop, so every call's first turn is over). */
  rampMs?: number;
  /** Calls being opened at once (over all client threads). */
  concurrency: number;
  callTimeoutMs: number;
  clientThreads: number;
  inProcess: boolean;
  target: { url: string; token: string } | null;
  /** Also run the bare uWS baseline (default true). */
  baseline?: boolean;
  /** Interleaved rounds (gateway, baseline, gateway, baseline …); each target's median round is its row (default 1). */
  rounds?: number;
  onStep?: (text: string) => void;
}

/** One target's live calls. */
export interface ActiveRow {
  name: string;
  role: 'ours' | 'baseline';
  calls: number;
  opened: number;
  configured: number;
  windowS: number;
  framesInPerSecond: number;
  framesOutPerSecond: number;
  /** Sentences whose last frame was sent inside the window. */
  utterances: number;
  turns: TurnCounts;
  relayMs: LatencySummary;
  /** Smallest raw receipt − svc_ts (below 0: the clocks of client and server disagree). */
  relayMinMs: number | null;
  turnAfterStopMs: LatencySummary;
  turnAfterSpeechMs: LatencySummary;
  sendLagMs: LatencySummary;
  droppedFrames: number;
  errors: Record<string, number>;
  errorSamples: Record<string, string>;
  server: ServerResources | null;
  clients: ThreadLoad[];
  clockOffsetMs: number[];
  /** Every round's headline figures, in order (one entry when one round ran). */
  rounds: ActiveRoundFigures[];
}

/** The figures one round of one target gave. */
export interface ActiveRoundFigures {
  relayP99Ms: number | null;
  firstAudioP99Ms: number | null;
  serverCpuPercent: number | null;
  /** All server CPU in the window ÷ the input frames taken in it, µs (see cpuUsPerInputFrame). */
  cpuUsPerInputFrame: number | null;
}

/** What realtime-active measured. */
export interface ActiveReport {
  scenario: typeof ACTIVE_SCENARIO;
  settings: Omit<ActiveSettings, 'target' | 'onStep' | 'rampMs' | 'rounds'> & {
    rounds: number;
    target: string | null;
    rampMs: number;
    sentence: string;
    speechMs: number;
    silenceMs: number;
    sessionUpdate: Record<string, unknown>;
  };
  rows: ActiveRow[];
}

function merge(name: string, role: ActiveRow['role'], all: ActiveStats[], server: ServerResources | null): ActiveRow {
  const hist = (pick: (stats: ActiveStats) => Parameters<Histogram['merge']>[0]) => {
    const merged = new Histogram();
    for (const stats of all) merged.merge(pick(stats));
    return merged.summary();
  };
  const errors = new ErrorTally();
  const turns: TurnCounts = {
    speechStarted: 0,
    speechStopped: 0,
    transcribed: 0,
    responsesCreated: 0,
    responsesDone: {},
  };
  for (const stats of all) {
    errors.merge(stats.errors);
    turns.speechStarted += stats.turns.speechStarted;
    turns.speechStopped += stats.turns.speechStopped;
    turns.transcribed += stats.turns.transcribed;
    turns.responsesCreated += stats.turns.responsesCreated;
    for (const [status, n] of Object.entries(stats.turns.responsesDone))
      turns.responsesDone[status] = (turns.responsesDone[status] ?? 0) + n;
  }
  const sum = (pick: (stats: ActiveStats) => number) => all.reduce((total, stats) => total + pick(stats), 0);
  const windowS = Math.max(0.001, Math.max(...all.map((stats) => stats.windowMs)) / 1000);
  const mins = all.map((stats) => stats.relayMinMs).filter((v): v is number => v !== null);
  return {
    name,
    role,
    calls: sum((s) => s.calls),
    opened: sum((s) => s.opened),
    configured: sum((s) => s.configured),
    windowS: Math.round(windowS * 10) / 10,
    framesInPerSecond: Math.round(sum((s) => s.framesIn) / windowS),
    framesOutPerSecond: Math.round(sum((s) => s.framesOut) / windowS),
    utterances: sum((s) => s.utterances),
    turns,
    relayMs: hist((s) => s.relayMs),
    relayMinMs: mins.length ? Math.min(...mins) : null,
    turnAfterStopMs: hist((s) => s.turnAfterStopMs),
    turnAfterSpeechMs: hist((s) => s.turnAfterSpeechMs),
    sendLagMs: hist((s) => s.sendLagMs),
    droppedFrames: sum((s) => s.droppedFrames),
    errors: errors.data.counts,
    errorSamples: errors.data.samples,
    server,
    clients: all.map((stats) => stats.client),
    clockOffsetMs: all.map((stats) => stats.clockOffsetMs),
    rounds: [],
  };
}

/** Server CPU in the window over the input frames it took, µs: everything the server did is charged to the frames, so this bounds the per-frame cost from above. */
export function cpuUsPerInputFrame(row: Pick<ActiveRow, 'server' | 'framesInPerSecond'>): number | null {
  if (!row.server || row.framesInPerSecond <= 0) return null;
  return Math.round(((row.server.cpuPercent / 100) * 1_000_000) / row.framesInPerSecond);
}

function figuresOf(row: ActiveRow): ActiveRoundFigures {
  return {
    relayP99Ms: row.relayMs.count ? row.relayMs.p99 : null,
    firstAudioP99Ms: row.turnAfterStopMs.count ? row.turnAfterStopMs.p99 : null,
    serverCpuPercent: row.server?.cpuPercent ?? null,
    cpuUsPerInputFrame: cpuUsPerInputFrame(row),
  };
}

/** A target's rows of every round as one: its median round by CPU per input frame, with every round's figures. */
function medianRound(rows: ActiveRow[]): ActiveRow {
  const key = (row: ActiveRow) => cpuUsPerInputFrame(row) ?? Number.POSITIVE_INFINITY;
  const sorted = [...rows].sort((a, b) => key(a) - key(b));
  return { ...sorted[Math.floor((sorted.length - 1) / 2)]!, rounds: rows.map(figuresOf) };
}

/** Opens the calls on `server`, streams the loop into them through the ramp and the window, and merges what the clients saw. */
async function measure(
  server: ServerUnderTest,
  name: string,
  role: ActiveRow['role'],
  s: ActiveSettings,
  loop: SpeechLoop,
  rampMs: number,
): Promise<ActiveRow> {
  const step = (text: string) => s.onStep?.(`${ACTIVE_SCENARIO}: ${name}: ${text}`);
  const parts = shares(s.calls, s.clientThreads);
  const openDeadlineMs = Math.max(30_000, s.calls * 20);
  const target = { url: server.url, token: server.token };
  const workers = startRealtimeWorkers<ActiveStats>(
    parts.map((part) => ({
      kind: 'active' as const,
      options: {
        target,
        calls: part.count,
        firstIndex: part.first,
        totalCalls: s.calls,
        concurrency: Math.max(1, Math.round(s.concurrency / parts.length)),
        callTimeoutMs: s.callTimeoutMs,
        openDeadlineMs,
        sessionUpdate: SESSION_UPDATE,
        loop,
        rampMs,
        durationMs: s.durationMs,
      },
    })),
    openDeadlineMs + 2 * s.callTimeoutMs + rampMs + s.durationMs + 60_000,
  );
  const sampler = serverSampler(server);
  try {
    const opened = await workers.reached('opened');
    step(
      `${opened.reduce((total, report) => total + (report.data.configured ?? 0), 0).toLocaleString('en-US')} calls open and configured; streaming (${rampMs / 1000} s ramp, then ${s.durationMs / 1000} s measured)`,
    );
    workers.command('start');
    await workers.reached('measuring');
    sampler?.start();
    await workers.reached('measured');
    const resources = sampler?.stop() ?? null;
    return merge(name, role, await workers.results, resources);
  } finally {
    sampler?.stop();
    workers.stop();
  }
}

/** Runs realtime-active on the gateway (or --target), then on the bare uWS audio baseline. */
export async function runRealtimeActive(s: ActiveSettings): Promise<ActiveReport> {
  assertFilesFor(s.calls, ACTIVE_SCENARIO);
  const loop = await buildSpeechLoop(SENTENCE, SILENCE_MS);
  const rampMs = s.rampMs ?? 2 * loop.cycleMs;
  const rounds = Math.max(1, s.rounds ?? 1);
  const all: ActiveRow[][] = [];
  for (let round = 1; round <= rounds; round++) {
    if (rounds > 1) s.onStep?.(`${ACTIVE_SCENARIO}: round ${round} of ${rounds}`);
    all.push(
      await measureOursThenBaseline(
        {
          target: s.target,
          inProcess: s.inProcess,
          gatewayEnv: { SVC_SIM_SPEECH_REALTIME: 'true' },
          baseline:
            s.baseline !== false ? { server: { kind: 'uws-ws-audio' }, name: 'bare uWS WebSocket audio' } : null,
        },
        (server, rowName, role) => measure(server, rowName, role, s, loop, rampMs),
      ),
    );
  }
  const rows = all[0]!.map((first) =>
    medianRound(all.map((round) => round.find((row) => row.name === first.name) ?? first)),
  );
  const settings = {
    calls: s.calls,
    durationMs: s.durationMs,
    concurrency: s.concurrency,
    callTimeoutMs: s.callTimeoutMs,
    clientThreads: s.clientThreads,
    inProcess: s.inProcess,
    baseline: s.baseline !== false,
    rounds,
  };
  return {
    scenario: ACTIVE_SCENARIO,
    settings: {
      ...settings,
      target: s.target?.url ?? null,
      rampMs,
      sentence: SENTENCE,
      speechMs: loop.speech.length * INPUT_FRAME_MS,
      silenceMs: loop.silenceFrames * INPUT_FRAME_MS,
      sessionUpdate: SESSION_UPDATE,
    },
    rows,
  };
}
