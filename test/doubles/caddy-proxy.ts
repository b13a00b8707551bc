import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromDocs, freePort, runProxy, selfSignedCertificate, substitute, type TlsProxy } from './tls-proxy.js';

/**
 * Starts Caddy (`caddy` and `openssl` must be installed) with docs/deploy.md's ```caddy block, its
 * site address, upstream and certificate replaced by loopback ones. Global options keep it off
 * every shared resource: no admin endpoint, no automatic HTTPS (ACME, redirects on :80), its data
 * and config directories inside a temporary one.
 */
export async function startCaddy(caddy: string, upstreamPort: number): Promise<TlsProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-caddy-'));
  const { certFile, keyFile } = selfSignedCertificate(dir);
  const port = await freePort();
  const site = substitute(configFromDocs('caddy'), [
    ['api.example.com {', `https://127.0.0.1:${port} {`],
    ['reverse_proxy 127.0.0.1:8080', `reverse_proxy 127.0.0.1:${upstreamPort}`],
    ['/etc/ssl/svc/fullchain.pem', certFile],
    ['/etc/ssl/svc/privkey.pem', keyFile],
  ]);
  const conf = `{
\tadmin off
\tauto_https off
\tstorage file_system ${join(dir, 'data')}
}

${site}`;
  writeFileSync(join(dir, 'Caddyfile'), conf);
  return runProxy(
    'caddy',
    {
      binary: caddy,
      args: ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'],
      env: { HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') },
      stopSignal: 'SIGTERM',
    },
    { dir, port, certFile },
  );
}
