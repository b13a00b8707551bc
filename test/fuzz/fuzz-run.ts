import type { App } from '../../http/app.js';
import { allRoutes } from '../../http/routes/index.js';
import { runCampaign, missedTargets, type FuzzResult } from './fuzz-campaign.js';
import { createFixtures } from './fuzz-fixtures.js';
import { checkHealthAfter, type SessionSettler } from './health-after.js';
import type { FuzzPlan, FuzzRoute } from './hostile-request.js';
import { createSender } from './send-request.js';

/** Options of {@link fuzzApp}. */
export interface FuzzRunOptions {
  app: App;
  port: number;
  adminKey: string;
  seed: number;
  count: number;
  concurrency?: number;
  /** Per-request bound (default 10 s): a request that takes longer is a failure. */
  timeoutMs?: number;
  /** Replay only these request indexes. */
  only?: readonly number[];
  /** Waits until a session holds no money; without it sessions are cancelled but not awaited. */
  settle?: SessionSettler;
  onResponse?: (done: number, total: number) => void;
}

/** What one run found: the campaign's result, routes never aimed at, and problems seen after it. */
export interface FuzzRunReport {
  plan: FuzzPlan;
  result: FuzzResult;
  missed: string[];
  health: string[];
}

/** The API's routes as the fuzzer sees them, taken from the app itself so new routes are covered. */
export function routesOf(app: App): FuzzRoute[] {
  return allRoutes(app.deps).map((route) => ({
    method: route.method,
    path: route.path,
    auth: route.auth,
    ...(route.maxBodyBytes !== undefined && { maxBodyBytes: route.maxBodyBytes }),
  }));
}

/** Sets up accounts and resources on a running app, fuzzes every route, then checks the server is healthy. */
export async function fuzzApp(options: FuzzRunOptions): Promise<FuzzRunReport> {
  const concurrency = options.concurrency ?? 8;
  const sender = createSender({
    host: '127.0.0.1',
    port: options.port,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxSockets: concurrency,
  });
  try {
    const fixtures = await createFixtures(sender, options.adminKey);
    const plan: FuzzPlan = {
      seed: options.seed,
      routes: routesOf(options.app),
      fixtures,
      maxBodyBytes: options.app.deps.config.SVC_MAX_BODY_BYTES,
    };
    const secrets = {
      adminKey: options.adminKey,
      tokens: [
        fixtures.primary.token,
        fixtures.primary.session,
        fixtures.other.token,
        fixtures.other.session,
        fixtures.spareToken.value,
        ...fixtures.spareSessions,
      ],
    };
    const result = await runCampaign({
      plan,
      sender,
      secrets,
      count: options.count,
      concurrency,
      ...(options.only && { only: options.only }),
      ...(options.onResponse && { onResponse: options.onResponse }),
    });
    const health = await checkHealthAfter(sender, fixtures, options.settle);
    return { plan, result, missed: options.only ? [] : missedTargets(plan, result), health };
  } finally {
    sender.close();
  }
}
