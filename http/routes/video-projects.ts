import {
  AttachJobSchema,
  CreateVideoProjectSchema,
  UpdateVideoNodeSchema,
  VideoNodeActionSchema,
  VideoNodeChangeSchema,
  VideoProjectListQuerySchema,
  VideoProjectListSchema,
  VideoProjectSchema,
} from '../../protocols/video.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import { videoNodeChangeView, videoProjectListView, videoProjectView } from '../views/video-project-view.js';
import { mediaSigner } from './media-urls.js';

/** Video projects (spec §4.8): graphs of scene and shot nodes, approved node by node and rendered by attached jobs. */
export function videoProjectRoutes(deps: AppDeps): RouteDef[] {
  const { videoProjects } = deps;
  const owner = (ctx: RequestContext) => accountOf(ctx.principal).id;
  const sign = (ctx: RequestContext) => mediaSigner(ctx, deps);
  const node = (ctx: RequestContext) => [owner(ctx), ctx.params.project_id!, ctx.params.node_id!] as const;
  return [
    {
      method: 'POST',
      path: '/v1/video-projects',
      auth: 'token',
      schema: { body: CreateVideoProjectSchema, response: VideoProjectSchema, status: 201 },
      handler: async (ctx) =>
        json(
          videoProjectView(await videoProjects.create(owner(ctx), await ctx.json(CreateVideoProjectSchema)), sign(ctx)),
          201,
        ),
    },
    {
      method: 'GET',
      path: '/v1/video-projects',
      auth: 'token',
      schema: { query: VideoProjectListQuerySchema, response: VideoProjectListSchema },
      async handler(ctx) {
        const { limit } = ctx.query(VideoProjectListQuerySchema);
        const { projects, hasMore } = await videoProjects.list(owner(ctx), limit);
        return json(videoProjectListView(projects, limit, hasMore, sign(ctx)));
      },
    },
    {
      method: 'GET',
      path: '/v1/video-projects/:project_id',
      auth: 'token',
      schema: { response: VideoProjectSchema },
      handler: async (ctx) =>
        json(videoProjectView(await videoProjects.get(owner(ctx), ctx.params.project_id!), sign(ctx))),
    },
    {
      method: 'PATCH',
      path: '/v1/video-projects/:project_id/nodes/:node_id',
      auth: 'token',
      schema: { body: UpdateVideoNodeSchema, response: VideoNodeChangeSchema },
      async handler(ctx) {
        const patch = await ctx.json(UpdateVideoNodeSchema);
        return json(videoNodeChangeView(await videoProjects.updateNode(...node(ctx), patch), sign(ctx)));
      },
    },
    {
      method: 'POST',
      path: '/v1/video-projects/:project_id/nodes/:node_id/approve',
      auth: 'token',
      schema: { body: VideoNodeActionSchema, response: VideoNodeChangeSchema },
      async handler(ctx) {
        const hasBody = Number(ctx.ex.headers['content-length'] ?? 0) > 0;
        const body = hasBody ? await ctx.json(VideoNodeActionSchema) : { note: null };
        return json(videoNodeChangeView(await videoProjects.approve(...node(ctx), body.note ?? null), sign(ctx)));
      },
    },
    {
      method: 'POST',
      path: '/v1/video-projects/:project_id/nodes/:node_id/attach-job',
      auth: 'token',
      schema: { body: AttachJobSchema, response: VideoNodeChangeSchema },
      async handler(ctx) {
        const { job_id } = await ctx.json(AttachJobSchema);
        return json(videoNodeChangeView(await videoProjects.attachJob(...node(ctx), job_id), sign(ctx)));
      },
    },
  ];
}
