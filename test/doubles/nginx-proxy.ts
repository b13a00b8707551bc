import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromDocs, freePort, runProxy, selfSignedCertificate, substitute, type TlsProxy } from './tls-proxy.js';

/**
 * Starts nginx (`nginx` and `openssl` must be installed) with docs/deploy.md's ```nginx block, its
 * upstream, listen address and certificate replaced by loopback ones, inside a minimal main config
 * whose files all live in a temporary directory (no root needed).
 */
export async function startNginx(nginx: string, upstreamPort: number): Promise<TlsProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-nginx-'));
  const { certFile, keyFile } = selfSignedCertificate(dir);
  const port = await freePort();
  const site = substitute(configFromDocs('nginx'), [
    ['server 127.0.0.1:8080;', `server 127.0.0.1:${upstreamPort};`],
    ['listen 443 ssl;', `listen 127.0.0.1:${port} ssl;`],
    ['/etc/ssl/svc/fullchain.pem', certFile],
    ['/etc/ssl/svc/privkey.pem', keyFile],
  ]);
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));
  const conf = `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${site}
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  return runProxy(
    'nginx',
    {
      binary: nginx,
      args: ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')],
      stopSignal: 'SIGQUIT',
    },
    { dir, port, certFile },
  );
}
