import type { ChatCall, ChatResult, ChatService, CompletionSink } from '../../actors/chat/chat-service.js';
import { ApiError } from '../../protocols/errors.js';

/** A wire format's SSE relay: a sink that opens on its first event and can end an open stream in its own error event. */
export interface OpeningRelay extends CompletionSink {
  readonly isOpen: boolean;
  fail(error: ApiError, requestId: string): void;
}

/**
 * Streams a completion through the relay `open` makes for its head, then `finish`es it. A failure
 * before the stream opened is thrown (a plain HTTP error); after, it ends the stream in the relay's
 * error event (the status line is gone).
 */
export async function relayStream<R extends OpeningRelay>(
  completions: ChatService,
  call: ChatCall,
  requestId: string,
  open: (head: ChatResult['head']) => R,
  finish: (relay: R, result: ChatResult) => void,
): Promise<undefined> {
  let relay: R | undefined;
  try {
    const result = await completions.stream(call, (head) => (relay = open(head)));
    finish(relay!, result);
  } catch (err) {
    if (!(err instanceof ApiError) || !relay?.isOpen) throw err;
    relay.fail(err, requestId);
  }
  return undefined;
}
