import type { VideoNodeRecord, VideoProjectView } from '../../actors/video/video-project-service.js';
import {
  VIDEO_NODE_STATES,
  type VideoNodeSchema,
  type VideoProjectListSchema,
  type VideoProjectSchema,
  type VideoNodeChangeSchema,
} from '../../protocols/video.js';
import type { z } from 'zod';
import type { UrlSigner } from './video-view.js';

type NodeWire = z.output<typeof VideoNodeSchema>;
type ProjectWire = z.output<typeof VideoProjectSchema>;

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

function nodeView(node: VideoNodeRecord, view: VideoProjectView, sign: UrlSigner): NodeWire {
  const { life } = node;
  const job = life.context.jobId ? view.jobs.get(life.context.jobId) : undefined;
  const output = life.state === 'rendered' && life.context.mediaId ? sign(life.context.mediaId) : null;
  return {
    id: node.id,
    type: node.type,
    title: node.title,
    prompt: node.prompt,
    duration_seconds: node.durationSeconds,
    depends_on: node.dependsOn,
    metadata: node.metadata,
    status: life.state,
    note: life.context.note,
    approved_at: seconds(life.context.approvedAt),
    job: job
      ? { id: job.id, status: job.status, progress: job.state === 'completed' ? 100 : job.context.progress }
      : null,
    output: output ? { url: output.url, expires_at: Math.floor(output.expiresAt / 1000) } : null,
    error:
      life.state === 'failed' ? (life.context.error ?? { code: 'internal_error', message: 'the job failed' }) : null,
    updated_at: Math.floor(life.context.updatedAt / 1000),
  };
}

function counts(view: VideoProjectView): ProjectWire['status_counts'] {
  const out = Object.fromEntries(VIDEO_NODE_STATES.map((state) => [state, 0])) as ProjectWire['status_counts'];
  for (const node of view.project.nodes) out[node.life.state]++;
  return out;
}

/** A project on the wire, nodes included, each with its job's status and (rendered) a signed URL of its clip. */
export function videoProjectView(view: VideoProjectView, sign: UrlSigner): ProjectWire {
  const { project } = view;
  return {
    id: project.id,
    object: 'video.project',
    name: project.name,
    description: project.description,
    metadata: project.metadata,
    created_at: Math.floor(project.createdAt / 1000),
    updated_at: Math.floor(project.updatedAt / 1000),
    node_count: project.nodes.length,
    status_counts: counts(view),
    nodes: project.nodes.map((node) => nodeView(node, view, sign)),
  };
}

/** GET /v1/video-projects: projects without their nodes (counts per state instead). */
export function videoProjectListView(
  views: readonly VideoProjectView[],
  limit: number,
  hasMore: boolean,
  sign: UrlSigner,
): z.output<typeof VideoProjectListSchema> {
  return {
    object: 'list',
    data: views.map((view) => {
      const { id, object, name, description, metadata, created_at, updated_at, node_count, status_counts } =
        videoProjectView(view, sign);
      return { id, object, name, description, metadata, created_at, updated_at, node_count, status_counts };
    }),
    limit,
    has_more: hasMore,
  };
}

/** PATCH, approve and attach-job: the node that changed and its project. */
export function videoNodeChangeView(
  change: { view: VideoProjectView; node: VideoNodeRecord },
  sign: UrlSigner,
): z.output<typeof VideoNodeChangeSchema> {
  return {
    object: 'video.project.node',
    project_id: change.view.project.id,
    node: nodeView(change.node, change.view, sign),
    project: videoProjectView(change.view, sign),
  };
}
