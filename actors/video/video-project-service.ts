import { ApiError } from '../../protocols/errors.js';
import { findCycle, type CreateVideoProject, type UpdateVideoNode } from '../../protocols/video.js';
import { fieldError } from '../../protocols/validation.js';
import type { Clock } from '../../runtime/clock.js';
import { newId } from '../../runtime/ids.js';
import { KeyedMutex } from '../../runtime/keyed-mutex.js';
import type { Store, Table } from '../../runtime/store/store.js';
import type { VideoJobService, VideoJobState } from './video-job-service.js';
import {
  initialNodeLife,
  nextNodeState,
  type NodeLife,
  type VideoNodeEvent,
  type VideoNodeState,
} from './video-node-machine.js';

/** One node of a project: its content and its life (the node machine's state). */
export interface VideoNodeRecord {
  id: string;
  type: 'scene' | 'shot';
  title: string | null;
  prompt: string;
  durationSeconds: number | null;
  dependsOn: string[];
  metadata: Record<string, unknown>;
  life: NodeLife;
}

/** A video project: a graph of nodes, owned by one account. */
export interface VideoProjectRecord {
  id: string;
  ownerId: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  nodes: VideoNodeRecord[];
}

/** A project as read, with the current state of each node's job. */
export interface VideoProjectView {
  project: VideoProjectRecord;
  jobs: Map<string, VideoJobState>;
}

/** Nodes that count as approved for their dependants. */
const APPROVED_OR_BEYOND: readonly VideoNodeState[] = ['approved', 'rendering', 'rendered', 'failed'];

/**
 * Video projects (spec §4.8): a graph of scene and shot nodes with prompts and dependencies.
 * Each node's life is the node machine (draft → approved → rendering → rendered | failed); a
 * node follows the video job attached to it, brought up to date whenever its project is read or
 * changed. Projects are records in the store, changed one at a time per project; another
 * account's project is 404.
 */
export class VideoProjectService {
  private readonly projects: Table<VideoProjectRecord>;
  private readonly byOwner: Table<1>;
  private readonly changes = new KeyedMutex();

  constructor(private readonly options: { store: Store; clock: Clock; jobs: VideoJobService }) {
    this.projects = options.store.table<VideoProjectRecord>('video_projects');
    this.byOwner = options.store.table<1>('video_projects_by_owner');
  }

  /** Creates a project from a validated body (its graph already checked: unique ids, known dependencies, no cycle). */
  async create(accountId: string, body: CreateVideoProject): Promise<VideoProjectView> {
    const at = this.options.clock.now();
    const project: VideoProjectRecord = {
      id: newId('vproj'),
      ownerId: accountId,
      name: body.name,
      description: body.description ?? null,
      metadata: body.metadata ?? {},
      createdAt: at,
      updatedAt: at,
      nodes: body.nodes.map((node) => ({
        id: node.id,
        type: node.type,
        title: node.title ?? null,
        prompt: node.prompt,
        durationSeconds: node.duration_seconds ?? null,
        dependsOn: [...new Set(node.depends_on)],
        metadata: node.metadata ?? {},
        life: initialNodeLife(at),
      })),
    };
    await this.options.store.transaction(() => {
      void this.projects.put(project.id, project);
      void this.byOwner.put([accountId, at, project.id], 1);
    });
    return { project, jobs: new Map() };
  }

  /** The account's projects, newest first, at most `limit`. */
  async list(accountId: string, limit: number): Promise<{ projects: VideoProjectView[]; hasMore: boolean }> {
    const ids: string[] = [];
    for (const key of this.byOwner.getKeys({
      start: [accountId, Number.MAX_SAFE_INTEGER],
      end: [accountId, 0],
      reverse: true,
      limit: limit + 1,
    })) {
      ids.push((key as [string, number, string])[2]);
    }
    const projects: VideoProjectView[] = [];
    for (const id of ids.slice(0, limit)) {
      const view = await this.read(accountId, id).catch(() => null);
      if (view) projects.push(view);
    }
    return { projects, hasMore: ids.length > limit };
  }

  /** Project `id` of `accountId`, its nodes up to date with their jobs; 404 otherwise. */
  get(accountId: string, id: string): Promise<VideoProjectView> {
    return this.read(accountId, id);
  }

  /** Changes the fields present; a node whose content changes goes back to draft (409 while it renders). */
  updateNode(
    accountId: string,
    projectId: string,
    nodeId: string,
    patch: UpdateVideoNode,
  ): Promise<{ view: VideoProjectView; node: VideoNodeRecord }> {
    return this.change(accountId, projectId, nodeId, (project, node, at) => {
      const next: VideoNodeRecord = {
        ...node,
        type: patch.type ?? node.type,
        title: patch.title !== undefined ? patch.title : node.title,
        prompt: patch.prompt ?? node.prompt,
        durationSeconds: patch.duration_seconds !== undefined ? patch.duration_seconds : node.durationSeconds,
        dependsOn: patch.depends_on ? [...new Set(patch.depends_on)] : node.dependsOn,
        metadata: patch.metadata ?? node.metadata,
      };
      if (patch.depends_on) {
        patch.depends_on.forEach((dep, i) => {
          if (dep === node.id) throw fieldError(['body', 'depends_on', i], 'a node cannot depend on itself');
          if (!project.nodes.some((other) => other.id === dep))
            throw fieldError(['body', 'depends_on', i], `no node ${dep} in this project`);
        });
        const cycle = findCycle(
          project.nodes.map((other) => ({
            id: other.id,
            depends_on: other.id === node.id ? next.dependsOn : other.dependsOn,
          })),
        );
        if (cycle) throw fieldError(['body', 'depends_on'], `dependencies would form a cycle: ${cycle.join(' → ')}`);
      }
      const contentChanged =
        JSON.stringify([next.type, next.title, next.prompt, next.durationSeconds, next.dependsOn]) !==
        JSON.stringify([node.type, node.title, node.prompt, node.durationSeconds, node.dependsOn]);
      next.life = contentChanged || patch.metadata ? this.step(node, { type: 'UPDATE', at }, 'update') : node.life;
      return next;
    });
  }

  /** Approves a node (draft → approved) once every node it depends on is approved; re-approving keeps it approved with the new note. */
  approve(
    accountId: string,
    projectId: string,
    nodeId: string,
    note: string | null,
  ): Promise<{ view: VideoProjectView; node: VideoNodeRecord }> {
    return this.change(accountId, projectId, nodeId, (project, node, at) => {
      const pending = node.dependsOn.filter(
        (dep) => !APPROVED_OR_BEYOND.includes(project.nodes.find((other) => other.id === dep)!.life.state),
      );
      if (pending.length > 0 && node.life.state === 'draft')
        throw new ApiError(
          'conflict',
          `Node ${node.id} depends on ${pending.join(', ')}, not approved yet; approve ${pending.length === 1 ? 'it' : 'them'} first.`,
        );
      return {
        ...node,
        life: this.step(node, { type: 'APPROVE', at, note, dependenciesApproved: pending.length === 0 }, 'approve'),
      };
    });
  }

  /** Links a video job of the same account to an approved node; the node then follows the job. */
  attachJob(
    accountId: string,
    projectId: string,
    nodeId: string,
    jobId: string,
  ): Promise<{ view: VideoProjectView; node: VideoNodeRecord }> {
    const job = this.options.jobs.find(accountId, jobId);
    if (!job) throw new ApiError('not_found', `No video job ${jobId.slice(0, 100)}.`, { param: 'job_id' });
    return this.change(accountId, projectId, nodeId, (project, node, at) => {
      const holder = project.nodes.find(
        (other) => other.id !== node.id && other.life.context.jobId === job.id && other.life.state === 'rendering',
      );
      if (holder) throw new ApiError('conflict', `Video job ${job.id} already renders node ${holder.id}.`);
      const attached = { ...node, life: this.step(node, { type: 'ATTACH', at, jobId: job.id }, 'attach a job to') };
      return { ...attached, life: this.follow(attached.life, job, at) };
    });
  }

  /** The node's life after `event`, or 409 naming its state when it does not take it. */
  private step(node: VideoNodeRecord, event: VideoNodeEvent, action: string): NodeLife {
    const next = nextNodeState(node.life, event);
    if (!next) {
      const why =
        node.life.state === 'draft' && event.type === 'ATTACH'
          ? ' (approve it first: only approved nodes render)'
          : node.life.state === 'rendering'
            ? ' (its job is still running)'
            : '';
      throw new ApiError('conflict', `Cannot ${action} node ${node.id}: it is ${node.life.state}${why}.`);
    }
    return next;
  }

  /** A rendering node whose job has ended moves on with it. */
  private follow(life: NodeLife, job: VideoJobState | undefined, at: number): NodeLife {
    if (
      life.state !== 'rendering' ||
      !job ||
      (job.state !== 'completed' && job.state !== 'failed' && job.state !== 'cancelled')
    )
      return life;
    const outcome = job.state;
    return (
      nextNodeState(life, {
        type: 'JOB_DONE',
        at,
        outcome,
        mediaId: outcome === 'completed' ? job.context.mediaId : null,
        error: outcome === 'failed' ? job.context.error : null,
      }) ?? life
    );
  }

  private load(accountId: string, projectId: string): VideoProjectRecord {
    const project = this.projects.get(projectId);
    if (!project || project.ownerId !== accountId)
      throw new ApiError('not_found', `No video project ${projectId.slice(0, 100)}.`, { param: 'project_id' });
    return project;
  }

  private jobsOf(accountId: string, project: VideoProjectRecord): Map<string, VideoJobState> {
    const jobs = new Map<string, VideoJobState>();
    for (const node of project.nodes) {
      const jobId = node.life.context.jobId;
      if (!jobId || jobs.has(jobId)) continue;
      const job = this.options.jobs.find(accountId, jobId);
      if (job) jobs.set(jobId, job);
    }
    return jobs;
  }

  /** Reads a project and brings its rendering nodes up to their jobs (written back when one moved). */
  private async read(accountId: string, projectId: string): Promise<VideoProjectView> {
    const project = this.load(accountId, projectId);
    const jobs = this.jobsOf(accountId, project);
    if (!project.nodes.some((node) => this.follow(node.life, jobs.get(node.life.context.jobId ?? ''), 0) !== node.life))
      return { project, jobs };
    return this.changes.run(projectId, async () => {
      const fresh = this.load(accountId, projectId);
      const at = this.options.clock.now();
      const nodes = fresh.nodes.map((node) => ({
        ...node,
        life: this.follow(node.life, jobs.get(node.life.context.jobId ?? ''), at),
      }));
      const updated = { ...fresh, nodes, updatedAt: at };
      await this.projects.put(projectId, updated);
      return { project: updated, jobs: this.jobsOf(accountId, updated) };
    });
  }

  /** Changes one node under the project's lock and writes the project back. */
  private async change(
    accountId: string,
    projectId: string,
    nodeId: string,
    apply: (project: VideoProjectRecord, node: VideoNodeRecord, at: number) => VideoNodeRecord,
  ): Promise<{ view: VideoProjectView; node: VideoNodeRecord }> {
    this.load(accountId, projectId);
    await this.read(accountId, projectId);
    return this.changes.run(projectId, async () => {
      const project = this.load(accountId, projectId);
      const node = project.nodes.find((candidate) => candidate.id === nodeId);
      if (!node)
        throw new ApiError('not_found', `No node ${nodeId.slice(0, 100)} in video project ${projectId}.`, {
          param: 'node_id',
        });
      const at = this.options.clock.now();
      const changed = apply(project, node, at);
      const updated = {
        ...project,
        updatedAt: at,
        nodes: project.nodes.map((candidate) => (candidate.id === nodeId ? changed : candidate)),
      };
      await this.projects.put(projectId, updated);
      return { view: { project: updated, jobs: this.jobsOf(accountId, updated) }, node: changed };
    });
  }
}
