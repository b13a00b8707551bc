import { runSvc, runSvcJson, type ChatSvc } from '../../protocols/chat-response.js';
import type { ChatResult } from './chat-service.js';

const runOf = ({ cached, depth, outcome }: ChatResult) => ({
  cached,
  depth,
  status: outcome.status,
  cancelReason: outcome.cancelReason,
});

/** The `svc` block of a settled chat run (its exact price and how it ran), as every wire format carries it. */
export function svcOfResult(result: ChatResult): ChatSvc {
  return runSvc(result.outcome.priceMicros, runOf(result));
}

/** {@link svcOfResult}'s JSON text. */
export function svcJsonOfResult(result: ChatResult): string {
  return runSvcJson(result.outcome.priceMicros, runOf(result));
}
