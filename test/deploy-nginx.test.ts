import { suite } from 'uvu';
import { reverseProxyContract } from './contracts/reverse-proxy.js';
import { startNginx } from './doubles/nginx-proxy.js';
import { findBinary } from './doubles/tls-proxy.js';

const test = suite(
  'deploy: a real nginx with the docs/deploy.md config in front (TLS, SSE, uploads, wss, X-Forwarded-For)',
);
const nginx = findBinary('nginx');
const openssl = findBinary('openssl');

if (!nginx || !openssl) {
  test(`SKIPPED: ${nginx ? 'openssl' : 'nginx'} is not installed (apt-get install nginx openssl)`, () => undefined);
} else {
  reverseProxyContract(test, { name: 'nginx', start: (port) => startNginx(nginx, port) });
}

test.run();
