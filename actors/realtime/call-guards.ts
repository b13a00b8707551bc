import { findModel } from '../../protocols/models.js';
import type { CallContext, CallEvent, TranscriptionResult } from './call-context.js';
import { isStreaming, nextJob, priceOf } from './turn-plan.js';

/** What a guard of the call machine reads. */
type Args = { context: CallContext; event: CallEvent };

/**
 * The call machine's guards: the questions its transitions ask of the call's state and the event
 * (pure predicates; the machine names them in its chart).
 */
export const callGuards = {
  sessionTypeLocked: ({ context, event }: Args) =>
    event.type === 'SESSION_UPDATE' &&
    event.change.type !== undefined &&
    event.change.type !== context.session.type &&
    (isStreaming(context) || context.ending !== null),
  unknownModel: ({ event }: Args) =>
    event.type === 'SESSION_UPDATE' && event.change.model !== undefined && !findModel(event.change.model),
  listening: ({ context }: Args) => context.ending === null && context.closeReason === null,
  bargeIn: ({ context }: Args) =>
    context.ending === null &&
    context.closeReason === null &&
    isStreaming(context) &&
    context.session.turnDetection?.interruptResponse === true,
  transcriptionSession: ({ context }: Args) => context.session.type === 'transcription',
  callEnding: ({ context }: Args) => context.ending !== null,
  responseInFlight: ({ context }: Args) => isStreaming(context),
  cancellable: ({ context, event }: Args) =>
    event.type === 'RESPONSE_CANCEL' &&
    isStreaming(context) &&
    (event.responseId === null || event.responseId === context.response?.id),
  readyToClose: ({ context }: Args) => context.closeReason !== null && !isStreaming(context),
  endReady: ({ context }: Args) => context.ending?.ready === true,
  isGraceTimer: ({ context, event }: Args) =>
    event.type === 'TIMER' && event.name === 'endGrace' && context.ending?.ready === true,
  nextIsAudioTurn: ({ context }: Args) => nextJob(context)?.kind === 'audio',
  nextIsItemToTranscribe: ({ context }: Args) => {
    const job = nextJob(context);
    return (
      job?.kind === 'item' &&
      'content' in job.draft &&
      job.draft.content.some((part) => part.type === 'input_audio' && part.transcript === null)
    );
  },
  nextIsItem: ({ context }: Args) => nextJob(context)?.kind === 'item',
  nextIsResponse: ({ context }: Args) => nextJob(context)?.kind === 'response',
  closeRequested: ({ context }: Args) => context.closeReason !== null,
  usageBeyondHold: ({ context }: Args) => priceOf(context.usage) > context.holdMicros,
  turnEndsCall: ({ context }: Args) => context.turn?.farewell != null && context.ending === null,
  turnWantsAnswer: ({ context }: Args) =>
    context.turn?.answer === true && context.session.type === 'realtime' && context.ending === null,
  worstCovered: ({ context }: Args) => (context.response?.worstMicros ?? 0) <= context.holdMicros,
  currentResponse: ({ context, event }: Args) =>
    event.type === 'RESPONSE_FINISHED' && event.responseId === context.response?.id,
  wasGoodbye: ({ context }: Args) => context.response?.line != null && context.ending !== null,
  transcriptionFailed: (_: Args, results: TranscriptionResult[]) => results.some((result) => !result.ok),
};
