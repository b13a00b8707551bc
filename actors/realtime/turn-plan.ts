import { realtimePriceMicros } from '../../protocols/pricing.js';
import { countPromptTokens } from '../../protocols/tokens.js';
import { contextItems, conversationMessages, withItem, withItemAfter } from './call-conversation.js';
import {
  isMessage,
  type CallEmitted,
  type CallItem,
  type CallMessage,
  type CallUsage,
  type CancelReason,
  type ItemContent,
  type ItemView,
  type Modality,
} from './call-events.js';
import type {
  CallContext,
  CallEvent,
  RejectionCode,
  RespondInput,
  ResponsePlan,
  ResponseRequest,
  TranscriptionResult,
  Turn,
  TurnJob,
} from './call-context.js';
import type { CallSession } from './call-session.js';
import { detectFarewell } from './farewell.js';
import { itemNotFound } from './item-edits.js';

// Turn planning for the call machine: pure functions of the call's context (no I/O, no clock), so
// the machine's actions stay one-liners and table tests can call them directly.

/** Tokens a response may generate when the session says `inf`. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** Worst-case speech per generated token, for the hold a response needs before it starts. */
export const AUDIO_MS_PER_TOKEN = 400;

/** Usage after `added`. */
export function usageAfter(usage: CallUsage, added: Partial<CallUsage>): CallUsage {
  return {
    audioInMs: usage.audioInMs + (added.audioInMs ?? 0),
    audioOutMs: usage.audioOutMs + (added.audioOutMs ?? 0),
    promptTokens: usage.promptTokens + (added.promptTokens ?? 0),
    completionTokens: usage.completionTokens + (added.completionTokens ?? 0),
  };
}

/** An item or response id, OpenAI-shaped (`item_…`, `resp_…`, 20 base62 characters), from the call's seed and a counter. */
export function callScopedId(prefix: 'item' | 'resp', seed: string, count: number): string {
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let suffix = '';
  for (let n = count; suffix.length < 6; n = Math.floor(n / 62)) suffix = BASE62[n % 62]! + suffix;
  return `${prefix}_${seed.slice(0, 14)}${suffix}`;
}

/** The plan of a model answer to the conversation so far, priced at its worst case. */
export function planModelResponse(input: {
  session: CallSession;
  items: readonly CallItem[];
  usage: CallUsage;
  request: ResponseRequest;
  id: string;
  itemId: string;
}): ResponsePlan {
  const { session, request } = input;
  const modalities = request.outputModalities ?? session.outputModalities;
  const limit = request.maxOutputTokens ?? session.maxOutputTokens;
  const maxTokens = limit === 'inf' ? DEFAULT_MAX_OUTPUT_TOKENS : limit;
  const instructions = request.instructions ?? session.instructions;
  const tools = request.tools ?? session.tools ?? [];
  const promptTokens = countPromptTokens(conversationMessages(instructions, contextItems(input.items)));
  return {
    id: input.id,
    itemId: input.itemId,
    modalities,
    line: null,
    language: null,
    instructions,
    maxTokens,
    metadata: request.metadata,
    tools,
    toolChoice: tools.length > 0 ? (request.toolChoice ?? session.toolChoice ?? 'auto') : 'none',
    promptTokens,
    worstMicros: worstPrice(input.usage, modalities, promptTokens, maxTokens),
    stage: 'planned',
    cancelReason: null,
  };
}

/** The plan of a fixed line (the goodbye) in `language`: no tokens, only its speech. */
export function planLine(input: {
  session: CallSession;
  usage: CallUsage;
  line: string;
  language: string | null;
  id: string;
  itemId: string;
}): ResponsePlan {
  const modalities = input.session.outputModalities;
  return {
    id: input.id,
    itemId: input.itemId,
    modalities,
    line: input.line,
    language: input.language,
    instructions: '',
    maxTokens: 0,
    metadata: null,
    tools: [],
    toolChoice: 'none',
    promptTokens: 0,
    worstMicros: worstPrice(input.usage, modalities, 0, 0),
    stage: 'planned',
    cancelReason: null,
  };
}

function worstPrice(
  usage: CallUsage,
  modalities: readonly Modality[],
  promptTokens: number,
  completionTokens: number,
): number {
  const audioOutMs = modalities.includes('audio') ? (completionTokens || 64) * AUDIO_MS_PER_TOKEN : 0;
  return realtimePriceMicros(usageAfter(usage, { promptTokens, completionTokens, audioOutMs }));
}

/** A user item made from audio, before (`null`) or after its transcript is known. */
export function userAudioView(id: string, transcript: string | null): ItemView {
  return { id, role: 'user', content: [{ type: 'input_audio', transcript }] };
}

/** A client's item as announced: its parts, audio parts showing their transcript (or the item's text). */
export function draftView(
  id: string,
  role: CallMessage['role'],
  content: readonly (
    { type: 'input_text' | 'output_text' | 'text'; text: string } | { type: 'input_audio'; transcript: string | null }
  )[],
  text: string,
): ItemView {
  const shown: ItemContent[] = content.map((part) =>
    part.type === 'input_audio'
      ? { type: 'input_audio', transcript: part.transcript ?? text }
      : { type: part.type, text: part.text },
  );
  return { id, role, content: shown };
}

/** The price of what a call has used, in micro-USD. */
export const priceOf = (usage: CallUsage): number => realtimePriceMicros(usage);

/** Whether a response's effect is running. */
export const isStreaming = (context: CallContext): boolean => context.response?.stage === 'streaming';

/** The next job to start, unless the call is closing. */
export const nextJob = (context: CallContext): TurnJob | undefined =>
  context.closeReason === null ? context.queue[0] : undefined;

/** The client's `event_id` an event carries, if any. */
export const clientEventIdOf = (event: CallEvent): string | null =>
  'clientEventId' in event ? event.clientEventId : null;

/** What the machine says when it refuses a client message for the call's state. */
export function refusalMessage(code: RejectionCode, context: CallContext): string {
  switch (code) {
    case 'session_type_locked':
      return 'The session type cannot change while a response is in progress or the call is ending.';
    case 'transcription_session':
      return 'A transcription session only transcribes: response.create is not available.';
    case 'call_ending':
      return 'The call is ending; no new response is started.';
    case 'conversation_already_has_active_response':
      return `Response ${context.response?.id ?? ''} is in progress; cancel it or wait for response.done.`;
    case 'response_cancel_not_active':
      return 'There is no response in progress to cancel.';
    case 'end_ack_unexpected':
      return 'svc.realtime.end_ack is only valid after svc.realtime.end_ready.';
    default:
      return code;
  }
}

/** The next call-scoped id and the counter after it. */
export function allocate(context: Pick<CallContext, 'idSeed' | 'idCount'>, prefix: 'item' | 'resp'): [string, number] {
  return [callScopedId(prefix, context.idSeed, context.idCount), context.idCount + 1];
}

/** The response in flight marked cut for `reason` (the first reason stays), or null when none runs. */
export function cancelled(context: CallContext, reason: CancelReason): ResponsePlan | null {
  if (!isStreaming(context) || !context.response) return null;
  return { ...context.response, cancelReason: context.response.cancelReason ?? reason };
}

/** The keys of the audio a job needs transcribed, in order. */
export function audioKeysOf(job: TurnJob | undefined): string[] {
  if (job?.kind === 'audio') return [job.audioKey];
  if (job?.kind !== 'item' || !('content' in job.draft)) return [];
  return job.draft.content.flatMap((part) =>
    part.type === 'input_audio' && part.transcript === null && part.audioKey !== null ? [part.audioKey] : [],
  );
}

/** The user turn a transcription (or a typed item) produced, recorded: item, usage, farewell verdict. */
function recordTurn(
  context: CallContext,
  turn: Turn,
  item: CallItem,
  answer: boolean,
  items: CallItem[] = withItem(context.items, item),
): Partial<CallContext> {
  const user = isMessage(item) && item.role === 'user' ? item : null;
  const farewell =
    user && context.session.type === 'realtime' && context.ending === null ? detectFarewell(user.text) : null;
  return {
    items,
    usage: usageAfter(context.usage, { audioInMs: user?.audioMs ?? 0 }),
    turn: { ...turn, text: isMessage(item) ? item.text : null, answer, farewell: farewell?.ending ? farewell : null },
  };
}

/** The transcription events of the turn in progress: one per result. */
export function transcriptionEvents(context: CallContext, results: readonly TranscriptionResult[]): CallEmitted[] {
  const itemId = context.turn?.itemId ?? '';
  return results.map((result) =>
    result.ok
      ? { type: 'transcriptionCompleted', itemId, transcript: result.text, durationSeconds: result.durationSeconds }
      : { type: 'transcriptionFailed', itemId, message: result.message },
  );
}

/** What recording the turn in progress changes and announces: its transcripts, then the item. */
export function recordItem(
  context: CallContext,
  results: readonly TranscriptionResult[],
): { patch: Partial<CallContext>; emitted: CallEmitted[] } {
  const turn = context.turn;
  if (!turn || turn.job.kind === 'response') return { patch: {}, emitted: [] };
  const emitted = transcriptionEvents(context, results);
  const transcripts = results.map((result) => (result.ok ? result.text : ''));
  const job = turn.job;
  if (job.kind === 'audio') {
    const text = transcripts[0] ?? '';
    emitted.push({ type: 'itemDone', previousItemId: job.previousItemId, item: userAudioView(turn.itemId, text) });
    return {
      patch: recordTurn(context, turn, { id: turn.itemId, role: 'user', text, audioMs: job.audioMs }, job.answer),
      emitted,
    };
  }
  const draft = job.draft;
  let item: CallItem;
  let view: ItemView;
  if (!('content' in draft)) {
    // A function call or its output: recorded as given, never answered by itself.
    item = view = { ...draft, id: turn.itemId };
  } else {
    let next = 0;
    let audioMs = 0;
    const texts: string[] = [];
    for (const part of draft.content) {
      if (part.type !== 'input_audio') texts.push(part.text);
      else {
        audioMs += part.audioMs;
        texts.push(part.transcript ?? transcripts[next++] ?? '');
      }
    }
    const text = texts.join('\n');
    view = draftView(turn.itemId, draft.role, draft.content, text);
    item = { id: turn.itemId, role: draft.role, text, audioMs: draft.role === 'user' ? audioMs : 0 };
  }
  const placed = placeItem(context, item, job.previousItemId ?? null);
  if (!placed) {
    const after = job.previousItemId ?? '';
    return { patch: {}, emitted: [...emitted, itemNotFound(after, job.clientEventId, 'previous_item_id')] };
  }
  const { previousItemId } = placed;
  emitted.push(
    { type: 'itemAdded', previousItemId, item: view, clientEventId: job.clientEventId },
    { type: 'itemDone', previousItemId, item: view },
  );
  return { patch: { ...recordTurn(context, turn, item, false, placed.items), lastItemId: placed.lastItemId }, emitted };
}

/**
 * Where a client's item goes: after the item it names (`previous_item_id`, `root` for first), or
 * at the end; null when it names an item the conversation does not hold (OpenAI refuses those).
 * The last item (what the next item follows) moves only when the item went at the end.
 */
function placeItem(
  context: CallContext,
  item: CallItem,
  after: string | null,
): { items: CallItem[]; previousItemId: string | null; lastItemId: string | null } | null {
  if (after === null || after === context.lastItemId)
    return { items: withItem(context.items, item), previousItemId: context.lastItemId, lastItemId: item.id };
  const items = withItemAfter(context.items, item, after);
  if (!items) return null;
  return { items, previousItemId: after === 'root' ? null : after, lastItemId: context.lastItemId };
}

/** What the `respond` effect is given for the response in `context`. */
export function respondInput(context: CallContext): RespondInput {
  const response = context.response!;
  return {
    callId: context.id,
    responseId: response.id,
    itemId: response.itemId,
    modalities: response.modalities,
    voice: context.session.voice,
    audioFormat: context.session.outputFormat ?? 'pcm',
    language: response.language,
    line: response.line,
    request:
      response.line === null
        ? {
            model: context.session.model,
            instructions: response.instructions,
            maxTokens: response.maxTokens,
            metadata: response.metadata,
            tools: response.tools ?? [],
            toolChoice: response.toolChoice ?? 'none',
          }
        : null,
    promptTokens: response.promptTokens,
  };
}
