import { fromPromise } from 'xstate';
import { RetryableError, TerminalError } from '../../backends/errors.js';
import type { RemoteVideoJob, VideoBackend, VideoSpec } from '../../backends/video-generation.js';
import { mediaPriceMicros } from '../../protocols/pricing.js';
import type { Clock } from '../../runtime/clock.js';
import type { ActorHost, ActorRecord, HostedMachine } from '../../runtime/host/actor-host.js';
import type { Logger } from '../../runtime/logger.js';
import type { Billing } from '../billing/billing.js';
import { StandingCharges, type OpenCharge, type Payer } from '../billing/charged-work.js';
import type { MediaLinks } from '../images/media-links.js';
import { VIDEO_JOB_MACHINE, videoJobMachine } from './video-job-machine.js';
import { HOLDING_STATES, topState } from './video-job-states.js';
import type { FinishInput, PollOutput, StoreInput, SubmitOutput, VideoJobContext } from './video-job-types.js';

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

/** Who pays for a job (no request: the job outlives the one that made it). */
const payerOf = (job: { accountId: string; tokenId: string | null }): Payer => ({
  accountId: job.accountId,
  tokenId: job.tokenId,
  requestId: null,
});

/**
 * The effect side of video jobs: the backend steps (submit, poll, download and store), holds
 * and the once-only charge, and the scheduler that starts queued jobs as running slots free.
 * A job's hold outlives the request that made it and is settled by the job's own `finish` step,
 * so it is a standing charge rather than `chargedWork`: in memory by job id, re-placed with
 * `force` after a restart for jobs that had one, charged once by reference (`video:<id>`).
 */
export class VideoJobRuntime {
  private readonly charges: StandingCharges;
  /** Jobs past `queued` and not finished. */
  private readonly running = new Set<string>();
  /** Queued jobs in the order they start. */
  private readonly waiting: { id: string; at: number }[] = [];
  private readonly watched = new Set<string>();
  private pumpQueued = false;
  /** Calls made to the video backend since start. */
  backendCalls = 0;

  constructor(private readonly options: VideoJobRuntimeOptions) {
    this.charges = new StandingCharges(options.billing, 'video');
  }

  /** Holds a new job's price (402 when it does not fit); the job owns it from spawn on. Null when the job already holds. */
  hold(
    input: { id: string; accountId: string; tokenId: string | null; holdMicros: number },
    force = false,
  ): OpenCharge | null {
    return this.charges.open(input.id, payerOf(input), input.holdMicros, force);
  }

  /** Gives back the hold of a job that was never made. */
  release(jobId: string): void {
    this.charges.release(jobId);
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
        // Settled or released by its finish step already; whatever an ended job still held goes back.
        this.charges.release(id);
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
    const { backend, clock } = this.options;
    if (input.outcome !== 'completed') {
      if (input.outcome === 'cancelled' && input.remote) await backend.cancel(input.remote).catch(() => undefined);
      this.charges.release(input.jobId);
      return { priceMicros: 0, at: clock.now() };
    }
    const { spec } = input;
    const charged = await this.charges.settle(
      input.jobId,
      payerOf(input),
      {
        charge: mediaPriceMicros(input.costMicros),
        description: `video job ${input.jobId}: ${spec.durationSeconds}s ${spec.width}x${spec.height} ${spec.tier}`,
        model: input.model,
        promptTokens: 0,
        completionTokens: 0,
      },
      input.holdMicros,
    );
    return { priceMicros: charged.micros, at: clock.now() };
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
