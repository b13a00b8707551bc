import type { UnstampedEvent } from '../../protocols/realtime-events.js';
import { AudioDeltaWriter, type AudioFrame } from './audio-delta.js';
import { freshFrameMemory, recycledFrameMemory } from './frame-slabs.js';
import { newEventId } from './server-events.js';

/** The socket a call talks through (uWS in the server, anything in tests): each message a text frame, as a string or its UTF-8 bytes. */
export interface CallSocket {
  send(text: string | Uint8Array): void;
  bufferedAmount(): number;
  close(code: number, reason: string): void;
  /**
   * True when `send` is done with the bytes it is handed once the sending task's microtasks have
   * run (uWS copies what it does not write at once; CorkedSends writes in a microtask): the
   * outbox then renders audio into memory it reuses. Absent: every frame's bytes stay its own.
   */
  readonly borrowsBytes?: boolean;
}

/**
 * What a call sends, with the slow-client policy: above `dropAudioBytes` buffered, audio frames
 * are dropped (late audio is worse than none); above `closeBytes` the socket is closed (1008).
 */
export class CallOutbox {
  /** Audio frames not sent because the client was too slow. */
  droppedFrames = 0;
  private closed = false;
  private readonly audio: AudioDeltaWriter;

  constructor(
    private readonly socket: CallSocket,
    private readonly limits: { dropAudioBytes: number; closeBytes: number },
  ) {
    this.audio = new AudioDeltaWriter(socket.borrowsBytes ? recycledFrameMemory : freshFrameMemory);
  }

  /** Sends an event (with a fresh `event_id`); false when the socket is gone or was just closed. */
  send(event: UnstampedEvent): boolean {
    if (this.closed || !this.mayWrite(this.socket.bufferedAmount())) return false;
    this.socket.send(JSON.stringify({ event_id: newEventId(), ...event }));
    return true;
  }

  /**
   * Sends an output audio frame (rendered only when it goes; `svcTs` for load testers) unless the
   * client has fallen behind; false when dropped.
   */
  sendAudio(frame: AudioFrame, svcTs: number | null): boolean {
    if (this.closed) return false;
    const buffered = this.socket.bufferedAmount();
    if (buffered > this.limits.dropAudioBytes) {
      this.droppedFrames++;
      return false;
    }
    if (!this.mayWrite(buffered)) return false;
    this.socket.send(this.audio.render(frame, svcTs));
    return true;
  }

  /** Whether a message may be written with `buffered` bytes waiting; a socket over the limit is closed. */
  private mayWrite(buffered: number): boolean {
    if (buffered > this.limits.closeBytes) {
      this.close(1008, 'client too slow: send buffer over limit');
      return false;
    }
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
