import { runSvc, type ChatSvc } from '../../protocols/chat-response.js';
import type { ChatResult } from './chat-service.js';

/** The `svc` block of a settled chat run (its exact price and how it ran), as every wire format carries it. */
export function svcOfResult(result: ChatResult): ChatSvc {
  const { outcome } = result;
  return runSvc(outcome.priceMicros, {
    cached: result.cached,
    depth: result.depth,
    status: outcome.status,
    cancelReason: outcome.cancelReason,
  });
}
