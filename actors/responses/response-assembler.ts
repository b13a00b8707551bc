import type { CompletionSink, CompletionStreamEvent } from '../chat/chat-service.js';
import type { ToolCallResult } from '../chat/completion.js';
import type {
  FileSearchCall,
  FunctionCallOutput,
  OutputItem,
  OutputMessage,
  ResponseObject,
  ResponseStatus,
  ResponseStreamEvent,
  UnnumberedEvent,
} from '../../protocols/responses.js';
import { outputTextDelta } from '../../protocols/responses.js';
import { randomBase62 } from '../../runtime/ids.js';
import { encodeResponse, responseObject, type ResponseHead, type ResponseState } from './response-object.js';

/** Where a streamed response's events go (the SSE writer, a background response's log), with flow control. */
export interface ResponseEmitter {
  /** One event; `responseJson` is its `response` already encoded as JSON, when it was (reuse it). */
  emit(event: ResponseStreamEvent, responseJson?: string): void;
  /** Null while the consumer keeps up; otherwise a promise to wait on before producing more. */
  ready(): Promise<void> | null;
  /**
   * A `response.output_text.delta` by its fields, for an emitter that encodes the stream's deltas
   * from one template (a stream's most frequent event, built here as no object); without it, {@link emit}.
   */
  textDelta?(itemId: string, outputIndex: number, delta: string, sequenceNumber: number): void;
  /**
   * An event carrying the response (`response.created`, `.in_progress`, the final one) by its type,
   * the response's id and JSON text, for an emitter that writes events from their fields (the SSE
   * stream's): such an emitter has {@link messageAdded} and {@link messageDone} too, and is handed
   * no object for these events.
   */
  responseEvent?(type: ResponseEventType, responseId: string, responseJson: string, sequenceNumber: number): void;
  /** A text message's `output_item.added` then its part's `content_part.added` (two numbers). */
  messageAdded?(itemId: string, outputIndex: number, sequenceNumber: number): void;
  /** A text message's `output_text.done`, `content_part.done` and `output_item.done` (three numbers). */
  messageDone?(itemId: string, outputIndex: number, status: ItemStatus, text: string, sequenceNumber: number): void;
  /** The events from now on may wait and go out with the last one (the run is ending; one write, not two). */
  holdUntilEnd?(): void;
}

/** Where an output item is (`in_progress` until it is done). */
export type ItemStatus = OutputMessage['status'];

/** The types of the events that carry the response. */
export type ResponseEventType = Extract<ResponseStreamEvent, { response: unknown }>['type'];

/** The final event's type for a response's status. */
function finalType(status: ResponseStatus): ResponseEventType {
  if (status === 'failed') return 'response.failed';
  return status === 'incomplete' || status === 'cancelled' ? 'response.incomplete' : 'response.completed';
}

/** A response as it opens: what `response.created` and `.in_progress` carry (read, never changed). */
const OPENING: ResponseState = { status: 'in_progress', output: [], usage: null };

// Emitted items are copies: the assembler keeps appending to its own.
function copyItem(item: OutputItem): OutputItem {
  return item.type === 'message' ? { ...item, content: item.content.map((part) => ({ ...part })) } : { ...item };
}

/**
 * Builds a response's `output` from what the chat run produces (text deltas, tool-call fragments,
 * a file search), and, when streaming, emits the typed event sequence the SDKs parse, numbered
 * from 0 (or the run's first sequence number): `response.created` and `.in_progress` before the first item, then per item `added`,
 * its deltas and `done`. Nothing is emitted until there is something to say, so a request refused
 * before it ran is still a plain HTTP error.
 */
export class ResponseAssembler implements CompletionSink {
  readonly output: OutputItem[] = [];
  private nextSeq: number;
  private opened = false;
  private message: OutputMessage | null = null;
  private call: FunctionCallOutput | null = null;
  private callIndex = -1;
  private replayed = false;
  private finalSeq: number | null = null;

  constructor(
    private readonly head: ResponseHead,
    private readonly emitter: ResponseEmitter | null,
    /** The first event's sequence number (a background response's later run starts above its earlier ones). */
    firstSequence = 0,
  ) {
    this.nextSeq = firstSequence;
  }

  /** Whether the first event went out. */
  get isOpen(): boolean {
    return this.opened;
  }

  /** The sequence number the next event gets. */
  get sequence(): number {
    return this.nextSeq;
  }

  ready(): Promise<void> | null {
    return this.emitter?.ready() ?? null;
  }

  // Numbers the event in place (no copy: a stream emits one per delta, and spreads showed in profiles).
  private send(event: UnnumberedEvent): void {
    const numbered = event as ResponseStreamEvent;
    numbered.sequence_number = this.nextSeq++;
    this.emitter!.emit(numbered);
  }

  private emit(event: UnnumberedEvent): void {
    if (!this.emitter) return;
    this.open(this.emitter);
    this.send(event);
  }

  /** `response.created` and `.in_progress`, before the first event. */
  private open(emitter: ResponseEmitter): void {
    if (this.opened) return;
    this.opened = true;
    if (emitter.responseEvent) {
      const json = encodeResponse(this.head, OPENING).json;
      emitter.responseEvent('response.created', this.head.id, json, this.nextSeq++);
      emitter.responseEvent('response.in_progress', this.head.id, json, this.nextSeq++);
      return;
    }
    const response = responseObject(this.head, OPENING);
    this.send({ type: 'response.created', response });
    this.send({ type: 'response.in_progress', response });
  }

  private add(item: OutputItem, announce = true): number {
    this.output.push(item);
    const outputIndex = this.output.length - 1;
    if (this.emitter && announce)
      this.emit({ type: 'response.output_item.added', output_index: outputIndex, item: copyItem(item) });
    return outputIndex;
  }

  /** A file search that ran before the model: its item, with the events of its progress. */
  fileSearch(item: FileSearchCall): void {
    const index = this.add({ ...item, status: 'in_progress', results: null });
    this.output[index] = item;
    this.emit({ type: 'response.file_search_call.in_progress', item_id: item.id, output_index: index });
    this.emit({ type: 'response.file_search_call.searching', item_id: item.id, output_index: index });
    this.emit({ type: 'response.file_search_call.completed', item_id: item.id, output_index: index });
    this.emit({ type: 'response.output_item.done', output_index: index, item: copyItem(item) });
  }

  /** One fragment of the visible answer (the chat run's sink); only the first choice exists here. */
  event(event: CompletionStreamEvent): void {
    if (event.type === 'delta' && event.choice === 0) this.text(event.text);
    else if (event.type === 'tool_call' && event.choice === 0) this.toolCall(event);
  }

  private text(delta: string): void {
    this.closeCall('completed');
    const message = this.message ?? this.startMessage();
    message.content[0]!.text += delta;
    if (!this.emitter) return;
    // The message's `added` events went out, so the stream is open.
    if (this.emitter.textDelta) {
      this.emitter.textDelta(message.id, this.output.length - 1, delta, this.nextSeq++);
      return;
    }
    this.emit(outputTextDelta(message.id, this.output.length - 1, delta));
  }

  /** A new text message with its one empty part, announced. */
  private startMessage(): OutputMessage {
    const message: OutputMessage = {
      id: `msg_${randomBase62(24)}`,
      type: 'message',
      role: 'assistant',
      status: 'in_progress',
      content: [],
    };
    this.message = message;
    const { emitter } = this;
    const byFields = emitter?.messageAdded !== undefined;
    const outputIndex = this.add(message, !byFields);
    const part = { type: 'output_text' as const, text: '', annotations: [], logprobs: [] };
    message.content.push(part);
    if (byFields) {
      this.open(emitter);
      emitter.messageAdded!(message.id, outputIndex, this.nextSeq);
      this.nextSeq += 2;
      return message;
    }
    this.emit({
      type: 'response.content_part.added',
      item_id: message.id,
      output_index: outputIndex,
      content_index: 0,
      part: { ...part },
    });
    return message;
  }

  private toolCall(fragment: { index: number; id?: string; name?: string; arguments: string }): void {
    this.closeMessage('completed');
    if (fragment.index !== this.callIndex) {
      this.closeCall('completed');
      this.callIndex = fragment.index;
      this.call = {
        id: `fc_${randomBase62(24)}`,
        type: 'function_call',
        call_id: fragment.id ?? `call_${randomBase62(24)}`,
        name: fragment.name ?? '',
        arguments: '',
        status: 'in_progress',
      };
      this.add(this.call);
    }
    if (!fragment.arguments) return;
    this.call!.arguments += fragment.arguments;
    this.emit({
      type: 'response.function_call_arguments.delta',
      item_id: this.call!.id,
      output_index: this.output.length - 1,
      delta: fragment.arguments,
    });
  }

  private closeMessage(status: ItemStatus): void {
    const message = this.message;
    if (!message) return;
    this.message = null;
    message.status = status;
    const outputIndex = this.output.indexOf(message);
    if (!this.emitter) return;
    const part = message.content[0]!;
    const { id } = message;
    if (this.emitter.messageDone) {
      this.emitter.messageDone(id, outputIndex, status, part.text, this.nextSeq);
      this.nextSeq += 3;
      return;
    }
    this.emit({
      type: 'response.output_text.done',
      item_id: id,
      output_index: outputIndex,
      content_index: 0,
      text: part.text,
      logprobs: [],
    });
    this.emit({
      type: 'response.content_part.done',
      item_id: id,
      output_index: outputIndex,
      content_index: 0,
      part: { ...part },
    });
    this.emit({ type: 'response.output_item.done', output_index: outputIndex, item: copyItem(message) });
  }

  private closeCall(status: ItemStatus): void {
    const call = this.call;
    if (!call) return;
    this.call = null;
    call.status = status;
    const outputIndex = this.output.indexOf(call);
    this.emit({
      type: 'response.function_call_arguments.done',
      item_id: call.id,
      output_index: outputIndex,
      name: call.name,
      arguments: call.arguments,
    });
    if (this.emitter) this.emit({ type: 'response.output_item.done', output_index: outputIndex, item: copyItem(call) });
  }

  /** A whole answer at once (a run that was not streamed): the same items a stream would have built; once. */
  replay(answer: { text: string; toolCalls: readonly ToolCallResult[] } | undefined): void {
    if (!answer || this.replayed) return;
    this.replayed = true;
    if (answer.text) this.text(answer.text);
    answer.toolCalls.forEach((call, index) =>
      this.toolCall({ index, id: call.id, name: call.name, arguments: call.arguments }),
    );
  }

  /** Closes what is open (`incomplete` when the run was cut short). */
  close(status: ItemStatus): void {
    this.closeMessage(status);
    this.closeCall(status);
  }

  /**
   * The final event, carrying the finished response (and, in it, the price), numbered but not yet
   * sent: the caller stores the response first, so a client that saw the end can read it back.
   * Asked again (a store transaction re-run), it keeps its number.
   */
  finalEvent(response: ResponseObject): ResponseStreamEvent | null {
    if (!this.emitter || !this.opened) return null;
    this.finalSeq ??= this.nextSeq++;
    return { type: finalType(response.status), response, sequence_number: this.finalSeq };
  }

  /**
   * Sends a settled run's final event (numbered as {@link finalEvent} numbers it) from its
   * response's JSON text: an emitter that writes events from their fields gets the text alone, so
   * no response object is made for a stream; any other gets the event with `objectOf()`.
   */
  deliverSettled(status: ResponseStatus, responseJson: string, objectOf: () => ResponseObject): void {
    if (!this.emitter || !this.opened) return;
    if (!this.emitter.responseEvent) return this.deliver(this.finalEvent(objectOf()), responseJson);
    this.finalSeq ??= this.nextSeq++;
    this.emitter.responseEvent(finalType(status), this.head.id, responseJson, this.finalSeq);
  }

  /** Sends an event {@link finalEvent} numbered (with its response's JSON text, when it was made). */
  deliver(event: ResponseStreamEvent | null, responseJson: string | null = null): void {
    if (!event) return;
    if (responseJson === null) this.emitter!.emit(event);
    else this.emitter!.emit(event, responseJson);
  }
}
