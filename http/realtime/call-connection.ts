import type { CallOutput } from '../../actors/realtime/call-output.js';
import type { CallListener, CallRuntime, RealtimeCall } from '../../actors/realtime/call-runtime.js';
import { ApiError } from '../../protocols/errors.js';
import type { Logger } from '../../runtime/logger.js';
import { CallOutbox, type CallSocket } from './call-outbox.js';
import { parseClientBytes, parseClientMessage, type ParsedMessage } from './client-message.js';
import { renderResponse } from './response-events.js';
import { closedEvent, errorEvent, renderEmitted, speechStartedEvent } from './server-events.js';

/** What a connection needs besides its socket. */
export interface ConnectionOptions {
  calls: Pick<CallRuntime, 'open'>;
  logger: Logger;
  limits: { dropAudioBytes: number; closeBytes: number };
  /** `?svc_timing=1`: audio deltas carry the server's send time (for load tests). */
  timing: boolean;
}

/**
 * One socket's side of a call, and nothing more: client frames are parsed and handed to the call
 * as commands; the call's events, already in the order the client sees them (the call's
 * `CallOrder` decides it), are rendered as wire events and written with the slow-client policy.
 */
export class CallConnection implements CallListener {
  private call: RealtimeCall | null = null;
  /** Messages that arrived while the call was being opened. */
  private early: string[] = [];
  private socketGone = false;
  private readonly outbox: CallOutbox;

  constructor(
    socket: CallSocket,
    private readonly options: ConnectionOptions,
  ) {
    this.outbox = new CallOutbox(socket, options.limits);
  }

  /** Opens the call behind the socket; a balance too low for a call is told and the socket closed. */
  async open(holder: { accountId: string; tokenId: string | null }, model: string): Promise<void> {
    try {
      this.call = await this.options.calls.open(holder, model, this);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.outbox.send(errorEvent(err.code, err.message));
      this.outbox.close(1008, 'insufficient balance');
      return;
    }
    if (this.socketGone) return this.call.disconnect();
    for (const text of this.early.splice(0)) this.message(text);
  }

  /** One text frame from the client. */
  message(text: string): void {
    if (!this.call) {
      this.early.push(text);
      return;
    }
    if (this.call.takesMessages()) this.apply(this.call, parseClientMessage(text));
  }

  /** One text frame from the client as the socket's bytes (an append's audio is read without decoding the frame as text). */
  messageBytes(bytes: Buffer): void {
    if (!this.call) {
      this.early.push(bytes.toString('utf8'));
      return;
    }
    if (this.call.takesMessages()) this.apply(this.call, parseClientBytes(bytes));
  }

  private apply(call: RealtimeCall, parsed: ParsedMessage): void {
    if ('error' in parsed) this.outbox.send(parsed.error);
    else call.command(parsed.command);
  }

  /** A binary frame: the protocol is JSON text frames only. */
  refuseBinary(): void {
    if (!this.call) return;
    this.outbox.send(
      errorEvent(
        'invalid_event',
        'Binary frames are not understood: send JSON text frames (audio as base64 in input_audio_buffer.append).',
      ),
    );
  }

  /** The socket is gone (the client left, or we closed it): the call closes. */
  socketClosed(): void {
    if (this.socketGone) return;
    this.socketGone = true;
    this.outbox.gone();
    this.call?.disconnect();
  }

  /** The next event the client is shown, rendered and sent. */
  event(event: CallOutput): void {
    switch (event.type) {
      case 'closed':
        this.outbox.send(closedEvent(event, this.outbox.droppedFrames));
        this.outbox.close(1000, 'call ended');
        return;
      case 'responseAudio': {
        const sentAt = this.options.timing ? performance.timeOrigin + performance.now() : null;
        this.outbox.sendAudio(event, sentAt);
        return;
      }
      case 'speechStarted':
        this.outbox.send(speechStartedEvent(event.itemId, event.audioStartMs));
        return;
      case 'audioCleared':
        this.outbox.send({ type: 'input_audio_buffer.cleared' });
        return;
      case 'responseStarted':
      case 'outputItemOpened':
      case 'responseText':
      case 'functionArguments':
      case 'outputItemClosed':
      case 'responseDone':
        for (const wire of renderResponse(event)) this.outbox.send(wire);
        return;
      default:
        for (const wire of renderEmitted(event)) this.outbox.send(wire);
    }
  }

  /** The call's actor finished; a socket still open (the actor was halted) is closed. */
  end(): void {
    this.outbox.close(1011, 'internal error');
  }
}
