import type { SseTextSink } from '../http/response-sse-emitter.js';

/** An SSE writer that keeps the text pushed to it: drives a route's emitter outside a request. */
export class SseTextCollector implements SseTextSink {
  text = '';
  open(): void {}
  push(text: string): void {
    this.text += text;
  }
  holdUntilEnd(): void {}
  ready(): null {
    return null;
  }
  end(): void {}
}
