import { fromPromise } from 'xstate';
import { RetryableError, TerminalError } from '../../backends/errors.js';
import type { RemoteVideoJob, VideoBackend, VideoSpec } from '../../backends/video-generation.js';
import { mediaPriceMicros } from '../../protocols/pricing.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorHost, ActorRecord, HostedMachine } from '../../runtime/host/actor-host.js';
import type { Logger } from '../../runtime/logger.js';
import type { Billing } from '../billing/billing.js';
import type { Hold } from '../billing/ledger.js';
import type { MediaLinks } from '../images/media-links.js';
import {
  HOLDING_STATES,
  topState,
  VIDEO_JOB_MACHINE,
  videoJobMachine,
  type FinishInput,
  type PollOutput,
  type SubmitOutput,
  type StoreInput,
  type VideoJobContext,
} from './video-job-machine.js';

/** What the job runtime needs. */
export interface VideoJobRuntimeOptions {
  host: ActorHost;
  billing: Billing;
  backend: VideoBackend;
  links: MediaLinks;
  clock: Clock;
  logger: Logger;
  /** Jobs running (past `queued`) at once in this process; the rest wait in `queued`, in order. */
  maxRunning: number;
}

/** The settle reference that makes a job's charge happen once. */
export const jobChargeRef = (jobId: string) => `video:${jobId}`;

/**
 * The effect side of video jobs: the backend steps (submit, poll, download and store), holds
 * and the once-only charge, and the scheduler that starts queued jobs as running slots free.
 * Holds live in memory by job id; after a restart they are re-placed for jobs that had one.
 */
export class VideoJobRuntime {
  private readonly holds = new Map<string, Hold>();
  /** Jobs past `queued` and not finished. */
  private readonly running = new Set<string>();
  /** Queued jobs in the order they start. */
  private readonly waiting: { id: string; at: number }[] = [];
  private readonly watched = new Set<string>();
  private pumpQueued = false;
  /** Calls made to the video backend since start. */
  backendCalls = 0;

  constructor(private readonly options: VideoJobRuntimeOptions) {}

  /** Holds a new job's price (402 when it does not fit); the job owns it from spawn on. */
  hold(input: { id: string; accountId: string; tokenId: string | null; holdMicros: number }, force = false): Hold {
    const hold = this.options.billing.hold({
      accountId: input.accountId,
      tokenId: input.tokenId,
      amount: input.holdMicros,
      force,
    });
    this.holds.set(input.id, hold);
    return hold;
  }

  /** Gives back the hold of a job that was never made. */
  release(jobId: string): void {
    const hold = this.holds.get(jobId);
    this.holds.delete(jobId);
    if (hold) this.options.billing.release(hold);
  }

  /** Queues a new job to start when a slot is free. */
  enqueue(jobId: string, at: number): void {
    this.waiting.push({ id: jobId, at });
    this.schedulePump();
  }

  /** Jobs running and waiting in this process. */
  get load(): { running: number; queued: number } {
    return { running: this.running.size, queued: this.waiting.length };
  }

  private schedulePump(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  /** Starts queued jobs while slots are free, and frees a slot when its job finishes. */
  private pump(): void {
    const { host, clock, logger, maxRunning } = this.options;
    for (const id of this.running) this.watch(id);
    this.waiting.sort((a, b) => a.at - b.at);
    while (this.running.size < maxRunning && this.waiting.length > 0) {
      const { id } = this.waiting.shift()!;
      if (!host.isLive(id) || !host.accepts(id, { type: 'START' })) continue;
      this.running.add(id);
      this.watch(id);
      host
        .send(id, { type: 'START', at: clock.now() })
        .catch((err: unknown) => logger.error('starting a video job failed', { actor_id: id, err }));
    }
  }

  private watch(id: string): void {
    if (this.watched.has(id)) return;
    this.watched.add(id);
    void this.options.host
      .waitFor(id, (snapshot) => snapshot.status !== 'active')
      .then(() => {
        this.watched.delete(id);
        this.running.delete(id);
        this.holds.delete(id);
        this.schedulePump();
      });
  }

  /** Takes a queued job out of the line (it was cancelled before starting). */
  dequeue(jobId: string): void {
    const at = this.waiting.findIndex((entry) => entry.id === jobId);
    if (at >= 0) this.waiting.splice(at, 1);
  }

  private async submit(input: { jobId: string; spec: VideoSpec }, signal: AbortSignal): Promise<SubmitOutput> {
    this.backendCalls++;
    try {
      const remote = await this.options.backend.submit(input.spec, input.jobId, signal);
      return { remote, at: this.options.clock.now() };
    } catch (err) {
      // Busy, down or timed out: the job waits and asks again (the job id is the idempotency key).
      if (err instanceof RetryableError && !signal.aborted)
        return { retry: err.message, retryAfterMs: err.retryAfterMs, at: this.options.clock.now() };
      throw err;
    }
  }

  private async poll(input: { remote: RemoteVideoJob; spec: VideoSpec }, signal: AbortSignal): Promise<PollOutput> {
    const { backend, clock } = this.options;
    try {
      return { ...(await backend.poll(input.remote, input.spec, signal)), at: clock.now() };
    } catch (err) {
      if (err instanceof RetryableError) return { state: 'retry', message: err.message, at: clock.now() };
      if (err instanceof TerminalError)
        return { state: 'failed', code: err.kind, message: err.message, at: clock.now() };
      throw err;
    }
  }

  private async store(
    input: StoreInput,
    signal: AbortSignal,
  ): Promise<{ bytes: number; contentType: string; at: number }> {
    const data = await this.options.backend.download(input.remote, input.spec, signal);
    const record = await this.options.links.put({
      id: input.mediaId,
      ownerId: input.accountId,
      kind: 'video',
      contentType: 'video/mp4',
      expiresAt: null,
      data,
    });
    return { bytes: record.bytes, contentType: record.contentType, at: this.options.clock.now() };
  }

  /** Charges a completed job once (by reference: a repeat after a crash charges nothing), or lets its hold go. */
  private async finish(input: FinishInput): Promise<{ priceMicros: number; at: number }> {
    const { billing, backend, clock } = this.options;
    const hold = this.holds.get(input.jobId) ?? null;
    if (input.outcome !== 'completed') {
      if (input.outcome === 'cancelled' && input.remote) await backend.cancel(input.remote).catch(() => undefined);
      this.holds.delete(input.jobId);
      if (hold) billing.release(hold);
      return { priceMicros: 0, at: clock.now() };
    }
    const { spec } = input;
    const entry = await billing.settle(hold ? [hold] : [], {
      ref: jobChargeRef(input.jobId),
      accountId: input.accountId,
      tokenId: input.tokenId,
      cap: input.holdMicros,
      charge: mediaPriceMicros(input.costMicros),
      description: `video job ${input.jobId}: ${spec.durationSeconds}s ${spec.width}x${spec.height} ${spec.tier}`,
      requestId: null,
      model: input.model,
      promptTokens: 0,
      completionTokens: 0,
    });
    this.holds.delete(input.jobId);
    return { priceMicros: entry ? -entry.amount : 0, at: clock.now() };
  }

  /** The job machine with this runtime's steps, ready to register with the host. */
  hosted(): HostedMachine {
    return {
      name: VIDEO_JOB_MACHINE,
      logic: videoJobMachine.provide({
        actors: {
          submit: fromPromise(({ input, signal }) => this.submit(input, signal)),
          poll: fromPromise(({ input, signal }) => this.poll(input, signal)),
          store: fromPromise(({ input, signal }) => this.store(input, signal)),
          finish: fromPromise(({ input }) => this.finish(input)),
        },
      }),
      onRehydrate: (record: ActorRecord) => {
        const snapshot = record.snapshot as { value: unknown; context: VideoJobContext };
        const state = topState(snapshot.value);
        if (!HOLDING_STATES.includes(state)) return;
        // The hold was granted before the restart: re-place it whatever the balance is now.
        if (state !== 'failing' && state !== 'cancelling') this.hold(snapshot.context, true);
        if (state === 'queued') this.waiting.push({ id: record.id, at: snapshot.context.at });
        else this.running.add(record.id);
        this.schedulePump();
      },
    };
  }
}
