import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { buildApp, type App } from '../http/app.js';
import type { Clock } from '../runtime/clock.js';
import { loadConfig } from '../runtime/config.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

/** A fresh temporary data directory. */
export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-test-'));
}

/** A test account: its ids, an API token and a session token. */
export interface TestAccount {
  id: string;
  email: string;
  password: string;
  token: string;
  tokenId: string;
  session: string;
}

/** A running in-process server on an ephemeral loopback port. */
export interface TestServer {
  app: App;
  url: string;
  dataDir: string;
  /** fetch relative to the server, JSON body in and parsed JSON out. */
  request(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; raw?: string | Buffer; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: any }>;
  /** Creates an account with `creditUsd` through the admin API and logs it in. */
  account(creditUsd?: number): Promise<TestAccount>;
  /** The official SDK pointed at this server. */
  openai(token: string, options?: { maxRetries?: number }): OpenAI;
  close(): Promise<void>;
}

let accountCounter = 0;

/** Starts the real server (uWS, LMDB in a temp directory, sim backend), on `options.clock` when given. */
export async function startServer(
  env: Record<string, string> = {},
  options: { clock?: Clock } = {},
): Promise<TestServer> {
  const dataDir = env.SVC_DATA_DIR ?? tempDataDir();
  const config = loadConfig({
    PORT: '0',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_KEY: ADMIN_KEY,
    SVC_LOG_LEVEL: 'silent',
    ...env,
  });
  const app = buildApp(config, { clock: options.clock });
  const port = await app.listen();
  const url = `http://127.0.0.1:${port}`;

  const request: TestServer['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Buffer | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON; keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };

  return {
    app,
    url,
    dataDir,
    request,
    async account(creditUsd = 10) {
      const email = `user${++accountCounter}-${process.pid}@example.com`;
      const password = 'correct horse battery';
      const created = await request('POST', '/admin/v1/accounts', {
        token: ADMIN_KEY,
        body: creditUsd > 0 ? { email, password, credit_usd: creditUsd } : { email, password },
      });
      if (created.status !== 201) throw new Error(`account creation failed: ${JSON.stringify(created.body)}`);
      const login = await request('POST', '/v1/auth/login', { body: { email, password } });
      return {
        id: created.body.account.id,
        email,
        password,
        token: created.body.api_token.token,
        tokenId: created.body.api_token.id,
        session: login.body.token,
      };
    },
    openai: (token, options = {}) =>
      new OpenAI({ apiKey: token, baseURL: `${url}/v1`, maxRetries: options.maxRetries ?? 0 }),
    async close() {
      await app.close();
      if (!env.SVC_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A minimal valid chat request. */
export function chatBody(content = 'Hello there', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'pro-1', messages: [{ role: 'user', content }], max_tokens: 64, ...extra };
}
