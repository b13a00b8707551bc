import type { TemplatedApp } from '@trufflesuite/uws-js-unofficial';
import type { Config } from '../runtime/config.js';
import { uws } from './uws.js';

/**
 * The uWS app for `config`: `SSLApp` (HTTPS and wss://) when both TLS files are set, else `App`.
 * `loadConfig` has already checked the files; uWS itself only throws "App construction failed"
 * (and with a certificate but no key builds an app whose handshakes all fail), so a failure here
 * is rethrown naming the variables and a lone variable is refused rather than served half-way.
 */
export function createUwsApp(config: Pick<Config, 'SVC_TLS_CERT_FILE' | 'SVC_TLS_KEY_FILE'>): TemplatedApp {
  const { SVC_TLS_CERT_FILE: certFile, SVC_TLS_KEY_FILE: keyFile } = config;
  if (!certFile && !keyFile) return uws.App();
  if (!certFile || !keyFile) throw new Error('TLS needs both SVC_TLS_CERT_FILE and SVC_TLS_KEY_FILE');
  try {
    return uws.SSLApp({ cert_file_name: certFile, key_file_name: keyFile });
  } catch (err) {
    throw new Error(
      `TLS: uWS could not load SVC_TLS_CERT_FILE (${certFile}) with SVC_TLS_KEY_FILE (${keyFile}): both must be readable PEM files and the key must match the certificate`,
      { cause: err },
    );
  }
}
