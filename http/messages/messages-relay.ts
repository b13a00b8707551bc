import { svcOfResult } from '../../actors/chat/result-svc.js';
import { stopOf, usageOf } from '../../actors/messages/message-view.js';
import type { ChatResult, CompletionSink, CompletionStreamEvent } from '../../actors/chat/chat-service.js';
import type { CompletionHeader } from '../../protocols/chat-response.js';
import type { ApiError } from '../../protocols/errors.js';
import { anthropicErrorReply } from '../../protocols/messages-errors.js';
import { messagesSse } from '../../protocols/messages.js';
import type { SseWriter } from '../sse-writer.js';

/** The block being streamed: none, the text, or tool call `call` of the answer. */
type OpenBlock = { kind: 'none' } | { kind: 'text' } | { kind: 'tool'; call: number };

/**
 * Renders a completion's stream events as Anthropic's event sequence: `message_start` and a `ping`,
 * then per block `content_block_start`, its deltas and `content_block_stop`, and at the end
 * `message_delta` (stop reason, billed usage, our `svc`) and `message_stop`. As on chat, the stream
 * opens on the first fragment, so a run that fails before producing anything gets a plain error.
 */
export class MessagesRelay implements CompletionSink {
  private opened = false;
  private block: OpenBlock = { kind: 'none' };
  /** Index of the current block; -1 before the first. */
  private index = -1;

  constructor(
    private readonly writer: SseWriter,
    private readonly header: CompletionHeader,
    private readonly ids: {
      messageId: string;
      /** Sent as `request-id` too, the header Anthropic's SDK reads. */
      requestId: string;
      /** The prompt's tokens for `message_start` (message_delta carries what was billed). */
      promptTokens: () => number;
    },
  ) {}

  /** Whether the 200 and the SSE headers have gone out. */
  get isOpen(): boolean {
    return this.opened;
  }

  private open(): void {
    if (this.opened) return;
    this.opened = true;
    this.writer.open({ 'x-completion-id': this.header.id, 'request-id': this.ids.requestId });
    this.writer.push(
      messagesSse({
        type: 'message_start',
        message: {
          id: this.ids.messageId,
          type: 'message',
          role: 'assistant',
          model: this.header.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usageOf({ promptTokens: this.ids.promptTokens(), completionTokens: 0 }),
        },
      }),
    );
    this.writer.push(messagesSse({ type: 'ping' }));
  }

  private closeBlock(): void {
    if (this.block.kind === 'none') return;
    this.writer.push(messagesSse({ type: 'content_block_stop', index: this.index }));
    this.block = { kind: 'none' };
  }

  /** Flow control for the producer: null while the client keeps up. */
  ready(): Promise<void> | null {
    return this.writer.ready();
  }

  event(event: CompletionStreamEvent): void {
    switch (event.type) {
      case 'delta':
        if (!event.text) return;
        this.open();
        if (this.block.kind !== 'text') {
          this.closeBlock();
          this.block = { kind: 'text' };
          this.writer.push(
            messagesSse({
              type: 'content_block_start',
              index: ++this.index,
              content_block: { type: 'text', text: '', citations: null },
            }),
          );
        }
        this.writer.push(
          messagesSse({
            type: 'content_block_delta',
            index: this.index,
            delta: { type: 'text_delta', text: event.text },
          }),
        );
        return;
      case 'tool_call':
        this.open();
        if (this.block.kind !== 'tool' || this.block.call !== event.index) {
          this.closeBlock();
          this.block = { kind: 'tool', call: event.index };
          this.writer.push(
            messagesSse({
              type: 'content_block_start',
              index: ++this.index,
              content_block: { type: 'tool_use', id: event.id ?? '', name: event.name ?? '', input: {} },
            }),
          );
        }
        if (event.arguments)
          this.writer.push(
            messagesSse({
              type: 'content_block_delta',
              index: this.index,
              delta: { type: 'input_json_delta', partial_json: event.arguments },
            }),
          );
        return;
      case 'phase':
      case 'live_input':
        // Internal passes and live input have no Anthropic event; an open stream hears it is alive.
        if (this.opened) this.writer.push(messagesSse({ type: 'ping' }));
        return;
    }
  }

  /** Closes a run that ended (completed or cancelled): the stop reason, billed usage and charge. */
  finish(result: ChatResult): void {
    this.open();
    this.closeBlock();
    const { usage } = result.outcome;
    this.writer.push(
      messagesSse({
        type: 'message_delta',
        delta: stopOf(result.outcome.choices[0]),
        usage: { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens },
        svc: svcOfResult(result),
      }),
    );
    this.writer.push(messagesSse({ type: 'message_stop' }));
    this.writer.end();
  }

  /** Ends an open stream with an `error` event (the SDK raises it), never a silent stop. */
  fail(error: ApiError, requestId: string): void {
    this.writer.push(messagesSse(anthropicErrorReply(error, requestId).body));
    this.writer.end();
  }
}
