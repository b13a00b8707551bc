import { z } from 'zod';
import type { Geometry, GeometryLimits } from './images.js';

/** Video frames: both sides multiples of 8 (H.264 4:2:0 needs even sides) from 128 to 1920, at most 4:1. */
export const VIDEO_GEOMETRY: GeometryLimits = { multiple: 8, minSide: 128, maxSide: 1920, maxAspect: 4 };

/** The frame size when the request names none. */
export const DEFAULT_VIDEO_SIZE: Geometry = { width: 1280, height: 720 };

/** Clip length in seconds when the request names none (the SDK's default too), and the longest clip. */
export const DEFAULT_VIDEO_SECONDS = 4;
export const MAX_VIDEO_SECONDS = 60;

/** `quality`: `high`/`hd` select premium, `low`/`standard` standard, the rest leave it to the rule. */
export const VIDEO_QUALITIES = ['low', 'medium', 'high', 'auto', 'standard', 'hd'] as const;

const optionalText = (max = 200) => z.string().max(max).nullable().optional();

/**
 * POST /v1/videos/generations (spec §2.7, extra properties accepted) and POST /v1/videos (the
 * SDK's `videos.create`, whose `seconds` is a string and which adds `size`).
 */
export const VideoGenerationRequestSchema = z.looseObject({
  prompt: z.string().min(1, 'must not be empty').max(32_000),
  model: z.string().min(1).max(200).default('pro-1'),
  duration_seconds: z.number().int().min(1).max(MAX_VIDEO_SECONDS).nullable().optional(),
  seconds: z
    .union([z.string().regex(/^\d{1,3}$/, 'must be a whole number of seconds'), z.number().int()])
    .nullable()
    .optional(),
  size: optionalText(32),
  quality: z.enum(VIDEO_QUALITIES).nullable().optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .nullable()
    .optional(),
  user: optionalText(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** A parsed video request. */
export type VideoGenerationRequest = z.output<typeof VideoGenerationRequestSchema>;

/** Multipart fields of `videos.create` that are numbers on the wire. */
export const VIDEO_FORM_INTEGERS = ['duration_seconds', 'seed'] as const;

/** Job statuses on the wire (OpenAI's names; the machine's `running` is `in_progress`). */
export const VIDEO_STATUSES = ['queued', 'in_progress', 'completed', 'failed', 'cancelled'] as const;

/** A video job's status. */
export type VideoStatus = (typeof VIDEO_STATUSES)[number];

/** The `svc` block of a job: tier, what is charged (0 until completion) and what is held. */
export const VideoSvcSchema = z.strictObject({
  model_version: z.string(),
  tier: z.enum(['standard', 'premium']),
  backend: z.string(),
  price_usd: z.number(),
  our_cost_usd: z.number(),
  hold_usd: z.number(),
  charged: z.boolean(),
  billing: z.strictObject({
    pricing_version: z.string(),
    billing_basis: z.literal('cost_plus'),
    markup_percent: z.number(),
    charged: z.literal('once_on_completion'),
  }),
  state: z.string(),
});

/** A video job (spec §2.7 and the SDK's `Video`): `data[].url` once completed. */
export const VideoJobSchema = z.strictObject({
  id: z.string(),
  object: z.literal('video'),
  status: z.enum(VIDEO_STATUSES),
  progress: z.number().int().min(0).max(100),
  created_at: z.number().int(),
  started_at: z.number().int().nullable(),
  completed_at: z.number().int().nullable(),
  expires_at: z.number().int().nullable(),
  model: z.string(),
  prompt: z.string(),
  seconds: z.string(),
  duration_seconds: z.number().int(),
  size: z.string(),
  quality: z.string().nullable(),
  seed: z.number().int(),
  remixed_from_video_id: z.null(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  data: z.array(
    z.strictObject({
      url: z.string(),
      expires_at: z.number().int(),
      content_type: z.string(),
      bytes: z.number().int(),
    }),
  ),
  svc: VideoSvcSchema,
});

/** A job on the wire. */
export type VideoJobObject = z.output<typeof VideoJobSchema>;

/** GET /v1/videos: the SDK's cursor page. */
export const VideoJobListSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(VideoJobSchema),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

/** GET /v1/videos query (`after` is a job id; `order` by creation time). */
export const VideoListQuerySchema = z.looseObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().max(200).optional(),
  order: z.enum(['asc', 'desc']).default('desc'),
});

/** GET …/content query (the SDK's `variant`). */
export const VideoContentQuerySchema = z.looseObject({
  variant: z.enum(['video', 'thumbnail', 'spritesheet']).default('video'),
});

/** GET …/events query: events after this seq (-1 from the start). */
export const VideoEventsQuerySchema = z.looseObject({ after: z.coerce.number().int().min(-1).default(-1) });

/** One job event on the wire (SSE `data`), `{seq, type, ts, data}`. */
export const VideoJobEventSchema = z.strictObject({
  seq: z.number().int(),
  type: z.enum(['queued', 'started', 'progress', 'completed', 'failed', 'cancelled']),
  ts: z.number(),
  data: z.record(z.string(), z.unknown()),
});

/** DELETE /v1/videos/{id}. */
export const VideoDeletedSchema = z.strictObject({
  id: z.string(),
  object: z.literal('video.deleted'),
  deleted: z.literal(true),
});

// ---- Video projects (spec §4.8; the bodies are ours, documented in docs/video.md) ----

/** A node id: chosen by the client, unique in its project. */
export const NodeIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -');

/** Node kinds: a scene groups shots; a shot is what a video job renders. */
export const VIDEO_NODE_TYPES = ['scene', 'shot'] as const;

/** Node states (the node machine's). */
export const VIDEO_NODE_STATES = ['draft', 'approved', 'rendering', 'rendered', 'failed'] as const;

/** A node in a create-project body. */
export const VideoNodeInputSchema = z.looseObject({
  id: NodeIdSchema,
  type: z.enum(VIDEO_NODE_TYPES).default('shot'),
  title: z.string().max(200).nullable().optional(),
  prompt: z.string().max(32_000).default(''),
  duration_seconds: z.number().int().min(1).max(MAX_VIDEO_SECONDS).nullable().optional(),
  depends_on: z.array(NodeIdSchema).max(100).default([]),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** Issues of a node graph: unique ids, known dependencies, no self-dependency, no cycle. */
export function graphIssues(
  nodes: readonly { id: string; depends_on: readonly string[] }[],
): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const index = new Map<string, number>();
  nodes.forEach((node, i) => {
    if (index.has(node.id)) issues.push({ path: ['nodes', i, 'id'], message: `duplicate node id ${node.id}` });
    else index.set(node.id, i);
  });
  nodes.forEach((node, i) =>
    node.depends_on.forEach((dep, j) => {
      if (dep === node.id)
        issues.push({ path: ['nodes', i, 'depends_on', j], message: 'a node cannot depend on itself' });
      else if (!index.has(dep))
        issues.push({ path: ['nodes', i, 'depends_on', j], message: `no node ${dep} in this project` });
    }),
  );
  if (issues.length > 0) return issues;
  const cycle = findCycle(nodes);
  if (cycle)
    issues.push({
      path: ['nodes', index.get(cycle[0]!)!, 'depends_on'],
      message: `dependencies form a cycle: ${cycle.join(' → ')}`,
    });
  return issues;
}

/** A dependency cycle as node ids (first repeated at the end), or null for a DAG. */
export function findCycle(nodes: readonly { id: string; depends_on: readonly string[] }[]): string[] | null {
  const deps = new Map(nodes.map((node) => [node.id, node.depends_on]));
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === 2) return null;
    if (state.get(id) === 1) return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 1);
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    stack.pop();
    state.set(id, 2);
    return null;
  };
  for (const node of nodes) {
    const found = visit(node.id);
    if (found) return found;
  }
  return null;
}

/** POST /v1/video-projects. */
export const CreateVideoProjectSchema = z
  .looseObject({
    name: z.string().trim().min(1, 'must not be empty').max(200),
    description: z.string().max(4000).nullable().optional(),
    nodes: z.array(VideoNodeInputSchema).max(500).default([]),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((body, ctx) => {
    for (const issue of graphIssues(body.nodes))
      ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });

/** A parsed create-project body. */
export type CreateVideoProject = z.output<typeof CreateVideoProjectSchema>;

/** PATCH …/nodes/{node_id}: only the fields present change. */
export const UpdateVideoNodeSchema = z.looseObject({
  type: z.enum(VIDEO_NODE_TYPES).optional(),
  title: z.string().max(200).nullable().optional(),
  prompt: z.string().max(32_000).optional(),
  duration_seconds: z.number().int().min(1).max(MAX_VIDEO_SECONDS).nullable().optional(),
  depends_on: z.array(NodeIdSchema).max(100).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** A parsed node update. */
export type UpdateVideoNode = z.output<typeof UpdateVideoNodeSchema>;

/** POST …/approve (body optional): a note kept with the approval. */
export const VideoNodeActionSchema = z.looseObject({
  note: z.string().max(2000).nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** POST …/attach-job: the video job (of the same account) that renders the node. */
export const AttachJobSchema = z.looseObject({ job_id: z.string().min(1).max(200) });

/** GET /v1/video-projects query (spec: limit default 50). */
export const VideoProjectListQuerySchema = z.looseObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** A node on the wire. */
export const VideoNodeSchema = z.strictObject({
  id: z.string(),
  type: z.enum(VIDEO_NODE_TYPES),
  title: z.string().nullable(),
  prompt: z.string(),
  duration_seconds: z.number().int().nullable(),
  depends_on: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  status: z.enum(VIDEO_NODE_STATES),
  note: z.string().nullable(),
  approved_at: z.number().int().nullable(),
  job: z.strictObject({ id: z.string(), status: z.enum(VIDEO_STATUSES), progress: z.number().int() }).nullable(),
  output: z.strictObject({ url: z.string(), expires_at: z.number().int() }).nullable(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  updated_at: z.number().int(),
});

/** Nodes per state. */
const StatusCountsSchema = z.strictObject(
  Object.fromEntries(VIDEO_NODE_STATES.map((state) => [state, z.number().int()])) as Record<
    (typeof VIDEO_NODE_STATES)[number],
    z.ZodNumber
  >,
);

/** A project on the wire. */
export const VideoProjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('video.project'),
  name: z.string(),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  node_count: z.number().int(),
  status_counts: StatusCountsSchema,
  nodes: z.array(VideoNodeSchema),
});

/** GET /v1/video-projects: projects without their nodes, newest first. */
export const VideoProjectListSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(VideoProjectSchema.omit({ nodes: true })),
  limit: z.number().int(),
  has_more: z.boolean(),
});

/** PATCH, approve and attach-job answer the project and the node that changed. */
export const VideoNodeChangeSchema = z.strictObject({
  object: z.literal('video.project.node'),
  project_id: z.string(),
  node: VideoNodeSchema,
  project: VideoProjectSchema,
});
