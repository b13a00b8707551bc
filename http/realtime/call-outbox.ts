import type { UnstampedEvent } from '../../protocols/realtime-events.js';
import { newEventId } from './server-events.js';

/** The socket a call talks through (uWS in the server, anything in tests). */
export interface CallSocket {
  send(text: string): void;
  bufferedAmount(): number;
  close(code: number, reason: string): void;
}

/**
 * What a call sends, with the slow-client policy: above `dropAudioBytes` buffered, audio frames
 * are dropped (late audio is worse than none); above `closeBytes` the socket is closed (1008).
 */
export class CallOutbox {
  /** Audio frames not sent because the client was too slow. */
  droppedFrames = 0;
  private closed = false;

  constructor(
    private readonly socket: CallSocket,
    private readonly limits: { dropAudioBytes: number; closeBytes: number },
  ) {}

  /** Sends an event (with a fresh `event_id`); false when the socket is gone or was just closed. */
  send(event: UnstampedEvent): boolean {
    return this.sendText(() => JSON.stringify({ event_id: newEventId(), ...event }));
  }

  /** Sends an audio event (its wire text, rendered only when it goes) unless the client has fallen behind; false when dropped. */
  sendAudio(render: () => string): boolean {
    if (!this.closed && this.socket.bufferedAmount() > this.limits.dropAudioBytes) {
      this.droppedFrames++;
      return false;
    }
    return this.sendText(render);
  }

  private sendText(render: () => string): boolean {
    if (this.closed) return false;
    if (this.socket.bufferedAmount() > this.limits.closeBytes) {
      this.close(1008, 'client too slow: send buffer over limit');
      return false;
    }
    this.socket.send(render());
    return true;
  }

  /** Closes the socket; nothing is sent after. */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close(code, reason);
  }

  /** The socket is gone: stop sending. */
  gone(): void {
    this.closed = true;
  }
}
