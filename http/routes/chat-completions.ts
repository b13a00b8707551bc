import { planChat, withPreprocessing } from '../../actors/chat-plan.js';
import type { PassFailure } from '../../actors/completion-machine.js';
import type { SessionEvent } from '../../actors/session-machine.js';
import { countPromptTokens } from '../../backends/tokens.js';
import { ChatCompletionRequestSchema, type ChatCompletionRequest } from '../../protocols/chat.js';
import { CancelRequestSchema, LiveInputRequestSchema } from '../../protocols/chat-live.js';
import { completionObject, runSvc, type CompletionHeader } from '../../protocols/chat-response.js';
import { ApiError } from '../../protocols/errors.js';
import { microsToUsd } from '../../protocols/money.js';
import { chatPriceMicros } from '../../protocols/pricing.js';
import type { ModelCard } from '../../protocols/models.js';
import { randomBase62 } from '../../runtime/ids.js';
import type { AppDeps } from '../app.js';
import { startCompletion, type CompletionHandle, type CompletionOutcome } from '../chat/completion-run.js';
import { createPartResolverOptions } from '../chat/part-context.js';
import { resolveParts } from '../chat/resolve-parts.js';
import type { CachedAnswer } from '../chat/response-cache.js';
import { StreamRelay } from '../chat/stream-relay.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { SseWriter } from '../sse-writer.js';
import { requireModel, requireVariant } from './models.js';

/** The run's state as one name: `running` while a pass is in flight (its phase is reported apart). */
function stateName(value: unknown): string {
  return typeof value === 'string' ? value : Object.keys(value as object)[0] ?? 'running';
}

/** Maps a failed pass to the API's explicit upstream error; never a degraded answer. */
function upstreamError(failure: PassFailure | null): ApiError {
  const kind = failure?.kind ?? 'upstream_error';
  const headers: Record<string, string> = {};
  if (failure?.retryAfterMs) headers['retry-after'] = String(Math.ceil(failure.retryAfterMs / 1000));
  return new ApiError(kind, `The model provider failed: ${failure?.message ?? 'unknown error'}. Nothing was charged.`, { headers });
}

function svcOf(outcome: CompletionOutcome, depth: string): Record<string, unknown> {
  return runSvc(outcome.priceMicros, { cached: false, depth, status: outcome.status, cancelReason: outcome.cancelReason });
}

function priceHeaders(outcome: CompletionOutcome): Record<string, string> {
  return { 'x-svc-price-usd': microsToUsd(outcome.priceMicros).toFixed(6) };
}

/** Chat completions: the main route, plus live input and cancel of a running completion by its id. */
export function chatCompletionRoutes({ config, services, chat, completions, chatCache, logger, host, sessions, clock, files }: AppDeps): RouteDef[] {
  const partOptions = createPartResolverOptions(config, { files });
  /** A session's run addressed by its completion id (spec 3: live input and cancel work on either route). */
  const sessionRun = (ctx: RequestContext): string | undefined => {
    const sessionId = sessions.sessionOfCompletion(ctx.params.completion_id!);
    return sessionId && host.find(sessionId, accountOf(ctx.principal).id) ? sessionId : undefined;
  };
  const toSession = async (ctx: RequestContext, sessionId: string, event: SessionEvent, action: string) => {
    if (!host.accepts(sessionId, event)) throw new ApiError('conflict', `Cannot ${action} this session run in its current state.`, { headers: { 'x-should-retry': 'false' } });
    await host.send(sessionId, event);
    return json({ object: 'chat.completion.session_run', completion_id: ctx.params.completion_id, session_id: sessionId, accepted: true });
  };
  const notFound = (ctx: RequestContext) => new ApiError('not_found', `No running or recent completion ${ctx.params.completion_id}.`, { param: 'completion_id' });

  const find = (ctx: RequestContext): CompletionHandle => {
    const handle = completions.get(ctx.params.completion_id!, accountOf(ctx.principal).id);
    if (!handle) throw notFound(ctx);
    return handle;
  };

  const start = async (ctx: RequestContext, request: ChatCompletionRequest, model: ModelCard, head: CompletionHeader, stream: { relay: StreamRelay; writer: SseWriter } | null) => {
    const account = accountOf(ctx.principal);
    const rawPlan = planChat(request, countPromptTokens(request.messages), model.max_output_tokens);
    // Refuse an unpayable request before spending anything on its parts.
    services.ledger.assertCanHold(account.id, chatPriceMicros(rawPlan.worstCase));
    const resolved = await resolveParts(request.messages, { accountId: account.id, signal: ctx.ex.signal, options: partOptions });
    // The passes read the resolved text, and resolving cost `added` once: the hold covers both.
    const plan =
      resolved.messages === request.messages
        ? rawPlan
        : withPreprocessing(planChat(request, countPromptTokens(resolved.messages), model.max_output_tokens), resolved.added);
    const writer = stream?.writer;
    const run = startCompletion({
      id: head.id,
      request,
      conversation: resolved.messages,
      preprocessed: resolved.added,
      plan,
      accountId: account.id,
      tokenId: ctx.principal.token?.id ?? null,
      requestId: ctx.ex.requestId,
      services,
      backend: chat,
      registry: completions,
      signal: ctx.ex.signal,
      ready: writer ? () => writer.ready() : () => null,
      onEmit: stream?.relay.onEmit,
    });
    return { plan, run };
  };

  /** Serves a cache hit: charged its prompt tokens only (nothing was generated), marked cached. */
  const serveCached = async (ctx: RequestContext, request: ChatCompletionRequest, head: CompletionHeader, hit: CachedAnswer) => {
    const account = accountOf(ctx.principal);
    const usage = { promptTokens: countPromptTokens(request.messages), completionTokens: 0 };
    const hold = services.ledger.hold({ accountId: account.id, tokenId: ctx.principal.token?.id ?? null, amount: chatPriceMicros(usage) });
    const entry = await services.ledger.settle(hold, {
      charge: chatPriceMicros(usage),
      description: 'chat completion (cached)',
      requestId: ctx.ex.requestId,
      model: request.model,
      promptTokens: usage.promptTokens,
      completionTokens: 0,
    });
    const outcome: CompletionOutcome = { status: 'completed', choices: hit.choices, usage, priceMicros: entry ? -entry.amount : 0, error: null, cancelReason: null };
    const svc = runSvc(outcome.priceMicros, { cached: true, depth: hit.depth, status: 'completed', cancelReason: null });
    if (!request.stream) return json(completionObject(head, outcome.choices, usage, svc), 200, { ...priceHeaders(outcome), 'x-completion-id': head.id });
    const relay = new StreamRelay(new SseWriter(ctx.ex), head, { n: request.n, progress: false, includeUsage: request.stream_options?.include_usage === true });
    hit.choices.forEach((choice, index) => {
      if (choice.text) relay.onEmit({ type: 'delta', choice: index, text: choice.text });
      choice.toolCalls.forEach((call, i) => relay.onEmit({ type: 'tool_call', choice: index, index: i, id: call.id, name: call.name, arguments: call.arguments }));
    });
    relay.finish(outcome, svc);
    return undefined;
  };

  const remember = (key: string | null, outcome: CompletionOutcome, depth: string) => {
    if (!key || outcome.status !== 'completed') return;
    chatCache.put(key, outcome.choices, depth).catch((err: unknown) => logger.warn('chat cache write failed', { err }));
  };

  return [
    {
      method: 'POST',
      path: '/v1/chat/completions',
      auth: 'token',
      async handler(ctx) {
        const request = await ctx.json(ChatCompletionRequestSchema);
        const model = requireModel(request.model);
        requireVariant(request.target_variant_id, model);
        const head: CompletionHeader = {
          id: `chatcmpl-${randomBase62(24)}`,
          created: Math.floor(Date.now() / 1000),
          model: model.id,
          legacyFunctions: !request.tools && Boolean(request.functions),
        };
        const cacheKey = chatCache.keyOf(accountOf(ctx.principal).id, request);
        const hit = cacheKey ? chatCache.get(cacheKey) : undefined;
        if (hit) return serveCached(ctx, request, head, hit);
        if (!request.stream) {
          const { plan, run } = await start(ctx, request, model, head, null);
          const outcome = await run.done;
          if (outcome.status === 'failed') throw upstreamError(outcome.error);
          remember(cacheKey, outcome, plan.depth);
          return json(completionObject(head, outcome.choices, outcome.usage, svcOf(outcome, plan.depth)), 200, { ...priceHeaders(outcome), 'x-completion-id': head.id });
        }
        const writer = new SseWriter(ctx.ex);
        const relay = new StreamRelay(writer, head, {
          n: request.n,
          progress: request.stream_options?.include_progress_text === true,
          includeUsage: request.stream_options?.include_usage === true,
        });
        const { plan, run } = await start(ctx, request, model, head, { relay, writer });
        const outcome = await run.done;
        if (outcome.status === 'failed') {
          if (!relay.isOpen) throw upstreamError(outcome.error);
          relay.fail(upstreamError(outcome.error), ctx.ex.requestId);
          return undefined;
        }
        relay.finish(outcome, svcOf(outcome, plan.depth));
        remember(cacheKey, outcome, plan.depth);
        return undefined;
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/completions/:completion_id/live-input',
      auth: 'token',
      async handler(ctx) {
        const body = await ctx.json(LiveInputRequestSchema);
        const sessionId = completions.get(ctx.params.completion_id!, accountOf(ctx.principal).id) ? undefined : sessionRun(ctx);
        if (sessionId) {
          const event: SessionEvent = { type: 'LIVE_INPUT', content: body.content, questionId: body.question_id ?? null, source: body.source, modality: body.modality, at: clock.now() };
          return toSession(ctx, sessionId, event, 'send live input to');
        }
        const { actor } = find(ctx);
        if (actor.getSnapshot().status !== 'active') {
          throw new ApiError('conflict', 'This completion has finished; live input can no longer join it.', { headers: { 'x-should-retry': 'false' } });
        }
        actor.send({ type: 'LIVE_INPUT', content: body.content, questionId: body.question_id ?? null, source: body.source, modality: body.modality, at: Date.now() });
        const { context, value } = actor.getSnapshot();
        return json({ object: 'chat.completion.live_input', completion_id: context.id, accepted: true, seq: context.liveInputs.length, state: stateName(value) });
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/completions/:completion_id/live-input',
      auth: 'token',
      handler(ctx) {
        const { context, value, status } = find(ctx).actor.getSnapshot();
        return json({
          object: 'chat.completion.live_input_status',
          completion_id: context.id,
          state: stateName(value),
          active: status === 'active',
          phase: context.pass,
          inputs: context.liveInputs.map((input) => ({ seq: input.seq, source: input.source, modality: input.modality, question_id: input.questionId, used_in: input.usedIn, received_at: Math.floor(input.receivedAt / 1000) })),
          pending: context.liveInputs.filter((input) => input.usedIn === null).length,
        });
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/completions/:completion_id/cancel',
      auth: 'token',
      async handler(ctx) {
        const hasBody = Number(ctx.ex.headers['content-length'] ?? 0) > 0 || ctx.ex.headers['transfer-encoding'] !== undefined;
        const body = hasBody ? await ctx.json(CancelRequestSchema) : { reason: null };
        const sessionId = completions.get(ctx.params.completion_id!, accountOf(ctx.principal).id) ? undefined : sessionRun(ctx);
        if (sessionId) return toSession(ctx, sessionId, { type: 'CANCEL', reason: body.reason ?? null, at: clock.now() }, 'cancel');
        const handle = find(ctx);
        const wasActive = handle.actor.getSnapshot().status === 'active';
        handle.cancel(body.reason ?? null);
        const { context, value } = handle.actor.getSnapshot();
        return json({ object: 'chat.completion.cancel', completion_id: context.id, cancelled: wasActive && value === 'cancelled', state: stateName(value) });
      },
    },
  ];
}
