import type { LogEvent } from '../../runtime/host/actor-log.js';
import type { ActorStep } from '../../runtime/host/actor-steps.js';

/** What happened on a call, in the order the inspector draws it. */
export type TurnMarkKind =
  | 'speech_started'
  | 'speech_stopped'
  | 'audio_committed'
  | 'response_started'
  | 'response_done'
  | 'barge_in'
  | 'hang_up'
  | 'closed';

/** One mark of a call's turn timeline. */
export interface TurnMark {
  ts: number;
  kind: TurnMarkKind;
  /** Short text for the mark (the response id, the reason, the transcript). */
  label: string;
  /** Where it comes from: a log event (`seq`) or a step of the history (`step`). */
  seq: number | null;
  step: number | null;
}

/** Steps caused by what the caller said: speech is streamed past the log, so the history is where it shows. */
const SPEECH_CAUSES: Partial<Record<string, TurnMarkKind>> = {
  SPEECH_STARTED: 'speech_started',
  SPEECH_STOPPED: 'speech_stopped',
};

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** One logged call event as a mark, or null when it is not part of the turn story. */
function markOf(event: LogEvent): TurnMark | null {
  const at = (kind: TurnMarkKind, label: string): TurnMark => ({
    ts: event.ts,
    kind,
    label,
    seq: event.seq,
    step: null,
  });
  const data = event.data;
  switch (event.type) {
    case 'audioCommitted':
      return data.audioEndMs === null ? at('audio_committed', text(data.itemId)) : null;
    case 'responseStarted':
      return at('response_started', text(data.responseId));
    case 'responseDone':
      // A response cut because the caller spoke again is the barge-in.
      return data.cancelReason === 'turn_detected'
        ? at('barge_in', text(data.responseId))
        : at('response_done', `${text(data.responseId)} ${text(data.status)}`);
    case 'ending':
      return at('hang_up', `ending: ${text(data.reason)}`);
    case 'endReady':
      return at('hang_up', 'end ready');
    case 'closing':
      return at('hang_up', `closing: ${text(data.reason) || 'client'}`);
    case 'closed':
      return at('closed', text(data.reason) || 'closed');
    default:
      return null;
  }
}

/**
 * A realtime call's turn timeline from its durable history: speech started and stopped (steps the
 * caller's speech caused), turns committed by the client, responses and how they ended, barge-ins
 * (responses cut by new speech) and the hang-up markers, oldest first.
 */
export function callTimeline(events: readonly LogEvent[], steps: readonly ActorStep[]): TurnMark[] {
  const marks: TurnMark[] = [];
  for (const step of steps) {
    const kind = step.cause === null ? undefined : SPEECH_CAUSES[step.cause];
    if (kind)
      marks.push({
        ts: step.ts,
        kind,
        label: kind === 'speech_started' ? 'caller speaks' : 'caller stops',
        seq: null,
        step: step.step,
      });
  }
  for (const event of events) {
    const mark = markOf(event);
    if (mark) marks.push(mark);
  }
  // Stable: a step and the events it committed share a timestamp and keep history order.
  return marks.sort((a, b) => a.ts - b.ts);
}
