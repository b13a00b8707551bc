import { createHash } from 'node:crypto';
import type { ChatBackend } from '../../backends/chat-backend.js';
import type { ChatCompletionRequest } from '../../protocols/chat.js';
import { IdempotencyKeySchema } from '../../protocols/chat-session.js';
import { ApiError } from '../../protocols/errors.js';
import type { ModelCard } from '../../protocols/models.js';
import { chatPriceMicros } from '../../protocols/pricing.js';
import { countPromptTokens } from '../../protocols/tokens.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorHost, Follower, HostedMachine } from '../../runtime/host/actor-host.js';
import type { LogEvent } from '../../runtime/host/actor-log.js';
import { newId, randomBase62 } from '../../runtime/ids.js';
import { IdempotencyKeys, IdempotencyMismatch } from '../../runtime/idempotency.js';
import { KeyedMutex } from '../../runtime/keyed-mutex.js';
import type { Store } from '../../runtime/store/store.js';
import type { Billing } from '../billing/billing.js';
import { chatPlanForSession, type ChatPlan } from '../chat/chat-plan.js';
import type { LinkedRuns, LiveInputCommand } from '../chat/chat-service.js';
import { backendBase } from '../chat/completion-run.js';
import type { PartResolverOptions } from '../chat/parts/part-context.js';
import { resolveParts } from '../chat/parts/resolve-parts.js';
import { LIVE_SESSION_STATES } from './session-states.js';
import type { SessionEvent, SessionInput, SessionQuote } from './session-types.js';
import { sessionRecordOf, stateOf, type SessionRecord, type SessionSnapshot } from './session-record.js';
import { SESSION_MACHINE, SessionRuntime } from './session-runtime.js';
import { buildWorkbook, type Workbook } from './session-workbook.js';

/** What the sessions feature runs on: the host, the billing port, the chat backend, storage, time. */
export interface SessionServiceOptions {
  host: ActorHost;
  billing: Billing;
  backend: ChatBackend;
  store: Store;
  clock: Clock;
  /** How non-text parts are resolved (at creation, or at approval when it is required). */
  parts: PartResolverOptions;
  approvalTtlMs: number;
  idleTtlMs: number;
}

/** A new session: who asks, the validated request and its model, and the client's Idempotency-Key if any. */
export interface CreateSessionInput {
  accountId: string;
  tokenId: string | null;
  request: ChatCompletionRequest;
  model: ModelCard;
  /** Aborts resolving content parts when the caller goes away. */
  signal: AbortSignal;
  /** Checked here (1 to 255 characters): the same key and body replay the session; another body is 409. */
  idempotencyKey?: string | undefined;
}

/** The quote a session parks with: the same figures as /v1/estimate for the deep path. */
function quoteFor(plan: ChatPlan, promptTokens: number, latency: ChatBackend['latency']): SessionQuote {
  const generating = latency.tokensPerSecond > 0 ? plan.worstCase.completionTokens / latency.tokensPerSecond : 0;
  return {
    minMicros: chatPriceMicros({ promptTokens, completionTokens: 1 }),
    holdMicros: chatPriceMicros(plan.worstCase),
    minSeconds: 0,
    maxSeconds: Math.round((plan.passes.length * latency.ttftMs) / 1000 + generating),
  };
}

/**
 * The chat sessions feature: durable runs with approval, clarification, events and a once-only
 * charge. Everything a route, an MCP tool or a worker does to a session goes through here, with
 * plain inputs (account id, parsed request, AbortSignal); answers are session records and domain
 * events, rendered by the caller. Another account's session is 404, never 403.
 */
export class SessionService implements LinkedRuns {
  private readonly runtime: SessionRuntime;
  private readonly idempotency: IdempotencyKeys;
  /** Approvals and deletes of one session run one at a time. */
  private readonly changes = new KeyedMutex();

  constructor(private readonly options: SessionServiceOptions) {
    this.runtime = new SessionRuntime(options.billing, options.backend, options.store, options.clock);
    this.idempotency = new IdempotencyKeys(options.store, 'session_idempotency');
  }

  /** The session machine with its effects, for the host to register. */
  hosted(): HostedMachine {
    return this.runtime.hosted();
  }

  /**
   * Quotes, holds the worst case (402 when it does not fit; unless approval is required),
   * resolves content parts and starts a session. With an Idempotency-Key, the same key and body
   * return the same session (`replayed`) and another body is a 409.
   */
  async create(input: CreateSessionInput): Promise<{ session: SessionRecord; replayed: boolean }> {
    if (input.idempotencyKey === undefined) return { session: await this.spawn(newId('sess'), input), replayed: false };
    const key = IdempotencyKeySchema.safeParse(input.idempotencyKey);
    if (!key.success)
      throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 characters.', {
        param: 'Idempotency-Key',
      });
    const bodyHash = createHash('sha256').update(JSON.stringify(input.request)).digest('hex');
    try {
      const result = await this.idempotency.run([input.accountId, key.data], bodyHash, {
        newId: () => newId('sess'),
        replay: (id) => this.find(input.accountId, id),
        create: (id) => this.spawn(id, input),
      });
      return { session: result.value, replayed: result.replayed };
    } catch (err) {
      if (!(err instanceof IdempotencyMismatch)) throw err;
      throw new ApiError(
        'conflict',
        'This Idempotency-Key was already used with a different request body; use a new key.',
        { param: 'Idempotency-Key' },
      );
    }
  }

  private async spawn(id: string, input: CreateSessionInput): Promise<SessionRecord> {
    const { request, model, accountId } = input;
    const promptTokens = countPromptTokens(request.messages);
    const plan = chatPlanForSession(request, promptTokens, model.max_output_tokens);
    const base = {
      id,
      accountId,
      tokenId: input.tokenId,
      quote: quoteFor(plan, promptTokens, this.options.backend.latency),
    };
    // Without approval the run starts now: hold its worst case first (402 when it does not fit).
    let conversation = request.messages;
    let preprocessed = { promptTokens: 0, completionTokens: 0 };
    const hold = request.require_approval ? null : this.runtime.hold(base);
    try {
      if (!request.require_approval) {
        const resolved = await resolveParts(request.messages, {
          accountId,
          signal: input.signal,
          options: this.options.parts,
        });
        conversation = resolved.messages;
        preprocessed = resolved.added;
      }
      const sessionInput: SessionInput = {
        ...base,
        preprocessed,
        completionId: `chatcmpl-${randomBase62(24)}`,
        model: model.id,
        conversation,
        settings: backendBase(request),
        plan,
        requireApproval: request.require_approval,
        at: this.options.clock.now(),
        approvalTtlMs: this.options.approvalTtlMs,
        idleTtlMs: this.options.idleTtlMs,
      };
      await this.runtime.indexCompletion(sessionInput.completionId, id);
      await this.options.host.spawn(SESSION_MACHINE, { id, ownerId: accountId, input: sessionInput });
    } catch (err) {
      this.runtime.release(id, hold);
      throw err;
    }
    return this.get(accountId, id);
  }

  /** Session `id` of `accountId`, or undefined (unknown, or another account's). */
  find(accountId: string, id: string): SessionRecord | undefined {
    const record = this.options.host.find(id, accountId);
    return record && record.machine === SESSION_MACHINE ? sessionRecordOf(record) : undefined;
  }

  /** Session `id` of `accountId`; 404 otherwise. */
  get(accountId: string, id: string): SessionRecord {
    const session = this.find(accountId, id);
    if (!session) throw new ApiError('not_found', `No chat session ${id}.`, { param: 'session_id' });
    return session;
  }

  /** The account's sessions, newest first, at most `limit`. */
  list(accountId: string, limit: number): SessionRecord[] {
    const { host } = this.options;
    return host.list(SESSION_MACHINE, accountId, limit).map(sessionRecordOf);
  }

  /** A finished session, for its result; 409 before it completed. */
  result(accountId: string, id: string): SessionRecord {
    const session = this.get(accountId, id);
    if (session.state !== 'completed' && session.state !== 'acknowledged') {
      throw new ApiError('conflict', `The session has no result yet (state ${session.state}).`);
    }
    return session;
  }

  /** The session and its working memory as sheets. */
  workbook(accountId: string, id: string): { session: SessionRecord; workbook: Workbook } {
    const session = this.get(accountId, id);
    return {
      session,
      workbook: buildWorkbook(session.context, { id: session.id, createdAt: session.createdAt, state: session.state }),
    };
  }

  /** Committed domain events of the session after `after`, at most `limit`. */
  events(accountId: string, id: string, after: number, limit: number): { session: SessionRecord; events: LogEvent[] } {
    const session = this.get(accountId, id);
    return { session, events: this.options.host.events(session.id, after, limit) };
  }

  /** Follows the session from `after`: committed history, live events, then the end. Returns the unsubscribe. */
  follow(accountId: string, id: string, after: number, follower: Follower): () => void {
    const session = this.get(accountId, id);
    return this.options.host.follow(session.id, after, follower);
  }

  /**
   * Approves a parked session: holds its quote (402 when it does not fit; it stays parked),
   * resolves its parts and starts the run. One approval at a time per session: a losing approve
   * sees the new state (409) and touches no money; the hold belongs to the approve that placed it.
   */
  async approve(accountId: string, id: string, signal: AbortSignal): Promise<SessionRecord> {
    const { clock, parts } = this.options;
    return this.changes.run(this.get(accountId, id).id, async () => {
      const session = this.get(accountId, id);
      if (session.state !== 'awaiting_approval') throw this.conflict(session, 'approve');
      const { context } = session;
      const hold = this.runtime.hold(context);
      if (!hold) throw this.conflict(session, 'approve');
      try {
        const resolved = await resolveParts(context.conversation, {
          accountId: context.accountId,
          signal,
          options: parts,
        });
        return await this.deliver(
          session,
          { type: 'APPROVE', at: clock.now(), conversation: resolved.messages, preprocessed: resolved.added },
          'approve',
        );
      } catch (err) {
        this.runtime.release(session.id, hold);
        throw err;
      }
    });
  }

  /** Live input: queued for the next step while running, or the answer to the pending question. */
  liveInput(accountId: string, id: string, input: LiveInputCommand): Promise<SessionRecord> {
    return this.deliver(this.get(accountId, id), this.liveInputEvent(input), 'send live input to');
  }

  /** Cancels a parked, running or asking session; what it processed is still charged. */
  cancel(accountId: string, id: string, reason: string | null): Promise<SessionRecord> {
    return this.deliver(this.get(accountId, id), { type: 'CANCEL', reason, at: this.options.clock.now() }, 'cancel');
  }

  /** Acknowledges a completed session's result. */
  acknowledge(accountId: string, id: string): Promise<SessionRecord> {
    return this.deliver(this.get(accountId, id), { type: 'ACKNOWLEDGE', at: this.options.clock.now() }, 'acknowledge');
  }

  /**
   * Deletes a session with its log. A live one needs `force`: it is cancelled first and deleted
   * once its charge has settled, so what it processed is still billed.
   */
  async delete(
    accountId: string,
    id: string,
    options: { force: boolean; deleteArtifacts: boolean },
  ): Promise<{ id: string; artifactsDeleted: boolean }> {
    const { host, clock } = this.options;
    return this.changes.run(this.get(accountId, id).id, async () => {
      const session = this.get(accountId, id);
      const live = LIVE_SESSION_STATES.includes(session.state);
      if (live && !options.force)
        throw new ApiError('conflict', `The session is ${session.state}; cancel it first or delete with force=true.`);
      if (live) {
        await host.send(session.id, { type: 'CANCEL', reason: 'deleted', at: clock.now() });
        await host.waitFor(
          session.id,
          (snapshot) => !LIVE_SESSION_STATES.includes(stateOf(snapshot as unknown as SessionSnapshot).state),
        );
      }
      this.runtime.forget(session.id);
      await host.remove(session.id);
      return { id: session.id, artifactsDeleted: options.deleteArtifacts };
    });
  }

  // ---- A session's run reached by its completion id (the completion routes' live input and cancel) ----

  /** Sends live input to the session run with completion id `completionId`; undefined when there is none. */
  async liveInputToRun(
    accountId: string,
    completionId: string,
    input: LiveInputCommand,
  ): Promise<{ sessionId: string } | undefined> {
    return this.toRun(accountId, completionId, this.liveInputEvent(input), 'send live input to');
  }

  /** Cancels the session run with completion id `completionId`; undefined when there is none. */
  async cancelRun(
    accountId: string,
    completionId: string,
    reason: string | null,
  ): Promise<{ sessionId: string } | undefined> {
    return this.toRun(accountId, completionId, { type: 'CANCEL', reason, at: this.options.clock.now() }, 'cancel');
  }

  private async toRun(
    accountId: string,
    completionId: string,
    event: SessionEvent,
    action: string,
  ): Promise<{ sessionId: string } | undefined> {
    const { host } = this.options;
    const sessionId = this.runtime.sessionOfCompletion(completionId);
    if (!sessionId || !host.find(sessionId, accountId)) return undefined;
    if (!host.accepts(sessionId, event))
      throw new ApiError('conflict', `Cannot ${action} this session run in its current state.`);
    await host.send(sessionId, event);
    return { sessionId };
  }

  private liveInputEvent(input: LiveInputCommand): SessionEvent {
    return {
      type: 'LIVE_INPUT',
      content: input.content,
      questionId: input.questionId,
      source: input.source,
      modality: input.modality,
      at: this.options.clock.now(),
    };
  }

  private conflict(session: SessionRecord, action: string): ApiError {
    return new ApiError('conflict', `Cannot ${action} a session in state ${session.state}.`);
  }

  /** Sends `event` if the machine takes it in its current state (409 otherwise); the session once durable. */
  private async deliver(session: SessionRecord, event: SessionEvent, action: string): Promise<SessionRecord> {
    const { host } = this.options;
    if (!host.accepts(session.id, event)) throw this.conflict(session, action);
    await host.send(session.id, event);
    return this.get(session.ownerId, session.id);
  }
}
