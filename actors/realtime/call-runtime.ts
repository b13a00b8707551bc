import type { AnyActorRef } from 'xstate';
import type { ChatBackend } from '../../backends/chat-backend.js';
import type { SpeechBackend } from '../../backends/speech.js';
import type { TranscriptionBackend } from '../../backends/transcription.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorHost, ActorRecord, HostedMachine } from '../../runtime/host/actor-host.js';
import { persistPlainContext } from '../../runtime/host/plain-context.js';
import { newId, randomBase62 } from '../../runtime/ids.js';
import type { Logger } from '../../runtime/logger.js';
import type { Billing } from '../billing/billing.js';
import { CallEffects } from './call-effects.js';
import type { CallEmitted } from './call-events.js';
import { audioMs, CallLine } from './call-line.js';
import { CallOrder } from './call-order.js';
import type { CallOutput } from './call-output.js';
import type { CallEvent, CallInput, DraftContent, ItemDraft, ResponseRequest } from './call-context.js';
import { realtimeCallMachine, type CallSnapshot } from './call-machine.js';
import { defaultCallSession, type SessionChange } from './call-session.js';
import { upgradeCallSnapshot } from './call-snapshot-upgrade.js';
import { CallView } from './call-view.js';

/** The name calls are registered under in the actor host. */
export const CALL_MACHINE = 'realtime-call';

/** What a client asks of its call, one command per client message (parsed and translated at the edge). */
export type CallCommand =
  | { type: 'updateSession'; change: SessionChange; clientEventId: string | null }
  /** `audio` is lent: valid while the command runs (the edge reuses it for the next frame). */
  | { type: 'appendAudio'; audio: Buffer; clientEventId: string | null }
  | { type: 'commitAudio'; clientEventId: string | null }
  | { type: 'clearAudio'; clientEventId: string | null }
  | {
      type: 'addItem';
      item:
        | {
            type: 'message';
            id: string | null;
            role: 'user' | 'assistant' | 'system';
            content: (
              | { type: 'input_text' | 'output_text' | 'text'; text: string }
              | { type: 'input_audio'; audio: Buffer; transcript: string | null }
            )[];
          }
        | Exclude<ItemDraft, { content: unknown }>;
      /** Insert after this item (`root`: first); null: at the end. */
      previousItemId: string | null;
      clientEventId: string | null;
    }
  | { type: 'createResponse'; request: ResponseRequest; clientEventId: string | null }
  | { type: 'cancelResponse'; responseId: string | null; clientEventId: string | null }
  | { type: 'truncateItem'; itemId: string; contentIndex: number; audioEndMs: number; clientEventId: string | null }
  | { type: 'deleteItem'; itemId: string; clientEventId: string | null }
  | { type: 'retrieveItem'; itemId: string; clientEventId: string | null }
  | { type: 'acknowledgeEnd'; clientEventId: string | null };

/** Where a call's output goes: everything its client is shown, in order (see CallOrder), and its end. */
export interface CallListener {
  /** The next event the client is shown. */
  event(event: CallOutput): void;
  /** The call's actor finished (closed, or halted by a store failure). */
  end(): void;
}

/** One open call, as the edge holds it. */
export interface RealtimeCall {
  readonly id: string;
  /** Whether the call still takes client messages (it has not begun to close). */
  takesMessages(): boolean;
  command(command: CallCommand): void;
  /** The client is gone: the call closes, after the response in flight (if any) reports its usage. */
  disconnect(): void;
}

/** What the realtime feature runs on. */
export interface CallRuntimeDeps {
  host: ActorHost;
  billing: Billing;
  chat: ChatBackend;
  speech: SpeechBackend;
  transcription: TranscriptionBackend;
  clock: Clock;
  logger: Logger;
  /** What a call holds when it opens, and the step by which its hold grows. */
  holdStepMicros: number;
  /** How long `end_ready` waits for the client's acknowledgement before closing anyway. */
  endGraceMs: number;
}

/**
 * Realtime calls: opens a call (its opening hold, its actor, its line), turns client commands into
 * machine events (audio goes to the line, never to the machine), hands the call's committed events
 * and streams to the edge, and closes the calls a restart left without a socket (charging what
 * they had used). The decisions are the call machine's; the money and backends are `CallEffects`'.
 */
export class CallRuntime {
  private readonly orphans: string[] = [];
  private readonly lines = new Map<string, CallLine>();
  private readonly effects: CallEffects;

  constructor(private readonly deps: CallRuntimeDeps) {
    this.effects = new CallEffects({ ...deps, lines: this.lines });
  }

  /** Whether a call may start (enough available for the minimum hold); throws 402 otherwise. */
  assertCanOpen(accountId: string): void {
    this.effects.assertCanOpen(accountId);
  }

  /** The call machine with its effects, for the host. */
  hosted(): HostedMachine {
    return {
      name: CALL_MACHINE,
      // The call's context is plain data (call-context.ts): persisted as it is, without XState's walk for actor refs.
      logic: persistPlainContext(realtimeCallMachine.provide({ actors: this.effects.actors() })),
      onRehydrate: (record: ActorRecord) => {
        upgradeCallSnapshot(record.snapshot);
        this.orphans.push(record.id);
      },
      // Nothing reads a call once it ended (its charge is in the ledger): it goes whole after the retention.
      forgetAfterRetention: true,
    };
  }

  /** Closes (and charges) every call that was open when the process stopped; run once the host has rehydrated. */
  async closeOrphans(at: number): Promise<number> {
    const { host } = this.deps;
    const ids = this.orphans.splice(0);
    await Promise.all(
      ids.map(async (id) => {
        await host.send(id, { type: 'DISCONNECT', at });
        await host.waitFor(id, () => false);
      }),
    );
    return ids.length;
  }

  /**
   * Opens a call for `holder` on `model`: holds its opening amount (402 when the balance cannot
   * start a call), spawns its actor, follows it into `listener` and opens it (`sessionCreated`).
   */
  async open(
    holder: { accountId: string; tokenId: string | null },
    model: string,
    listener: CallListener,
  ): Promise<RealtimeCall> {
    const { host, clock, logger } = this.deps;
    const id = newId('rtc');
    const holdMicros = this.effects.openHold(id, holder.accountId, holder.tokenId);
    const input: CallInput = {
      id,
      ...holder,
      session: defaultCallSession(model),
      holdMicros,
      endGraceMs: this.deps.endGraceMs,
      idSeed: randomBase62(14),
      at: clock.now(),
    };
    let actor: AnyActorRef;
    try {
      actor = await host.spawn(CALL_MACHINE, { id, ownerId: holder.accountId, input });
    } catch (err) {
      this.effects.releaseHolds(id);
      throw err;
    }
    const send = (event: CallEvent) => {
      host
        .send(id, event)
        .catch((err: unknown) => logger.error('realtime call event failed', { call_id: id, event: event.type, err }));
    };
    // What every frame reads, kept by one subscription: a transition updates it, a frame only reads it.
    const view = new CallView(input.session);
    view.observe(actor.getSnapshot() as CallSnapshot);
    const observed = actor.subscribe({
      next: (snapshot: CallSnapshot) => view.observe(snapshot),
      error: () => view.stopped(),
      complete: () => view.stopped(),
    });
    // Everything the client is shown is put in order in one place; a failing listener (the edge)
    // must not throw into the machine or the effects.
    const order = new CallOrder((event) => {
      try {
        listener.event(event);
      } catch (err) {
        logger.error('realtime call listener failed', { call_id: id, event: event.type, err });
      }
    });
    const line = new CallLine(
      id,
      { view, send, accepts: (event) => host.accepts(id, event), whenDurable: () => order.whenDurable() },
      clock,
      (event) => order.stream(event),
    );
    this.lines.set(id, line);
    const emitted = actor.on('*', (event: CallEmitted) => order.emitted(event));
    host.follow(id, 0, {
      event: (logged) => order.committed(logged.seq),
      end: () => {
        view.stopped();
        observed.unsubscribe();
        emitted.unsubscribe();
        this.lines.delete(id);
        listener.end();
      },
    });
    send({ type: 'OPEN', at: clock.now() });
    return {
      id,
      takesMessages: () => view.takesMessages,
      command: (command) => this.command(line, send, command),
      disconnect: () => send({ type: 'DISCONNECT', at: clock.now() }),
    };
  }

  private command(line: CallLine, send: (event: CallEvent) => void, command: CallCommand): void {
    const clientEventId = command.clientEventId;
    // Audio stays on the line (the hot path: one append every 20 ms per call); the rest are machine events.
    if (command.type === 'appendAudio') return line.append(command.audio, clientEventId);
    if (command.type === 'commitAudio') return line.commit(clientEventId);
    if (command.type === 'clearAudio') return line.clear();
    const at = this.deps.clock.now();
    switch (command.type) {
      case 'updateSession':
        return send({ type: 'SESSION_UPDATE', change: command.change, clientEventId, at });
      case 'addItem': {
        const { previousItemId } = command;
        if (command.item.type !== 'message')
          return send({ type: 'ITEM_CREATE', item: command.item, previousItemId, clientEventId, at });
        // Audio parts wait on the line for their transcription; the machine sees keys and lengths.
        const content = command.item.content.map((part): DraftContent => {
          if (part.type !== 'input_audio') return part;
          const pcm = line.itemAudio(part.audio);
          return {
            type: 'input_audio',
            transcript: part.transcript,
            audioMs: audioMs(pcm.length),
            audioKey: part.transcript === null ? line.park(pcm) : null,
          };
        });
        return send({
          type: 'ITEM_CREATE',
          item: { type: 'message', id: command.item.id, role: command.item.role, content },
          previousItemId,
          clientEventId,
          at,
        });
      }
      case 'createResponse':
        return send({ type: 'RESPONSE_CREATE', request: command.request, clientEventId, at });
      case 'cancelResponse':
        return send({ type: 'RESPONSE_CANCEL', responseId: command.responseId, clientEventId, at });
      case 'truncateItem': {
        const { itemId, contentIndex, audioEndMs } = command;
        return send({ type: 'ITEM_TRUNCATE', itemId, contentIndex, audioEndMs, clientEventId, at });
      }
      case 'deleteItem':
        return send({ type: 'ITEM_DELETE', itemId: command.itemId, clientEventId, at });
      case 'retrieveItem':
        return send({ type: 'ITEM_RETRIEVE', itemId: command.itemId, clientEventId });
      case 'acknowledgeEnd':
        return send({ type: 'END_ACK', clientEventId, at });
    }
  }
}
