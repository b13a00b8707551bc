import { formBody, receiveForm } from '../../actors/images/form-intake.js';
import type { VideoJobState } from '../../actors/video/video-job-service.js';
import { CancelRequestSchema } from '../../protocols/chat-live.js';
import { ApiError, quoted } from '../../protocols/errors.js';
import { requireModel } from '../../protocols/models.js';
import { fieldError, parseOrThrow } from '../../protocols/validation.js';
import {
  VIDEO_FORM_INTEGERS,
  VideoContentQuerySchema,
  VideoDeletedSchema,
  VideoEventsQuerySchema,
  VideoGenerationRequestSchema,
  VideoJobEventSchema,
  VideoJobListSchema,
  VideoJobSchema,
  VideoListQuerySchema,
  type VideoGenerationRequest,
} from '../../protocols/video.js';
import type { z } from 'zod';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type Reply, type RequestContext, type RouteDef } from '../route.js';
import { followVideoJob } from '../views/video-events.js';
import { videoJobView } from '../views/video-view.js';
import { mediaSigner } from './media-urls.js';

/** A `videos.create` form: prompt, model, seconds, size (and an `input_reference` file, not used by our backends). */
const VIDEO_FORM_LIMITS = { maxBytes: 32 * 1024 * 1024, maxFileBytes: 25 * 1024 * 1024, maxParts: 20 };

/**
 * Video jobs: the spec's `/v1/videos/generations` (create with Idempotency-Key, read, cancel,
 * follow over SSE) and the official SDK's `/v1/videos` (create, retrieve, list, delete,
 * downloadContent), over the same durable job actors.
 */
export function videoRoutes(deps: AppDeps): RouteDef[] {
  const { videos } = deps;
  const owner = (ctx: RequestContext) => accountOf(ctx.principal).id;
  const view = (ctx: RequestContext, job: VideoJobState) => videoJobView(job, mediaSigner(ctx, deps));

  const create = async (ctx: RequestContext, request: VideoGenerationRequest, created: number): Promise<Reply> => {
    const model = requireModel(request.model);
    const { job, replayed } = await videos.create({
      accountId: owner(ctx),
      tokenId: ctx.principal.token?.id ?? null,
      request,
      model: model.id,
      idempotencyKey: ctx.ex.headers['idempotency-key'],
    });
    return replayed ? json(view(ctx, job), 200, { 'idempotent-replayed': 'true' }) : json(view(ctx, job), created);
  };

  /** JSON, or the multipart the SDK's `videos.create` sends; the whole body is read before any answer. */
  const readRequest = async (ctx: RequestContext): Promise<VideoGenerationRequest> => {
    const type = ctx.ex.headers['content-type'] ?? '';
    if (/^multipart\/form-data/i.test(type)) {
      const form = await receiveForm(
        { contentType: type, pipeBody: (sink, limit) => ctx.ex.pipeBody(sink, limit) },
        VIDEO_FORM_LIMITS,
      );
      return parseOrThrow(VideoGenerationRequestSchema, formBody(form.fields, { integers: VIDEO_FORM_INTEGERS }));
    }
    if (type === '' || /^application\/json/i.test(type)) return ctx.json(VideoGenerationRequestSchema);
    await ctx.ex.readBody(VIDEO_FORM_LIMITS.maxBytes).catch(() => undefined);
    throw new ApiError(
      'unsupported_media_type',
      `Unsupported Content-Type "${quoted(type)}": send application/json or multipart/form-data.`,
    );
  };

  const cancel = async (ctx: RequestContext, id: string) => {
    const hasBody = Number(ctx.ex.headers['content-length'] ?? 0) > 0;
    const body = hasBody ? await ctx.json(CancelRequestSchema) : { reason: null };
    return json(view(ctx, await videos.cancel(owner(ctx), id, body.reason ?? null)));
  };

  const events = (ctx: RequestContext, id: string) => {
    const { after } = ctx.query(VideoEventsQuerySchema);
    const accountId = owner(ctx);
    const job = videos.get(accountId, id); // 404 before the stream opens
    followVideoJob(
      ctx.ex,
      job.id,
      after,
      (from, follower) => videos.follow(accountId, job.id, from, follower),
      mediaSigner(ctx, deps),
    );
    return undefined;
  };

  const job = { response: VideoJobSchema };
  const cancelSchema = { body: CancelRequestSchema, response: VideoJobSchema };
  const eventsSchema = { query: VideoEventsQuerySchema, events: VideoJobEventSchema };
  // Created (201 here, 200 for the SDK), or 200 when an Idempotency-Key replays an earlier create.
  const created = (status: number) => ({
    body: VideoGenerationRequestSchema,
    response: VideoJobSchema,
    status: [...new Set([status, 200])],
  });
  return [
    // ---- the spec's routes ----
    {
      method: 'POST',
      path: '/v1/videos/generations',
      auth: 'token',
      schema: created(201),
      handler: async (ctx) => create(ctx, await ctx.json(VideoGenerationRequestSchema), 201),
    },
    {
      method: 'GET',
      path: '/v1/videos/generations/:job_id',
      auth: 'token',
      schema: job,
      handler: (ctx) => json(view(ctx, videos.get(owner(ctx), ctx.params.job_id!))),
    },
    {
      method: 'POST',
      path: '/v1/videos/generations/:job_id/cancel',
      auth: 'token',
      schema: cancelSchema,
      handler: (ctx) => cancel(ctx, ctx.params.job_id!),
    },
    {
      method: 'GET',
      path: '/v1/videos/generations/:job_id/events',
      auth: 'token',
      schema: eventsSchema,
      handler: (ctx) => events(ctx, ctx.params.job_id!),
    },
    // ---- the SDK's `videos` resource ----
    {
      method: 'POST',
      path: '/v1/videos',
      auth: 'token',
      maxBodyBytes: VIDEO_FORM_LIMITS.maxBytes,
      schema: {
        ...created(200),
        form: { fields: VideoGenerationRequestSchema, files: { input_reference: 'image/png, image/jpeg, image/webp' } },
      },
      handler: async (ctx) => create(ctx, await readRequest(ctx), 200),
    },
    {
      method: 'GET',
      path: '/v1/videos',
      auth: 'token',
      schema: { query: VideoListQuerySchema, response: VideoJobListSchema },
      handler(ctx) {
        const query = ctx.query(VideoListQuerySchema);
        const { jobs, hasMore } = videos.list(owner(ctx), query);
        const body: z.output<typeof VideoJobListSchema> = {
          object: 'list',
          data: jobs.map((job) => view(ctx, job)),
          first_id: jobs[0]?.id ?? null,
          last_id: jobs.at(-1)?.id ?? null,
          has_more: hasMore,
        };
        return json(body);
      },
    },
    {
      method: 'GET',
      path: '/v1/videos/:video_id',
      auth: 'token',
      schema: job,
      handler: (ctx) => json(view(ctx, videos.get(owner(ctx), ctx.params.video_id!))),
    },
    {
      method: 'DELETE',
      path: '/v1/videos/:video_id',
      auth: 'token',
      schema: { response: VideoDeletedSchema },
      async handler(ctx) {
        const { id } = await videos.remove(owner(ctx), ctx.params.video_id!);
        const body: z.output<typeof VideoDeletedSchema> = { id, object: 'video.deleted', deleted: true };
        return json(body);
      },
    },
    {
      method: 'POST',
      path: '/v1/videos/:video_id/cancel',
      auth: 'token',
      schema: cancelSchema,
      handler: (ctx) => cancel(ctx, ctx.params.video_id!),
    },
    {
      method: 'GET',
      path: '/v1/videos/:video_id/events',
      auth: 'token',
      schema: eventsSchema,
      handler: (ctx) => events(ctx, ctx.params.video_id!),
    },
    {
      method: 'GET',
      path: '/v1/videos/:video_id/content',
      auth: 'token',
      schema: { query: VideoContentQuerySchema, media: ['video/mp4'] },
      async handler(ctx) {
        const { variant } = ctx.query(VideoContentQuerySchema);
        if (variant !== 'video')
          throw fieldError(['query', 'variant'], `only the video itself is served, not a ${variant}`);
        const { record, size, chunks } = await videos.content(owner(ctx), ctx.params.video_id!);
        await ctx.ex.sendSized(
          200,
          {
            'content-type': record.contentType,
            'content-disposition': `attachment; filename="${ctx.params.video_id!}.mp4"`,
          },
          size,
          chunks,
        );
        return undefined;
      },
    },
  ];
}
