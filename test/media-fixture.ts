import type { TestServer } from './harness.js';

/** A ledger entry as `/v1/account/usage` lists it. */
export interface UsageEntry {
  type: string;
  amount_usd: number;
  description: string;
}

/** The account's recent charges (newest first). */
export async function charges(server: TestServer, token: string): Promise<UsageEntry[]> {
  const usage = await server.request('GET', '/v1/account/usage', { token });
  return (usage.body.recent as UsageEntry[]).filter((entry) => entry.type === 'charge');
}

/** The account's balance and held amount in micro-USD. */
export async function money(server: TestServer, token: string): Promise<{ balance: number; held: number }> {
  const account = await server.request('GET', '/v1/account', { token });
  return { balance: Math.round(account.body.balance_usd * 1e6), held: Math.round(account.body.held_usd * 1e6) };
}

/** USD on the wire as micro-USD. */
export const micros = (usd: number) => Math.round(usd * 1e6);

/** Settings that make a server use another svc (`upstream`, with `token`) as its OpenAI-compatible image and video upstream. */
export function svcUpstreamEnv(
  upstream: TestServer,
  token: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SVC_UPSTREAM_BASE_URL: `${upstream.url}/v1`,
    SVC_UPSTREAM_API_KEY: token,
    SVC_UPSTREAM_IMAGE_MODEL: 'pro-1',
    SVC_UPSTREAM_VIDEO_MODEL: 'pro-1',
    ...extra,
  };
}
