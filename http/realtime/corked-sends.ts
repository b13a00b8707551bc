import type { WebSocket } from '@trufflesuite/uws-js-unofficial';

/** What a socket's user data keeps for batching: the texts waiting to be written (strings or UTF-8 bytes), and their length. */
export interface OutgoingTexts {
  outgoing: (string | Uint8Array)[];
  outgoingChars: number;
  closed: boolean;
}

/**
 * Writes each socket's messages of one task together, under one cork, when the task's microtasks
 * run out: the same messages in the same order, in one write instead of one per message (an
 * answer's audio frames leave two or more at a time). A socket's text waiting here counts in its
 * buffered amount, so the slow-client limits see it. Bytes are sent as they are (text frames):
 * uWS copies them into its buffer, with no UTF-8 conversion as a string needs.
 */
export class CorkedSends<D extends OutgoingTexts> {
  private readonly waiting = new Set<WebSocket<D>>();
  private scheduled = false;
  private readonly flushAllNow = () => this.flushAll();

  /** Queues `text` for `ws`, whose user data is `data` (dropped once the socket is closed). */
  send(ws: WebSocket<D>, text: string | Uint8Array, data: D = ws.getUserData()): void {
    if (data.closed) return;
    data.outgoing.push(text);
    data.outgoingChars += text.length;
    this.waiting.add(ws);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flushAllNow);
  }

  /** Bytes buffered in uWS for `ws` plus (about) those still waiting here. */
  bufferedAmount(ws: WebSocket<D>, data: D = ws.getUserData()): number {
    return data.closed ? 0 : ws.getBufferedAmount() + data.outgoingChars;
  }

  /** Writes what waits for `ws` now (before it is closed, so nothing queued is lost or reordered). */
  flush(ws: WebSocket<D>): void {
    const data = ws.getUserData();
    this.waiting.delete(ws);
    if (data.outgoing.length === 0) return;
    const texts = data.outgoing;
    data.outgoing = [];
    data.outgoingChars = 0;
    if (data.closed) return;
    ws.cork(() => {
      for (const text of texts) ws.send(text, false);
    });
  }

  private flushAll(): void {
    this.scheduled = false;
    for (const ws of this.waiting) this.flush(ws);
  }
}
