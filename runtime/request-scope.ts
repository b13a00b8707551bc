/**
 * What every log line written while a request is answered says about that request. It travels
 * explicitly (the request's logger, `Logger.forRequest`), not through an AsyncLocalStorage: on
 * Node 20 an entered AsyncLocalStorage turns on promise hooks for every promise of the process,
 * which cost about 10 % of a proxied completion's CPU with tracing off (bench/history.md).
 */
export interface RequestScope {
  readonly requestId: string;
  /** The client's address (through trusted proxies, see http/client-address.ts). */
  readonly client: string;
  /** The caller's account once authenticated (for the server span). */
  accountId?: string;
  /** The W3C trace id of the request's server span (set only while tracing is on). */
  traceId?: string;
}
