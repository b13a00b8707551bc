import { fromPromise } from 'xstate';
import { ApiError, ensureError } from '../../protocols/errors.js';
import { requireModel } from '../../protocols/models.js';
import type { ResponseObject } from '../../protocols/responses.js';
import type { ActorHost, HostedMachine } from '../../runtime/host/actor-host.js';
import type { Logger } from '../../runtime/logger.js';
import {
  BACKGROUND_RESPONSE_MACHINE,
  backgroundResponseMachine,
  type BackgroundInput,
  type BackgroundOutcome,
  type CancelInput,
} from './background-machine.js';
import { LiveEventLog, type EventFollower } from './live-event-log.js';
import { storedInputItems } from './response-input.js';
import { responseObject, type ResponseHead } from './response-object.js';
import type { ResponseCall, ResponseService } from './response-service.js';
import type { ResponseStore } from './response-store.js';

/** A start's wait for its run's first store (Promise.withResolvers is Node 22). */
interface Recorded {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function recordedSignal(): Recorded {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** What background responses run on. */
export interface BackgroundResponsesOptions {
  host: ActorHost;
  responses: ResponseService;
  store: ResponseStore;
  logger: Logger;
}

/**
 * Background responses: stored as `queued`, then run by a durable actor that outlives the request
 * (and, re-run after a restart, is charged once by reference). While one runs, its events are in
 * a live log any number of readers can follow from a sequence number; once it ended, the stored
 * response carries them.
 */
export class BackgroundResponses {
  private readonly logs = new Map<string, LiveEventLog>();
  private readonly runs = new Map<string, Promise<BackgroundOutcome>>();
  /** Starts waiting for their run to store the response (see {@link start}). */
  private readonly recording = new Map<string, Recorded>();

  constructor(private readonly options: BackgroundResponsesOptions) {}

  /**
   * Starts the response's actor and answers `queued` once its run has stored the response. The
   * actor is persisted first and stores the record itself: a kill between the two leaves an actor
   * that stores it after restart, never a stored response that no actor will run.
   */
  async start(call: ResponseCall): Promise<ResponseObject> {
    const { request, accountId } = call;
    const head = this.options.responses.head(call);
    const recorded = recordedSignal();
    this.recording.set(head.id, recorded);
    const input: BackgroundInput = {
      id: head.id,
      accountId,
      tokenId: call.tokenId,
      model: head.model,
      createdAt: head.createdAt,
      request,
    };
    try {
      await this.options.host.spawn(BACKGROUND_RESPONSE_MACHINE, { id: head.id, ownerId: accountId, input });
      await recorded.promise;
    } finally {
      this.recording.delete(head.id);
    }
    return responseObject(head, { status: 'queued', output: [], usage: null });
  }

  /** The run the actor invokes: the response created with the given head, its events in a live log. */
  private run(input: BackgroundInput, signal: AbortSignal): Promise<BackgroundOutcome> {
    const log = new LiveEventLog();
    this.logs.set(input.id, log);
    const head: ResponseHead = { id: input.id, createdAt: input.createdAt, model: input.model, request: input.request };
    const call: ResponseCall = {
      accountId: input.accountId,
      tokenId: input.tokenId,
      requestId: null,
      request: input.request,
      model: requireModel(input.model),
      signal,
    };
    const running = this.markInProgress(head, input.accountId)
      .then((run) =>
        this.options.responses.create(call, log, {
          head,
          settleRef: `response:${input.id}`,
          run,
        }),
      )
      .then(
        ({ status, priceMicros }) => ({ status, priceMicros }),
        (err: unknown) => this.failed(head, input.accountId, ensureError(err)),
      )
      .finally(() => {
        log.end();
        this.logs.delete(input.id);
        this.runs.delete(input.id);
      });
    this.runs.set(input.id, running);
    return running;
  }

  /**
   * Stores the response as in progress (creating the record on a first run) and counts the run,
   * durably before it emits anything; tells a waiting {@link start}. Resolves with the run's number (0 first).
   */
  private async markInProgress(head: ResponseHead, accountId: string): Promise<number> {
    const recorded = this.recording.get(head.id);
    try {
      const record = this.options.store.get(accountId, head.id);
      const response = responseObject(head, { status: 'in_progress', output: [], usage: null });
      // A record without a count was made by an earlier run (before runs were counted): at least one.
      const run = record ? (record.runs ?? 1) : 0;
      await this.options.store.save(
        record
          ? { ...record, response: { ...record.response, status: 'in_progress' }, runs: run + 1 }
          : {
              accountId,
              response,
              inputItems: storedInputItems(head.request.input, head.id),
              turn: [],
              events: null,
              runs: run + 1,
            },
      );
      recorded?.resolve();
      return run;
    } catch (err) {
      recorded?.reject(err);
      throw err;
    }
  }

  /**
   * Ends a cancelled response: waits for its run here to stop (it stores what it made), then stores
   * it as cancelled if nothing did (the run was lost to a restart, or never stored its end).
   */
  private async settleCancel(input: CancelInput): Promise<void> {
    await this.runs.get(input.id)?.catch(() => undefined);
    const record = this.options.store.get(input.accountId, input.id);
    if (!record || (record.response.status !== 'queued' && record.response.status !== 'in_progress')) return;
    const head: ResponseHead = { id: input.id, createdAt: input.createdAt, model: input.model, request: input.request };
    const response = responseObject(head, { status: 'cancelled', output: [], usage: null });
    await this.options.store.save({ ...record, response });
  }

  /** A run refused before it produced anything (402, an upstream down): stored as failed, charged nothing. */
  private async failed(head: ResponseHead, accountId: string, err: Error): Promise<BackgroundOutcome> {
    const code = err instanceof ApiError ? err.code : 'internal_error';
    if (!(err instanceof ApiError)) this.options.logger.error('background response failed', { err, id: head.id });
    const record = this.options.store.get(accountId, head.id);
    const response = responseObject(head, {
      status: 'failed',
      output: [],
      usage: null,
      error: { code, message: err.message },
    });
    if (record) await this.options.store.save({ ...record, response });
    return { status: 'failed', priceMicros: 0 };
  }

  /** Cancels the account's running background response and answers it as it ended; a finished one as it is. */
  async cancel(accountId: string, id: string): Promise<ResponseObject> {
    const record = this.options.responses.get(accountId, id);
    if (!record.response.background)
      throw new ApiError('conflict', 'Only background responses can be cancelled.', { param: 'response_id' });
    if (this.options.host.find(id, accountId))
      await this.options.host.send(id, { type: 'CANCEL', reason: 'cancelled by request' });
    await this.runs.get(id);
    return this.options.responses.get(accountId, id).response;
  }

  /** Follows a running response's events after `after`; false when it is not running here (read the stored ones). */
  follow(id: string, after: number, follower: EventFollower): (() => void) | false {
    const log = this.logs.get(id);
    return log ? log.follow(after, follower) : false;
  }

  /** The machine with this runtime's run, ready to register with the host. */
  hosted(): HostedMachine {
    return {
      name: BACKGROUND_RESPONSE_MACHINE,
      logic: backgroundResponseMachine.provide({
        actors: {
          runResponse: fromPromise<BackgroundOutcome, BackgroundInput>(({ input, signal }) => this.run(input, signal)),
          settleCancel: fromPromise<void, CancelInput>(({ input }) => this.settleCancel(input)),
        },
      }),
    };
  }
}
