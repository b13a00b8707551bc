import type { ItemStatus, ResponseEmitter, ResponseEventType } from '../actors/responses/response-assembler.js';
import type { ApiError } from '../protocols/errors.js';
import { sseMessageAdded, sseMessageDone, sseTextDeltaTemplate } from '../protocols/response-sse.js';
import type { ResponseStreamEvent } from '../protocols/responses.js';
import { sseNamed, sseResponseEvent } from '../protocols/sse.js';
import type { SseWriter } from './sse-writer.js';

/** What the emitter writes through: an SseWriter on a route, or any sink of text (tests, benchmarks). */
export type SseTextSink = Pick<SseWriter, 'open' | 'push' | 'holdUntilEnd' | 'ready' | 'end'>;

/** Writes response events as named SSE events; the stream opens with the first one. */
export class SseResponseEmitter implements ResponseEmitter {
  private opened = false;
  private lastSeq = -1;

  constructor(
    private readonly writer: SseTextSink,
    private readonly responseId: string | null,
  ) {}

  get isOpen(): boolean {
    return this.opened;
  }

  /** Opens the stream (status and headers leave with the first events). */
  private openWith(responseId: string | null): void {
    if (this.opened) return;
    this.opened = true;
    const id = this.responseId ?? responseId;
    this.writer.open(id ? { 'x-response-id': id } : {});
  }

  emit(event: ResponseStreamEvent, responseJson?: string): void {
    this.openWith('response' in event ? event.response.id : null);
    this.lastSeq = event.sequence_number;
    if (!('response' in event)) {
      this.writer.push(sseNamed(event.type, event));
      return;
    }
    // A failed run's final event: the only one carrying the response that comes as an object.
    const json = responseJson ?? JSON.stringify(event.response);
    this.writer.push(sseResponseEvent(event.type, json, event.sequence_number));
  }

  responseEvent(type: ResponseEventType, responseId: string, responseJson: string, sequenceNumber: number): void {
    this.openWith(responseId);
    this.lastSeq = sequenceNumber;
    this.writer.push(sseResponseEvent(type, responseJson, sequenceNumber));
  }

  messageAdded(itemId: string, outputIndex: number, sequenceNumber: number): void {
    this.lastSeq = sequenceNumber + 1;
    this.writer.push(sseMessageAdded(itemId, outputIndex, sequenceNumber));
  }

  messageDone(itemId: string, outputIndex: number, status: ItemStatus, text: string, sequenceNumber: number): void {
    this.lastSeq = sequenceNumber + 2;
    this.writer.push(sseMessageDone(itemId, outputIndex, status, text, sequenceNumber));
  }

  /** The text deltas of one item: its event cut where the delta goes, made once; the sequence number ends each. */
  private deltas: { itemId: string; outputIndex: number; head: string; tail: string } | null = null;

  textDelta(itemId: string, outputIndex: number, delta: string, sequenceNumber: number): void {
    let template = this.deltas;
    if (template?.itemId !== itemId || template.outputIndex !== outputIndex)
      template = this.deltas = { itemId, outputIndex, ...sseTextDeltaTemplate(itemId, outputIndex) };
    this.lastSeq = sequenceNumber;
    this.writer.push(`${template.head}${JSON.stringify(delta)}${template.tail}${sequenceNumber}}\n\n`);
  }

  holdUntilEnd(): void {
    this.writer.holdUntilEnd();
  }

  /** The `error` event that ends a stream a failure interrupted outside the run (the run itself ends with `response.failed`). */
  fail(err: ApiError): void {
    this.emit({
      type: 'error',
      sequence_number: this.lastSeq + 1,
      code: err.code,
      message: err.message,
      param: err.param,
    });
  }

  ready(): Promise<void> | null {
    return this.writer.ready();
  }

  end(): void {
    this.writer.end();
  }
}
