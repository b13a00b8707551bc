import { ChatCompletionRequestSchema } from '../../protocols/chat.js';
import { CancelRequestSchema, LiveInputRequestSchema } from '../../protocols/chat-live.js';
import {
  SessionDeletedSchema,
  SessionDeleteQuerySchema,
  SessionEventSchema,
  SessionEventsPageSchema,
  SessionEventsQuerySchema,
  SessionListQuerySchema,
  SessionListSchema,
  SessionLiveInputAckSchema,
  SessionObjectSchema,
  SessionResultSchema,
  WorkbookCsvQuerySchema,
  WorkbookObjectSchema,
  type SessionLiveInputAck,
} from '../../protocols/chat-session.js';
import type { AppDeps } from '../app-deps.js';
import { followSession, sessionEventsPage } from '../views/session-events.js';
import { sessionDeletedView, sessionListView, sessionResult, sessionView } from '../views/session-view.js';
import { sendWorkbookCsv, sendWorkbookXlsx, workbookView } from '../views/workbook-replies.js';
import { CSV_CONTENT_TYPE } from '../views/workbook-csv.js';
import { XLSX_CONTENT_TYPE } from '../views/workbook-xlsx.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { requireModel, requireVariant } from '../../protocols/models.js';

/** Chat sessions: durable, resumable runs with approval, clarification, events and results. */
export function chatSessionRoutes({ sessions }: AppDeps): RouteDef[] {
  const owner = (ctx: RequestContext) => accountOf(ctx.principal).id;
  const id = (ctx: RequestContext) => ctx.params.session_id!;

  /** The session as it is after an action on it. */
  const sessionAnswer = { response: SessionObjectSchema };
  return [
    {
      method: 'POST',
      path: '/v1/chat/sessions',
      auth: 'token',
      // 201 created; 200 when an Idempotency-Key replays an earlier create.
      schema: { body: ChatCompletionRequestSchema, response: SessionObjectSchema, status: [201, 200] },
      async handler(ctx) {
        const idempotencyKey = ctx.ex.headers['idempotency-key'];
        const request = await ctx.json(ChatCompletionRequestSchema);
        const model = requireModel(request.model);
        requireVariant(request.target_variant_id, model);
        const { session, replayed } = await sessions.create({
          accountId: owner(ctx),
          tokenId: ctx.principal.token?.id ?? null,
          request,
          model,
          signal: ctx.ex.signal,
          idempotencyKey,
        });
        return replayed
          ? json(sessionView(session), 200, { 'idempotent-replayed': 'true' })
          : json(sessionView(session), 201);
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions',
      auth: 'token',
      schema: { query: SessionListQuerySchema, response: SessionListSchema },
      handler(ctx) {
        const { limit } = ctx.query(SessionListQuerySchema);
        return json(sessionListView(sessions.list(owner(ctx), limit), limit));
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id',
      auth: 'token',
      schema: sessionAnswer,
      handler: (ctx) => json(sessionView(sessions.get(owner(ctx), id(ctx)))),
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id/result',
      auth: 'token',
      schema: { response: SessionResultSchema },
      handler: (ctx) => json(sessionResult(sessions.result(owner(ctx), id(ctx)))),
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id/workbook',
      auth: 'token',
      schema: { response: WorkbookObjectSchema },
      handler(ctx) {
        const { session, workbook } = sessions.workbook(owner(ctx), id(ctx));
        return json(workbookView(session, workbook));
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id/workbook.csv',
      auth: 'token',
      schema: { query: WorkbookCsvQuerySchema, media: [CSV_CONTENT_TYPE] },
      handler(ctx) {
        const { session, workbook } = sessions.workbook(owner(ctx), id(ctx));
        return sendWorkbookCsv(ctx.ex, session, workbook, ctx.query(WorkbookCsvQuerySchema).sheet);
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id/workbook.xlsx',
      auth: 'token',
      schema: { media: [XLSX_CONTENT_TYPE] },
      handler(ctx) {
        const { session, workbook } = sessions.workbook(owner(ctx), id(ctx));
        return sendWorkbookXlsx(ctx.ex, session, workbook);
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id/events-page',
      auth: 'token',
      schema: { query: SessionEventsQuerySchema, response: SessionEventsPageSchema },
      handler(ctx) {
        const { after, limit } = ctx.query(SessionEventsQuerySchema);
        const { session, events } = sessions.events(owner(ctx), id(ctx), after, limit);
        return json(sessionEventsPage(session.id, events, after, limit));
      },
    },
    {
      method: 'GET',
      path: '/v1/chat/sessions/:session_id/events',
      auth: 'token',
      schema: { query: SessionEventsQuerySchema.pick({ after: true }), events: SessionEventSchema },
      handler(ctx) {
        const { after } = ctx.query(SessionEventsQuerySchema.pick({ after: true }));
        const accountId = owner(ctx);
        // Found (or 404) before the stream opens.
        const session = sessions.get(accountId, id(ctx));
        followSession(ctx.ex, session.id, after, (from, follower) =>
          sessions.follow(accountId, session.id, from, follower),
        );
        return undefined;
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/sessions/:session_id/approve',
      auth: 'token',
      schema: sessionAnswer,
      handler: async (ctx) => json(sessionView(await sessions.approve(owner(ctx), id(ctx), ctx.ex.signal))),
    },
    {
      method: 'POST',
      path: '/v1/chat/sessions/:session_id/live-input',
      auth: 'token',
      schema: { body: LiveInputRequestSchema, response: SessionLiveInputAckSchema },
      async handler(ctx) {
        const body = await ctx.json(LiveInputRequestSchema);
        const input = {
          content: body.content,
          questionId: body.question_id ?? null,
          source: body.source,
          modality: body.modality,
        };
        const ack: SessionLiveInputAck = {
          ...sessionView(await sessions.liveInput(owner(ctx), id(ctx), input)),
          accepted: true,
        };
        return json(ack);
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/sessions/:session_id/cancel',
      auth: 'token',
      schema: { body: CancelRequestSchema, bodyOptional: true, ...sessionAnswer },
      async handler(ctx) {
        const body = await ctx.optionalJson(CancelRequestSchema);
        return json(sessionView(await sessions.cancel(owner(ctx), id(ctx), body?.reason ?? null)));
      },
    },
    {
      method: 'POST',
      path: '/v1/chat/sessions/:session_id/acknowledge',
      auth: 'token',
      schema: sessionAnswer,
      handler: async (ctx) => json(sessionView(await sessions.acknowledge(owner(ctx), id(ctx)))),
    },
    {
      method: 'DELETE',
      path: '/v1/chat/sessions/:session_id',
      auth: 'token',
      schema: { query: SessionDeleteQuerySchema, response: SessionDeletedSchema },
      async handler(ctx) {
        const { force, delete_artifacts } = ctx.query(SessionDeleteQuerySchema);
        return json(
          sessionDeletedView(await sessions.delete(owner(ctx), id(ctx), { force, deleteArtifacts: delete_artifacts })),
        );
      },
    },
  ];
}
