// The open-source Node gateway the proxy scenario compares with (issue 28): @portkey-ai/gateway
// 1.15.x, installed on demand into a cache directory outside the repository (never a dependency
// of ours), proxying to the same instant upstream through its OpenAI provider with a custom host.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type ServerUnderTest } from '../load/servers.js';

const PACKAGE = '@portkey-ai/gateway@~1.15.2';
/** Where it is installed: `SVC_BENCH_CACHE` or `~/.cache/svc-bench`, under `portkey/`. */
const CACHE = join(process.env.SVC_BENCH_CACHE ?? join(homedir(), '.cache', 'svc-bench'), 'portkey');
const ENTRY = join(CACHE, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');

// Portkey appends headers to the upstream's fetch Response when it streams, and Node 20's fetch
// hands out immutable headers ("TypeError: immutable": every stream fails). Loaded with --import,
// this re-wraps each Response with mutable headers: one object more per request on its side.
const SHIM = `const original = globalThis.fetch;
globalThis.fetch = async (...args) => {
  const res = await original(...args);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: new Headers(res.headers) });
};
`;

/** The other gateway as a target: its URL, the headers that route it to `upstream`, its pid. */
export interface OtherGateway extends ServerUnderTest {
  name: string;
  headers: Record<string, string>;
}

/** Installs the package into the cache when missing; the reason when it cannot be had. */
function ensureInstalled(): string | null {
  if (existsSync(ENTRY)) return null;
  try {
    mkdirSync(CACHE, { recursive: true });
    if (!existsSync(join(CACHE, 'package.json')))
      writeFileSync(join(CACHE, 'package.json'), '{ "name": "svc-bench-portkey", "private": true }\n');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', PACKAGE], {
      cwd: CACHE,
      stdio: 'ignore',
      timeout: 300_000,
    });
  } catch (err) {
    return `npm install ${PACKAGE} in ${CACHE} failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
  }
  return existsSync(ENTRY) ? null : `${ENTRY} missing after npm install`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts the other gateway in front of `upstream` (origin of an OpenAI-compatible server), or says why not. */
export async function startOtherGateway(upstream: string): Promise<OtherGateway | { skipped: string }> {
  const missing = ensureInstalled();
  if (missing) return { skipped: missing };
  const shim = join(CACHE, 'mutable-fetch.mjs');
  writeFileSync(shim, SHIM);
  const port = await freePort();
  try {
    // It prints the URL long before it listens: ready once "Ready for connections" is out.
    const server = await spawnServer(ENTRY, {}, new RegExp(`(${port})[\\s\\S]*Ready for connections`), {
      nodeArgs: ['--import', shim],
      args: [`--port=${port}`, '--headless'],
    });
    return {
      name: 'portkey-ai/gateway 1.15',
      url: `http://127.0.0.1:${port}`,
      token: null,
      headers: {
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': `${upstream}/v1`,
        authorization: 'Bearer sk-bench-upstream',
      },
      sample: server.child.pid ?? null,
      close: () => server.stop(),
    };
  } catch (err) {
    return { skipped: `it did not start: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
  }
}
