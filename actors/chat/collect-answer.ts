import type { PassChoiceResult, ToolCallResult } from './completion.js';
import type { ChatBackendEvent } from '../../backends/chat-backend.js';
import { RetryableError } from '../../backends/errors.js';
import type { CancelSignal } from '../../runtime/cancel-signal.js';

/** A text or tool-call fragment as a backend streams it. */
export type AnswerEvent = Exclude<ChatBackendEvent, { type: 'done' }>;

/**
 * Reads a backend stream to its end: text joined, tool-call fragments assembled by index, usage
 * from the final event. `onFragment` sees each fragment as it comes and may return a promise to
 * hold the stream back (backpressure). A stream that ends without its final event is an error.
 */
export async function collectAnswer(
  events: AsyncIterable<ChatBackendEvent>,
  signal: CancelSignal,
  onFragment?: (event: AnswerEvent) => Promise<void> | null | void,
): Promise<PassChoiceResult> {
  let text = '';
  const calls: ToolCallResult[] = [];
  for await (const event of events) {
    if (signal.aborted) break;
    if (event.type === 'done') {
      const result: PassChoiceResult = {
        text,
        toolCalls: calls.filter(Boolean),
        finishReason: event.finishReason,
        usage: event.usage,
      };
      if (event.stopSequence !== undefined) result.stopSequence = event.stopSequence;
      return result;
    }
    if (event.type === 'delta') text += event.text;
    else {
      const call = (calls[event.index] ??= { id: event.id ?? '', name: event.name ?? '', arguments: '' });
      if (event.id) call.id = event.id;
      if (event.name) call.name = event.name;
      call.arguments += event.arguments;
    }
    const wait = onFragment?.(event);
    if (wait) await wait;
  }
  signal.throwIfAborted();
  throw new RetryableError('the backend stream ended without a final event', 'upstream_error');
}
