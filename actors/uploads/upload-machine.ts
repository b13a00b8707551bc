import { assertEvent, assign, emit, fromPromise, setup } from 'xstate';
import { effectError } from '../effect-results.js';

/** The name uploads are registered under in the actor host. */
export const UPLOAD_MACHINE = 'file-upload';

/** Everything an upload starts with; plain data, persisted with the snapshot. */
export interface UploadInput {
  id: string;
  accountId: string;
  /** The id the assembled file will have, fixed at reservation so assembly can be retried safely. */
  fileId: string;
  filename: string;
  purpose: string;
  bytes: number;
  partBytes: number;
  at: number;
  /** An upload left this long without a part (or completion) expires and frees its disk. */
  ttlMs: number;
}

/** One received part, as acknowledged to the client. */
export interface ReceivedPart {
  bytes: number;
  sha256: string;
  at: number;
}

/** Why an assembly failed, in terms the routes can answer with. */
export interface AssemblyFailure {
  code: 'parts_missing' | 'insufficient_storage' | 'internal';
  message: string;
  /** Parts found missing or damaged on disk; they are forgotten so the client sends them again. */
  parts: number[];
}

/** An upload's state between events. */
export interface UploadContext extends UploadInput {
  partCount: number;
  /** Received parts by number. */
  parts: Record<number, ReceivedPart>;
  deadlines: { expires?: number | null };
  lastError: AssemblyFailure | null;
  updatedAt: number;
}

/** Input of the runtime's `assemble` actor: plain data, so an assembly cut by a crash restarts. */
export type AssembleInput = Pick<
  UploadContext,
  'accountId' | 'fileId' | 'filename' | 'purpose' | 'bytes' | 'partBytes' | 'partCount'
> & {
  uploadId: string;
  /** Each part's SHA-256 as recorded, by part number; absent in snapshots persisted before assembly checked them. */
  partSha256?: string[];
};

/** Events the routes and the host's timers send to an upload. */
export type UploadEvent =
  | { type: 'PART'; n: number; bytes: number; sha256: string; at: number }
  | { type: 'COMPLETE'; at: number }
  | { type: 'CANCEL'; at: number }
  | { type: 'TIMER'; name: string };

/** What an upload emits into its log, where the inspector shows it as stored. */
export type UploadEmitted =
  | { type: 'reserved'; bytes: number; part_count: number }
  | { type: 'part_received'; part_number: number; bytes: number }
  | { type: 'assembling' }
  | { type: 'assembly_failed'; code: AssemblyFailure['code']; message: string; parts: number[] }
  | { type: 'completed'; file_id: string }
  | { type: 'cancelled' }
  | { type: 'expired' };

/** The size part `n` must have: every part is `partBytes` except a shorter last one. */
export function expectedPartBytes(upload: Pick<UploadInput, 'bytes' | 'partBytes'>, n: number): number {
  return Math.min(upload.partBytes, upload.bytes - n * upload.partBytes);
}

/** Part numbers (from 0) not yet received, in order. */
export function missingParts(context: Pick<UploadContext, 'partCount' | 'parts'>): number[] {
  const missing: number[] = [];
  for (let n = 0; n < context.partCount; n++) if (!context.parts[n]) missing.push(n);
  return missing;
}

/** Why `assemble` failed: the failure it threw (the runtime's assembly error carries one), or an internal error. */
const failureOf = (error: unknown): AssemblyFailure => {
  if (error && typeof error === 'object' && 'failure' in error) return (error as { failure: AssemblyFailure }).failure;
  return { code: 'internal', message: error instanceof Error ? error.message : 'assembly failed', parts: [] };
};

/**
 * A resumable upload: reserve, receive parts (each acknowledged only once durable), assemble
 * into a stored file. Reservation and every part push the expiry deadline (data in
 * `context.deadlines`; the host sends TIMER); expiry and cancel discard the parts on disk.
 * Disk work is the runtime's `assemble` and `discard` actors.
 */
export const uploadMachine = setup({
  types: {
    context: {} as UploadContext,
    events: {} as UploadEvent,
    input: {} as UploadInput,
    emitted: {} as UploadEmitted,
  },
  actors: {
    assemble: fromPromise<{ fileId: string }, AssembleInput>(() =>
      Promise.reject(new Error('assemble must be provided by the runtime')),
    ),
    discard: fromPromise<void, { uploadId: string }>(() =>
      Promise.reject(new Error('discard must be provided by the runtime')),
    ),
  },
  guards: {
    validPart: ({ context, event }) =>
      event.type === 'PART' &&
      Number.isInteger(event.n) &&
      event.n >= 0 &&
      event.n < context.partCount &&
      event.bytes === expectedPartBytes(context, event.n),
    allPartsReceived: ({ context }) => missingParts(context).length === 0,
    isExpiryTimer: ({ event }) => event.type === 'TIMER' && event.name === 'expires',
  },
  actions: {
    touch: assign(({ context, event }) => ({ updatedAt: 'at' in event ? event.at : context.updatedAt })),
    armExpiry: assign(({ context }) => ({ deadlines: { expires: context.updatedAt + context.ttlMs } })),
    clearDeadlines: assign({ deadlines: () => ({}) }),
    recordPart: assign(({ context, event }) => {
      if (event.type !== 'PART') return {};
      return {
        parts: { ...context.parts, [event.n]: { bytes: event.bytes, sha256: event.sha256, at: event.at } },
        lastError: null,
      };
    }),
    emitPart: emit(({ event }) => {
      assertEvent(event, 'PART');
      return { type: 'part_received', part_number: event.n, bytes: event.bytes };
    }),
    // Both take what `assemble` threw as params (effectError).
    recordFailure: assign(({ context }, error: unknown) => {
      const failure = failureOf(error);
      const parts = { ...context.parts };
      for (const n of failure.parts) delete parts[n];
      return { lastError: failure, parts };
    }),
    emitFailure: emit((_, error: unknown) => {
      const failure = failureOf(error);
      return { type: 'assembly_failed', code: failure.code, message: failure.message, parts: failure.parts };
    }),
  },
}).createMachine({
  id: 'upload',
  context: ({ input }) => ({
    ...input,
    partCount: Math.ceil(input.bytes / input.partBytes),
    parts: {},
    deadlines: {},
    lastError: null,
    updatedAt: input.at,
  }),
  initial: 'reserved',
  states: {
    reserved: {
      entry: [
        'armExpiry',
        emit(({ context }) => ({ type: 'reserved', bytes: context.bytes, part_count: context.partCount })),
      ],
      on: {
        PART: { guard: 'validPart', target: 'receiving', actions: ['touch', 'recordPart', 'armExpiry', 'emitPart'] },
        COMPLETE: { guard: 'allPartsReceived', target: 'assembling', actions: 'touch' },
        CANCEL: { target: 'cancelling', actions: 'touch' },
        TIMER: { guard: 'isExpiryTimer', target: 'expiring' },
      },
    },
    receiving: {
      entry: 'armExpiry',
      on: {
        PART: { guard: 'validPart', actions: ['touch', 'recordPart', 'armExpiry', 'emitPart'] },
        COMPLETE: { guard: 'allPartsReceived', target: 'assembling', actions: 'touch' },
        CANCEL: { target: 'cancelling', actions: 'touch' },
        TIMER: { guard: 'isExpiryTimer', target: 'expiring' },
      },
    },
    assembling: {
      entry: ['clearDeadlines', emit({ type: 'assembling' })],
      invoke: {
        src: 'assemble',
        input: ({ context }): AssembleInput => ({
          uploadId: context.id,
          accountId: context.accountId,
          fileId: context.fileId,
          filename: context.filename,
          purpose: context.purpose,
          bytes: context.bytes,
          partBytes: context.partBytes,
          partCount: context.partCount,
          // Every part is there (the COMPLETE guard); an empty digest would fail the check, never pass it.
          partSha256: Array.from({ length: context.partCount }, (_, n) => context.parts[n]?.sha256 ?? ''),
        }),
        onDone: { target: 'completed' },
        onError: {
          target: 'receiving',
          actions: [
            { type: 'recordFailure', params: effectError },
            { type: 'emitFailure', params: effectError },
          ],
        },
      },
    },
    cancelling: {
      entry: 'clearDeadlines',
      invoke: {
        src: 'discard',
        input: ({ context }) => ({ uploadId: context.id }),
        onDone: 'cancelled',
        onError: 'cancelled',
      },
    },
    expiring: {
      entry: 'clearDeadlines',
      invoke: {
        src: 'discard',
        input: ({ context }) => ({ uploadId: context.id }),
        onDone: 'expired',
        onError: 'expired',
      },
    },
    completed: { type: 'final', entry: emit(({ context }) => ({ type: 'completed', file_id: context.fileId })) },
    cancelled: { type: 'final', entry: emit({ type: 'cancelled' }) },
    expired: { type: 'final', entry: emit({ type: 'expired' }) },
  },
});

/** Every state an upload can be in. */
export type UploadStateName =
  'reserved' | 'receiving' | 'assembling' | 'cancelling' | 'expiring' | 'completed' | 'cancelled' | 'expired';

/** States in which an upload takes parts, completion and cancel. */
export const OPEN_UPLOAD_STATES: readonly string[] = ['reserved', 'receiving'] satisfies UploadStateName[];
