import { createHash } from 'node:crypto';
import { z } from 'zod';
import { chatPlanForSession } from '../../actors/chat-plan.js';
import { LIVE_SESSION_STATES, type SessionEvent, type SessionInput } from '../../actors/session-machine.js';
import { countPromptTokens } from '../../backends/tokens.js';
import { ChatCompletionRequestSchema } from '../../protocols/chat.js';
import { CancelRequestSchema, LiveInputRequestSchema } from '../../protocols/chat-live.js';
import { ApiError } from '../../protocols/errors.js';
import { chatPriceMicros } from '../../protocols/pricing.js';
import { newId, randomBase62 } from '../../runtime/ids.js';
import type { ActorRecord } from '../../runtime/actor-host.js';
import type { AppDeps } from '../app.js';
import { backendBase } from '../chat/completion-run.js';
import { createPartResolverOptions } from '../chat/part-context.js';
import { resolveParts } from '../chat/resolve-parts.js';
import { SESSION_MACHINE } from '../sessions/session-runtime.js';
import { sessionResult, sessionView, stateOf, type SessionSnapshot } from '../sessions/session-view.js';
import { followSession } from '../sessions/session-events.js';
import { sendWorkbookCsv, sendWorkbookXlsx, workbookView } from '../sessions/workbook-replies.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { requireModel, requireVariant } from './models.js';

const ListQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) });
const PageQuery = z.object({ after: z.coerce.number().int().min(-1).default(-1), limit: z.coerce.number().int().min(1).max(1000).default(100) });
const DeleteQuery = z.object({ force: z.stringbool().default(false), delete_artifacts: z.stringbool().default(true) });
const IdempotencyKey = z.string().min(1).max(255);

const noRetry = { 'x-should-retry': 'false' };

interface IdempotencyRecord {
  sessionId: string;
  bodyHash: string;
}

/** Chat sessions: durable, resumable runs with approval, clarification, events and results. */
export function chatSessionRoutes(deps: AppDeps): RouteDef[] {
  const { config, host, sessions, clock, store } = deps;
  const partOptions = createPartResolverOptions(config, { files: deps.files });
  const idempotency = store.table<IdempotencyRecord>('session_idempotency');

  const load = (ctx: RequestContext): ActorRecord => {
    const id = ctx.params.session_id!;
    const record = host.find(id, accountOf(ctx.principal).id);
    if (!record || record.machine !== SESSION_MACHINE) throw new ApiError('not_found', `No chat session ${id}.`, { param: 'session_id' });
    return record;
  };
  const view = (record: ActorRecord) => sessionView(record, Math.max(0, record.nextSeq - 1));
  const conflict = (record: ActorRecord, action: string) =>
    new ApiError('conflict', `Cannot ${action} a session in state ${stateOf(record.snapshot as SessionSnapshot).state}.`, { headers: noRetry });

  /** Sends `event` if the machine accepts it in its current state; 409 otherwise. */
  const deliver = async (record: ActorRecord, event: SessionEvent, action: string): Promise<ActorRecord> => {
    if (!host.accepts(record.id, event)) throw conflict(record, action);
    await host.send(record.id, event);
    return host.find(record.id, record.ownerId)!;
  };

  return [
    {
      method: 'POST',
      path: '/v1/chat/sessions',
      auth: 'token',
      async handler(ctx) {
        const keyHeader = ctx.ex.headers['idempotency-key'];
        const request = await ctx.json(ChatCompletionRequestSchema);
        const account = accountOf(ctx.principal);
        const model = requireModel(request.model);
        requireVariant(request.target_variant_id, model);
        let idemKey: [string, string] | null = null;
        const bodyHash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
        if (keyHeader !== undefined) {
          const parsed = IdempotencyKey.safeParse(keyHeader);
          if (!parsed.success) throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 characters.', { param: 'Idempotency-Key' });
          idemKey = [account.id, parsed.data];
          const seen = idempotency.get(idemKey);
          if (seen) {
            if (seen.bodyHash !== bodyHash) {
              throw new ApiError('conflict', 'This Idempotency-Key was already used with a different request body; use a new key.', { param: 'Idempotency-Key', headers: noRetry });
            }
            const existing = host.find(seen.sessionId, account.id);
            if (existing) return json(view(existing), 200, { 'idempotent-replayed': 'true' });
          }
        }

        const plan = chatPlanForSession(request, countPromptTokens(request.messages), model.max_output_tokens);
        const quote = {
          minMicros: chatPriceMicros({ promptTokens: countPromptTokens(request.messages), completionTokens: 1 }),
          holdMicros: chatPriceMicros(plan.worstCase),
          minSeconds: 0,
          maxSeconds: Math.round((plan.passes.length * deps.chat.latency.ttftMs) / 1000 + (deps.chat.latency.tokensPerSecond > 0 ? plan.worstCase.completionTokens / deps.chat.latency.tokensPerSecond : 0)),
        };
        const id = newId('sess');
        const base = { id, accountId: account.id, tokenId: ctx.principal.token?.id ?? null, quote };
        // Without approval the run starts now: hold its worst case first (402 when it does not fit).
        let conversation = request.messages;
        let preprocessed = { promptTokens: 0, completionTokens: 0 };
        if (!request.require_approval) {
          sessions.hold(base);
          try {
            const resolved = await resolveParts(request.messages, { accountId: account.id, signal: ctx.ex.signal, options: partOptions });
            conversation = resolved.messages;
            preprocessed = resolved.added;
          } catch (err) {
            sessions.release(id);
            throw err;
          }
        }
        const input: SessionInput = {
          ...base,
          preprocessed,
          completionId: `chatcmpl-${randomBase62(24)}`,
          model: model.id,
          conversation,
          settings: backendBase(request),
          plan,
          requireApproval: request.require_approval,
          at: clock.now(),
          approvalTtlMs: config.SVC_SESSION_APPROVAL_TTL_S * 1000,
          idleTtlMs: config.SVC_SESSION_IDLE_TTL_S * 1000,
        };
        if (idemKey) await idempotency.put(idemKey, { sessionId: id, bodyHash });
        await sessions.indexCompletion(input.completionId, id);
        await host.spawn(SESSION_MACHINE, { id, ownerId: account.id, input });
        return json(view(host.find(id, account.id)!), 201);
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions',
      auth: 'token',
      handler(ctx) {
        const { limit } = ctx.query(ListQuery);
        const records = host.list(SESSION_MACHINE, accountOf(ctx.principal).id, limit);
        return json({ object: 'list', data: records.map(view), has_more: records.length === limit });
      },
    },
    { method: 'GET', path: '/v1/chat/sessions/:session_id', auth: 'token', handler: (ctx) => json(view(load(ctx))) },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id/result',
      auth: 'token',
      handler(ctx) {
        const record = load(ctx);
        const { state } = stateOf(record.snapshot as SessionSnapshot);
        if (state !== 'completed' && state !== 'acknowledged') {
          throw new ApiError('conflict', `The session has no result yet (state ${state}).`, { headers: noRetry });
        }
        return json(sessionResult(record));
      },
    },
    { method: 'GET', path: '/v1/chat/sessions/:session_id/workbook', auth: 'token', handler: (ctx) => json(workbookView(load(ctx))) },
    { method: 'GET', path: '/v1/chat/sessions/:session_id/workbook.csv', auth: 'token', handler: (ctx) => sendWorkbookCsv(ctx, load(ctx)) },
    { method: 'GET', path: '/v1/chat/sessions/:session_id/workbook.xlsx', auth: 'token', handler: (ctx) => sendWorkbookXlsx(ctx, load(ctx)) },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id/events-page',
      auth: 'token',
      handler(ctx) {
        const { after, limit } = ctx.query(PageQuery);
        const record = load(ctx);
        const events = host.events(record.id, after, limit).map((e) => ({ seq: e.seq, type: e.type, ts: e.ts, data: e.data }));
        const last = events.at(-1)?.seq ?? Math.max(after, 0);
        return json({ object: 'chat.session.events', session_id: record.id, events, next_after: last, has_more: events.length === limit });
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id/events',
      auth: 'token',
      handler(ctx) {
        const { after } = ctx.query(PageQuery.pick({ after: true }));
        const record = load(ctx);
        followSession(ctx.ex, host, record.id, after);
        return undefined;
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/sessions/:session_id/approve',
      auth: 'token',
      async handler(ctx) {
        const record = load(ctx);
        const snapshot = record.snapshot as SessionSnapshot;
        if (stateOf(snapshot).state !== 'awaiting_approval') throw conflict(record, 'approve');
        const { context } = snapshot;
        sessions.hold(context);
        try {
          const resolved = await resolveParts(context.conversation, { accountId: context.accountId, signal: ctx.ex.signal, options: partOptions });
          return json(view(await deliver(record, { type: 'APPROVE', at: clock.now(), conversation: resolved.messages, preprocessed: resolved.added }, 'approve')));
        } catch (err) {
          sessions.release(record.id);
          throw err;
        }
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/sessions/:session_id/live-input',
      auth: 'token',
      async handler(ctx) {
        const body = await ctx.json(LiveInputRequestSchema);
        const record = load(ctx);
        const event: SessionEvent = { type: 'LIVE_INPUT', content: body.content, questionId: body.question_id ?? null, source: body.source, modality: body.modality, at: clock.now() };
        return json({ ...view(await deliver(record, event, 'send live input to')), accepted: true });
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/sessions/:session_id/cancel',
      auth: 'token',
      async handler(ctx) {
        const hasBody = Number(ctx.ex.headers['content-length'] ?? 0) > 0;
        const body = hasBody ? await ctx.json(CancelRequestSchema) : { reason: null };
        const record = load(ctx);
        return json(view(await deliver(record, { type: 'CANCEL', reason: body.reason ?? null, at: clock.now() }, 'cancel')));
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/sessions/:session_id/acknowledge',
      auth: 'token',
      async handler(ctx) {
        return json(view(await deliver(load(ctx), { type: 'ACKNOWLEDGE', at: clock.now() }, 'acknowledge')));
      },
    },
    {
      method: 'DELETE',
      path: '/v1/chat/sessions/:session_id',
      auth: 'token',
      async handler(ctx) {
        const { force, delete_artifacts } = ctx.query(DeleteQuery);
        const record = load(ctx);
        const { state } = stateOf(record.snapshot as SessionSnapshot);
        const live = LIVE_SESSION_STATES.includes(state);
        if (live && !force) throw new ApiError('conflict', `The session is ${state}; cancel it first or delete with force=true.`, { headers: noRetry });
        if (live) {
          // A forced delete still bills what the run processed: cancel, let the charge settle, then delete.
          await host.send(record.id, { type: 'CANCEL', reason: 'deleted', at: clock.now() });
          await host.waitFor(record.id, (snapshot) => !LIVE_SESSION_STATES.includes(stateOf(snapshot as unknown as SessionSnapshot).state));
        }
        sessions.release(record.id);
        await host.remove(record.id);
        return json({ id: record.id, object: 'chat.session', deleted: true, artifacts_deleted: delete_artifacts });
      },
    },
  ];
}
