// Part 2 of the cluster scenario: cross-node delivery latency, direct against forwarded.
import { Histogram, type LatencySummary } from '../load/histogram.js';
import { callJson, createAccount, followSession, type FollowedEvent } from './cluster-http.js';
import type { GatewayProcess } from './cluster-processes.js';
import { ratio } from './figures.js';
import type { ClusterSettings } from './cluster-scenario.js';

export interface CrossNodeReport {
  sessions: number;
  lanes: number;
  /** What the latency is: receive time − the event's server `ts` (epoch ms, same machine clock). */
  method: 'receive − event ts';
  /** Whether the cluster view on node 2 listed a session of the account under node 1 (its home). */
  homeOnNode1: boolean;
  /** Live events measured per follower (those after approval). */
  events: number;
  /** Events one follower got and the other did not (should be 0). */
  unmatched: number;
  direct: LatencySummary;
  forwarded: LatencySummary;
  /** Per event: node-2 follower's receive time − node-1 follower's (a negative gap counts as 0). */
  added: LatencySummary;
  /** Events the node-2 follower received before the node-1 follower did. */
  forwardedFirst: number;
  ratio: { p50: number; p99: number };
  errors: string[];
}

/** One SIGKILL of node 1 with a session running there. */

function seqReached(timeoutMs: number): {
  seen: (event: FollowedEvent) => void;
  ready: (seq: number) => Promise<void>;
} {
  let last = 0;
  const waiters: { seq: number; resolve: () => void }[] = [];
  return {
    seen: (event) => {
      last = Math.max(last, event.seq);
      for (const waiter of waiters.filter((w) => w.seq <= last)) waiter.resolve();
    },
    ready: (seq) =>
      new Promise<void>((resolve, reject) => {
        if (last >= seq) return resolve();
        const timer = setTimeout(() => reject(new Error(`no event ${seq} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ seq, resolve: () => (clearTimeout(timer), resolve()) });
      }),
  };
}

/** Part 2: sessions of an account homed on node 1, each followed on node 1 and on node 2 at once. */
export async function measureCrossNode(
  home: GatewayProcess,
  other: GatewayProcess,
  s: ClusterSettings,
): Promise<CrossNodeReport> {
  const account = await createAccount(home.url, home.adminKey);
  // The account's first request lands on node 1: node 1 becomes its home.
  const first = await callJson(home.url, 'GET', '/v1/account', account.token);
  if (first.status !== 200)
    throw new Error(`first request on node 1 failed: ${first.status} ${JSON.stringify(first.body)}`);
  const direct = new Histogram();
  const forwarded = new Histogram();
  const added = new Histogram();
  const errors: string[] = [];
  let unmatched = 0;
  let forwardedFirst = 0;
  let homeOnNode1 = false;
  let next = 0;
  const readySeq = 2; // created, awaiting_approval: the history before approval
  const run = Math.random().toString(36).slice(2, 8);

  const oneSession = async (n: number) => {
    const created = await callJson(home.url, 'POST', '/v1/chat/sessions', account.token, {
      model: 'pro-1',
      messages: [{ role: 'user', content: `Cross-node probe ${run}-${n}` }],
      max_tokens: 16,
      require_approval: true,
      metadata: { sim: { tokens_per_s: 200 } },
    });
    if (created.status !== 201)
      throw new Error(`session not created: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    const id = created.body.id as string;
    if (n === 0) {
      const view = await callJson(other.url, 'GET', '/admin/v1/cluster', other.adminKey);
      homeOnNode1 = Boolean(
        view.body?.nodes
          ?.find((node: { id: string }) => node.id === home.id)
          ?.actors?.some((actor: { id: string }) => actor.id === id),
      );
    }
    const onHome = seqReached(s.timeoutMs);
    const onOther = seqReached(s.timeoutMs);
    const followHome = followSession(home.url, id, account.token, 0, { onEvent: onHome.seen, timeoutMs: s.timeoutMs });
    const followOther = followSession(other.url, id, account.token, 0, {
      onEvent: onOther.seen,
      timeoutMs: s.timeoutMs,
    });
    await Promise.all([onHome.ready(readySeq), onOther.ready(readySeq)]);
    const approved = await callJson(home.url, 'POST', `/v1/chat/sessions/${id}/approve`, account.token);
    if (approved.status !== 200)
      throw new Error(`approve failed: ${approved.status} ${JSON.stringify(approved.body).slice(0, 300)}`);
    const [a, b] = await Promise.all([followHome, followOther]);
    for (const [name, result] of [
      ['node 1', a],
      ['node 2', b],
    ] as const) {
      if (result.error || !result.ended)
        errors.push(`${name} follower of ${id}: ${result.status} ${result.error ?? 'stream did not end'}`);
    }
    const onTwo = new Map(b.events.map((event) => [event.seq, event]));
    for (const event of a.events) {
      if (event.seq <= readySeq) continue;
      direct.record(event.at - event.ts);
      const twin = onTwo.get(event.seq);
      if (!twin) {
        unmatched++;
        continue;
      }
      added.record(twin.at - event.at);
      if (twin.at < event.at) forwardedFirst++;
    }
    const onOne = new Set(a.events.map((event) => event.seq));
    for (const event of b.events) {
      if (event.seq <= readySeq) continue;
      forwarded.record(event.at - event.ts);
      if (!onOne.has(event.seq)) unmatched++;
    }
  };

  const lane = async () => {
    for (let n = next++; n < s.crossSessions; n = next++) {
      try {
        await oneSession(n);
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
  };
  // The first session alone (it checks the home), then the rest in lanes.
  next = 1;
  try {
    await oneSession(0);
  } catch (err) {
    errors.push(err instanceof Error ? err.message : String(err));
  }
  await Promise.all(Array.from({ length: s.crossLanes }, lane));
  const d = direct.summary();
  const f = forwarded.summary();
  return {
    sessions: s.crossSessions,
    lanes: s.crossLanes,
    method: 'receive − event ts',
    homeOnNode1,
    events: d.count,
    unmatched,
    direct: d,
    forwarded: f,
    added: added.summary(),
    forwardedFirst,
    ratio: { p50: ratio(f.p50, d.p50), p99: ratio(f.p99, d.p99) },
    errors: errors.slice(0, 10),
  };
}

/** Polls node `watcher`'s cluster view until `dead` is down and the session is listed under a live node (or `until` settles). */
