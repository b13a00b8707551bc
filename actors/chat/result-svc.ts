import { runSvc, runSvcJson, type ChatSvc } from '../../protocols/chat-response.js';
import type { ChatResult } from './chat-service.js';

/** How a settled chat run went, as its `svc` block states it beside the price. */
export const svcRunOf = ({ cached, depth, outcome }: ChatResult) => ({
  cached,
  depth,
  status: outcome.status,
  cancelReason: outcome.cancelReason,
});

/** The `svc` block of a settled chat run (its exact price and how it ran), as every wire format carries it. */
export function svcOfResult(result: ChatResult): ChatSvc {
  return runSvc(result.outcome.priceMicros, svcRunOf(result));
}

/** {@link svcOfResult}'s JSON text. */
export function svcJsonOfResult(result: ChatResult): string {
  return runSvcJson(result.outcome.priceMicros, svcRunOf(result));
}
