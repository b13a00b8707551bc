import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while a request is being answered says about that request. */
export interface RequestScope {
  readonly requestId: string;
  /** The client's address (through trusted proxies, see http/client-address.ts). */
  readonly client: string;
  /** The caller's account once authenticated (for the server span). */
  accountId?: string;
  /** The W3C trace id of the request's server span (set only while tracing is on). */
  traceId?: string;
}

/**
 * The request being answered in the current async context: the logger stamps its `request_id`
 * and `trace_id` on each line without every call site passing them.
 */
export const requestScope = new AsyncLocalStorage<RequestScope>();
