// Part 3 of the cluster scenario: takeover after a SIGKILL.
import { setTimeout as sleep } from 'node:timers/promises';
import { callJson, createAccount, followSession, type FollowedEvent } from './cluster-http.js';
import type { GatewayProcess } from './cluster-processes.js';
import { round } from './figures.js';
import type { ClusterSettings } from './cluster-scenario.js';

export interface TakeoverRun {
  /** SIGKILL → the reconnected follower on node 2 receives the next event. */
  nextEventMs: number | null;
  nextEventType: string | null;
  /** SIGKILL → node 2's GET /admin/v1/cluster shows node 1 `down`. */
  downMs: number | null;
  /** SIGKILL → node 2's view lists the session under a live node (null: not seen while it ran). */
  movedMs: number | null;
  movedTo: string | null;
  /** The session's state once its stream ended. */
  finalState: string | null;
  /** The follower saw every seq once across the kill (1 … last). */
  gapFree: boolean;
  /** Event streams the follower opened on node 2 after the kill. */
  reconnects: number;
  error: string | null;
}

/** Part 3: takeover after a SIGKILL. */
export interface TakeoverReport {
  leaseMs: number;
  /**
   * Times a node of the 3-node cluster exited fenced (code 3) without being killed by the bench:
   * at boot (started again, up to 3 tries) or during the run. 0 on a quiet machine.
   */
  fencedExits: number;
  runs: TakeoverRun[];
  median: { nextEventMs: number | null; downMs: number | null; movedMs: number | null };
}

/** What the cluster scenario measured. */

async function watchTakeover(
  watcher: GatewayProcess,
  dead: string,
  sessionId: string,
  killedAt: number,
  until: Promise<unknown>,
) {
  let downMs: number | null = null;
  let movedMs: number | null = null;
  let movedTo: string | null = null;
  let finished = false;
  void until.finally(() => (finished = true));
  const deadline = killedAt + 60_000;
  while (performance.now() < deadline && (downMs === null || movedMs === null)) {
    const view = await callJson(watcher.url, 'GET', '/admin/v1/cluster', watcher.adminKey, undefined, 5_000).catch(
      () => null,
    );
    const at = performance.now() - killedAt;
    const nodes = (view?.body?.nodes ?? []) as { id: string; state: string; actors: { id: string }[] }[];
    if (downMs === null && nodes.some((node) => node.id === dead && node.state === 'down')) downMs = round(at, 1);
    const owner = nodes.find(
      (node) => node.id !== dead && node.state === 'up' && node.actors.some((actor) => actor.id === sessionId),
    );
    if (movedMs === null && owner) {
      movedMs = round(at, 1);
      movedTo = owner.id;
    }
    // Once the session has ended it is no longer listed: stop looking for it, keep looking for `down`.
    if (finished && movedMs === null && downMs !== null) break;
    await sleep(50);
  }
  return { downMs, movedMs, movedTo };
}

/** Waits until `watcher` sees node `id` up and heard from (a restarted node has rejoined). */
export async function waitRejoined(watcher: GatewayProcess, id: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const view = await callJson(watcher.url, 'GET', '/admin/v1/cluster', watcher.adminKey).catch(() => null);
    const node = (view?.body?.nodes ?? []).find((n: { id: string }) => n.id === id);
    if (node?.state === 'up' && node.heard_ms_ago !== null) return;
    await sleep(100);
  }
  throw new Error(`node ${id} did not rejoin within ${timeoutMs} ms`);
}

/** One takeover: a slow session on node 1, followed on node 2; SIGKILL node 1 once it drafts; reconnect on node 2. */
export async function takeoverOnce(g1: GatewayProcess, g2: GatewayProcess, s: ClusterSettings): Promise<TakeoverRun> {
  const account = await createAccount(g1.url, g1.adminKey);
  const created = await callJson(g1.url, 'POST', '/v1/chat/sessions', account.token, {
    model: 'pro-1',
    messages: [{ role: 'user', content: `Explain the cluster to me ${Math.random().toString(36).slice(2, 8)}` }],
    max_tokens: 80,
    metadata: { sim: { tokens_per_s: 25 } },
  });
  if (created.status !== 201)
    throw new Error(`session not created on node 1: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
  const id = created.body.id as string;
  const seen: FollowedEvent[] = [];
  const before = await followSession(g2.url, id, account.token, 0, {
    timeoutMs: s.timeoutMs,
    onEvent: (event) => {
      seen.push(event);
      return event.type === 'phase' && event.data.phase === 'drafting' ? 'stop' : undefined;
    },
  });
  if (!before.stopped)
    throw new Error(
      `the session did not reach drafting on node 1 (${before.status} ${before.error ?? ''}: ${seen.map((e) => e.type).join(',')})`,
    );

  const killedAt = performance.now();
  await g1.kill('SIGKILL');
  let nextEventMs: number | null = null;
  let nextEventType: string | null = null;
  let reconnects = 0;
  let error: string | null = null;
  const follow = (async () => {
    const deadline = killedAt + Math.max(30_000, 10 * s.leaseMs);
    while (performance.now() < deadline) {
      const last = seen.at(-1)?.seq ?? 0;
      reconnects++;
      const result = await followSession(g2.url, id, account.token, last, {
        timeoutMs: s.timeoutMs,
        onEvent: (event) => {
          if (nextEventMs === null) {
            nextEventMs = round(performance.now() - killedAt, 1);
            nextEventType = event.type;
          }
          seen.push(event);
        },
      });
      if (
        result.status === 200 &&
        result.ended &&
        ['completed', 'failed', 'cancelled', 'expired'].includes(seen.at(-1)?.type ?? '')
      )
        return;
      await sleep(100);
    }
    error = 'the session did not end on node 2 in time';
  })();
  const watched = await watchTakeover(g2, g1.id, id, killedAt, follow);
  await follow;
  const state = await callJson(g2.url, 'GET', `/v1/chat/sessions/${id}`, account.token).catch(() => null);
  const seqs = seen.map((event) => event.seq);
  return {
    nextEventMs,
    nextEventType,
    ...watched,
    finalState: (state?.body?.state as string | undefined) ?? null,
    gapFree: seqs.every((seq, i) => seq === i + 1),
    reconnects,
    error,
  };
}

/**
 * Starts a node of the cluster. A node that is fenced while it boots (the others heard no
 * heartbeat for a lease: on a loaded machine its start-up can hold its event loop that long after
 * it joined) exits with code 3; it is started again, as an operator's supervisor would, up to 3 tries.
 */
