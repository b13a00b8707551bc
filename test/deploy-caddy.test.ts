import { suite } from 'uvu';
import { reverseProxyContract } from './contracts/reverse-proxy.js';
import { startCaddy } from './doubles/caddy-proxy.js';
import { findBinary } from './doubles/tls-proxy.js';

const test = suite(
  'deploy: a real Caddy with the docs/deploy.md config in front (TLS, SSE, uploads, wss, X-Forwarded-For)',
);
const caddy = findBinary('caddy');
const openssl = findBinary('openssl');

if (!caddy || !openssl) {
  test(`SKIPPED: ${caddy ? 'openssl' : 'caddy'} is not installed (apt-get install caddy openssl)`, () => undefined);
} else {
  reverseProxyContract(test, { name: 'Caddy', start: (port) => startCaddy(caddy, port) });
}

test.run();
