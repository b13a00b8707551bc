import { checkResponse, type Secrets } from './check-response.js';
import { buildRequest, EXTRA_TARGETS, type FuzzPlan, type FuzzRequest } from './hostile-request.js';
import type { Sender, WireResponse } from './send-request.js';

/** A request whose response broke a property, with all that is needed to reproduce it. */
export interface FuzzFailure {
  seed: number;
  request: FuzzRequest;
  response: WireResponse;
  problems: string[];
}

/** What a run saw: counts by status and target, and every failure. */
export interface FuzzResult {
  seed: number;
  sent: number;
  byStatus: Map<string, number>;
  /** Requests sent per target (`METHOD /pattern` or a pseudo-target). */
  hits: Map<string, number>;
  /** Statuses per target, to see which handlers were really reached. */
  statusByTarget: Map<string, Map<string, number>>;
  failures: FuzzFailure[];
  /** Requests that found their kept-alive socket closed under them, then got an answer on a new one. */
  staleSockets: { index: number; previous: number | null; error: string }[];
}

/** Options of {@link runCampaign}. */
export interface CampaignOptions {
  plan: FuzzPlan;
  sender: Sender;
  secrets: Secrets;
  count: number;
  concurrency: number;
  /** Only these indexes (replaying a failure); all of 0..count-1 when absent. */
  only?: readonly number[];
  /** Called after each response, for progress lines. */
  onResponse?: (done: number, total: number) => void;
}

/** A response that is a socket found closed before anything came back on a reused connection. */
function isStaleSocket(res: WireResponse): boolean {
  return res.status === null && res.reusedSocket && /ECONNRESET|socket hang up|EPIPE/.test(res.error ?? '');
}

/** Sends `count` generated requests, `concurrency` at a time, and checks every response. */
export async function runCampaign(options: CampaignOptions): Promise<FuzzResult> {
  const { plan, sender, secrets } = options;
  const indexes = options.only ?? Array.from({ length: options.count }, (_, i) => i);
  const result: FuzzResult = {
    seed: plan.seed,
    sent: 0,
    byStatus: new Map(),
    hits: new Map(),
    failures: [],
    staleSockets: [],
    statusByTarget: new Map(),
  };
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  let next = 0;

  const one = async (index: number) => {
    const request = buildRequest(plan, index);
    let response = await sender.send(request.wire);
    if (isStaleSocket(response)) {
      // Either this request made the server drop the connection (then it fails again on a new one)
      // or the server had closed a kept-alive connection without saying so after the one before.
      const first = response;
      response = await sender.send({ ...request.wire, fresh: true });
      if (response.status !== null)
        result.staleSockets.push({ index, previous: first.previousTag, error: first.error ?? '' });
    }
    result.sent++;
    bump(result.hits, request.target);
    const status = response.status === null ? 'none' : String(response.status);
    bump(result.byStatus, status);
    if (!result.statusByTarget.has(request.target)) result.statusByTarget.set(request.target, new Map());
    bump(result.statusByTarget.get(request.target)!, status);
    const problems = checkResponse(response, secrets, request.wire.method, request.target);
    if (problems.length > 0) result.failures.push({ seed: plan.seed, request, response, problems });
    options.onResponse?.(result.sent, indexes.length);
  };

  const worker = async () => {
    while (next < indexes.length) await one(indexes[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, indexes.length)) }, worker));
  result.failures.sort((a, b) => a.request.index - b.request.index);
  return result;
}

/** Targets of the plan that no request aimed at. */
export function missedTargets(plan: FuzzPlan, result: FuzzResult): string[] {
  const targets = [...plan.routes.map((route) => `${route.method} ${route.path}`), ...EXTRA_TARGETS];
  return targets.filter((target) => !result.hits.has(target));
}
