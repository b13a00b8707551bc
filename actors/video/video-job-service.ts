import { createHash } from 'node:crypto';
import type { VideoBackend } from '../../backends/video-generation.js';
import { IdempotencyKeySchema } from '../../protocols/chat-session.js';
import { ApiError } from '../../protocols/errors.js';
import type { VideoGenerationRequest, VideoStatus } from '../../protocols/video.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorHost, ActorRecord, Follower, HostedMachine } from '../../runtime/host/actor-host.js';
import type { LogEvent } from '../../runtime/host/actor-log.js';
import { newId } from '../../runtime/ids.js';
import { IdempotencyKeys, IdempotencyMismatch } from '../../runtime/idempotency.js';
import type { Logger } from '../../runtime/logger.js';
import type { Store } from '../../runtime/store/store.js';
import type { Billing } from '../billing/billing.js';
import type { MediaContent, MediaLinks } from '../images/media-links.js';
import { VIDEO_JOB_MACHINE } from './video-job-machine.js';
import { CANCELLABLE_STATES, topState, type VideoJobStateName } from './video-job-states.js';
import type { VideoJobContext, VideoJobInput } from './video-job-types.js';
import { planVideo } from './video-job-plan.js';
import { VideoJobRuntime } from './video-job-runtime.js';

/** What the video jobs feature runs on. */
export interface VideoJobServiceOptions {
  host: ActorHost;
  billing: Billing;
  backend: VideoBackend;
  links: MediaLinks;
  store: Store;
  clock: Clock;
  logger: Logger;
  pollMs: number;
  maxRunning: number;
}

/** A job as callers see it: its machine state, wire status and context. */
export interface VideoJobState {
  id: string;
  state: VideoJobStateName;
  status: VideoStatus;
  context: VideoJobContext;
  createdAt: number;
}

/** A new job: who asks, the validated request, its model and the client's Idempotency-Key if any. */
export interface CreateVideoJobInput {
  accountId: string;
  tokenId: string | null;
  request: VideoGenerationRequest;
  model: string;
  idempotencyKey?: string | undefined;
}

const STATUS: Record<VideoJobStateName, VideoStatus> = {
  queued: 'queued',
  submitting: 'in_progress',
  running: 'in_progress',
  storing: 'in_progress',
  settling: 'in_progress',
  failing: 'in_progress',
  cancelling: 'in_progress',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A stored job record as its state. */
export function jobStateOf(record: ActorRecord): VideoJobState {
  const snapshot = record.snapshot as { value: unknown; context: VideoJobContext };
  const state = topState(snapshot.value);
  return { id: record.id, state, status: STATUS[state], context: snapshot.context, createdAt: record.createdAt };
}

/**
 * Video jobs (spec §2.7, §3, §4.3 and the SDK's `videos`): each job is a durable actor in the
 * host that runs to its end whether or not anyone polls, is charged once on completion, and can
 * be followed live. This is the one place that decides what a request may do to a job; another
 * account's job is 404. Plain inputs in, job states and domain events out.
 */
export class VideoJobService {
  private readonly runtime: VideoJobRuntime;
  private readonly idempotency: IdempotencyKeys;

  constructor(private readonly options: VideoJobServiceOptions) {
    this.runtime = new VideoJobRuntime(options);
    this.idempotency = new IdempotencyKeys(options.store, 'video_idempotency');
  }

  /** The job machine with its effects, for the host to register. */
  hosted(): HostedMachine {
    return this.runtime.hosted();
  }

  /** The backend's name (reported in `svc.backend`). */
  get backendName(): string {
    return this.options.backend.name;
  }

  /** Calls made to the video backend since start. */
  get backendCalls(): number {
    return this.runtime.backendCalls;
  }

  /** Jobs running and queued in this process. */
  get load(): { running: number; queued: number } {
    return this.runtime.load;
  }

  /**
   * Decides the clip (422 for anything unsupported), holds its price (402 when it does not fit)
   * and starts a job, answered at once as `queued`. With an Idempotency-Key the same key and body
   * return the same job (`replayed`); another body is a 409.
   */
  async create(input: CreateVideoJobInput): Promise<{ job: VideoJobState; replayed: boolean }> {
    if (input.idempotencyKey === undefined) return { job: await this.spawn(newId('video'), input), replayed: false };
    const key = IdempotencyKeySchema.safeParse(input.idempotencyKey);
    if (!key.success)
      throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 characters.', {
        param: 'Idempotency-Key',
      });
    const bodyHash = createHash('sha256').update(JSON.stringify(input.request)).digest('hex');
    try {
      const result = await this.idempotency.run([input.accountId, key.data], bodyHash, {
        newId: () => newId('video'),
        replay: (id) => this.find(input.accountId, id),
        create: (id) => this.spawn(id, input),
      });
      return { job: result.value, replayed: result.replayed };
    } catch (err) {
      if (!(err instanceof IdempotencyMismatch)) throw err;
      throw new ApiError(
        'conflict',
        'This Idempotency-Key was already used with a different request body; use a new key.',
        { param: 'Idempotency-Key' },
      );
    }
  }

  private async spawn(id: string, input: CreateVideoJobInput): Promise<VideoJobState> {
    const { host, backend, clock, pollMs } = this.options;
    const plan = planVideo(input.request, backend);
    const at = clock.now();
    const jobInput: VideoJobInput = {
      id,
      accountId: input.accountId,
      tokenId: input.tokenId,
      model: input.model,
      quality: input.request.quality ?? null,
      spec: plan.spec,
      backend: backend.name,
      costMicros: plan.costMicros,
      holdMicros: plan.holdMicros,
      mediaId: newId('vidm'),
      at,
      pollMs,
    };
    this.runtime.hold({ id, accountId: input.accountId, tokenId: input.tokenId, holdMicros: plan.holdMicros });
    try {
      await host.spawn(VIDEO_JOB_MACHINE, { id, ownerId: input.accountId, input: jobInput });
    } catch (err) {
      this.runtime.release(id);
      throw err;
    }
    this.runtime.enqueue(id, at);
    return this.get(input.accountId, id);
  }

  /** Job `id` of `accountId`, or undefined (unknown, or another account's). */
  find(accountId: string, id: string): VideoJobState | undefined {
    const record = this.options.host.find(id, accountId);
    return record && record.machine === VIDEO_JOB_MACHINE ? jobStateOf(record) : undefined;
  }

  /** Job `id` of `accountId`; 404 otherwise. */
  get(accountId: string, id: string): VideoJobState {
    const job = this.find(accountId, id);
    if (!job) throw new ApiError('not_found', `No video job ${id.slice(0, 100)}.`, { param: 'job_id' });
    return job;
  }

  /** The account's jobs by creation time (newest first unless `asc`), after job `after`, at most `limit`. */
  list(
    accountId: string,
    query: { limit: number; after?: string | undefined; order: 'asc' | 'desc' },
  ): { jobs: VideoJobState[]; hasMore: boolean } {
    const all = this.options.host.list(VIDEO_JOB_MACHINE, accountId, 10_000).map(jobStateOf);
    all.sort(
      (a, b) =>
        (query.order === 'asc' ? a.createdAt - b.createdAt : b.createdAt - a.createdAt) || a.id.localeCompare(b.id),
    );
    const from = query.after === undefined ? 0 : all.findIndex((job) => job.id === query.after) + 1;
    if (query.after !== undefined && from === 0)
      throw new ApiError('not_found', `No video job ${query.after.slice(0, 100)} to list after.`, { param: 'after' });
    const page = all.slice(from, from + query.limit);
    return { jobs: page, hasMore: from + query.limit < all.length };
  }

  /**
   * Cancels a queued or running job and answers once it is `cancelled`; nothing is charged.
   * A job already storing its output completes (409), as does a finished one.
   */
  async cancel(accountId: string, id: string, reason: string | null): Promise<VideoJobState> {
    const { host, clock } = this.options;
    const job = this.get(accountId, id);
    const event = { type: 'CANCEL', at: clock.now(), reason };
    if (!CANCELLABLE_STATES.includes(job.state) || !host.accepts(job.id, event)) {
      const why =
        job.state === 'storing' || job.state === 'settling'
          ? 'its clip is made and it is completing'
          : `it is ${job.status}`;
      throw new ApiError('conflict', `Cannot cancel video job ${job.id}: ${why}.`);
    }
    this.runtime.dequeue(job.id);
    await host.send(job.id, event);
    await host.waitFor(job.id, (snapshot) => snapshot.status !== 'active');
    return this.get(accountId, id);
  }

  /** Deletes a finished job and its clip (the SDK's `videos.delete`); 409 while it runs. */
  async remove(accountId: string, id: string): Promise<{ id: string }> {
    const job = this.get(accountId, id);
    if (!['completed', 'failed', 'cancelled'].includes(job.state))
      throw new ApiError(
        'conflict',
        `Video job ${job.id} is ${job.status}; cancel it or wait for it to finish before deleting it.`,
      );
    await this.options.links.remove(job.context.mediaId);
    await this.options.host.remove(job.id);
    return { id: job.id };
  }

  /** The clip of a completed job, to stream; 409 before completion, 404 once deleted. */
  async content(accountId: string, id: string): Promise<MediaContent> {
    const job = this.get(accountId, id);
    if (job.state !== 'completed')
      throw new ApiError(
        'conflict',
        `Video job ${job.id} is ${job.status}; its content is there once it is completed.`,
      );
    const content = await this.options.links.content(job.context.mediaId, accountId);
    if (!content)
      throw new ApiError('not_found', `The clip of video job ${job.id} is no longer stored.`, { param: 'video_id' });
    return content;
  }

  /** Committed domain events of the job after `after`, at most `limit`. */
  events(accountId: string, id: string, after: number, limit: number): { job: VideoJobState; events: LogEvent[] } {
    const job = this.get(accountId, id);
    return { job, events: this.options.host.events(job.id, after, limit) };
  }

  /** Follows the job from `after`: committed history, live events, then the end. Returns the unsubscribe. */
  follow(accountId: string, id: string, after: number, follower: Follower): () => void {
    const job = this.get(accountId, id);
    return this.options.host.follow(job.id, after, follower);
  }

  /** Resolves once job `id` has finished (at once when it is not running in this process). */
  finished(id: string): Promise<void> {
    return this.options.host.waitFor(id, (snapshot) => snapshot.status !== 'active');
  }
}
