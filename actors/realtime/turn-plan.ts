import type { ChatMessage } from '../../protocols/chat.js';
import { realtimePriceMicros } from '../../protocols/pricing.js';
import { countPromptTokens } from '../../protocols/tokens.js';
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

// Turn planning for the call machine: pure functions of the call's context (no I/O, no clock), so
// the machine's actions stay one-liners and table tests can call them directly.

/** Tokens a response may generate when the session says `inf`. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** Worst-case speech per generated token, for the hold a response needs before it starts. */
export const AUDIO_MS_PER_TOKEN = 400;
/** Items sent to the model per response: the newest, so a long call stays bounded. */
export const CONTEXT_ITEMS = 60;
/** Items kept in the snapshot; older ones stay in the actor's event log. */
export const MAX_ITEMS = 200;

/** Usage after `added`. */
export function usageAfter(usage: CallUsage, added: Partial<CallUsage>): CallUsage {
  return {
    audioInMs: usage.audioInMs + (added.audioInMs ?? 0),
    audioOutMs: usage.audioOutMs + (added.audioOutMs ?? 0),
    promptTokens: usage.promptTokens + (added.promptTokens ?? 0),
    completionTokens: usage.completionTokens + (added.completionTokens ?? 0),
  };
}

/** `items` with `item` appended (the last MAX_ITEMS kept). */
export function withItem(items: readonly CallItem[], item: CallItem | null): CallItem[] {
  return item ? [...items, item].slice(-MAX_ITEMS) : [...items];
}

/**
 * The chat messages of a call: its instructions, then its items: messages as text, function calls
 * as an assistant message's `tool_calls` (the calls of one response, after its text, travel in one
 * message), outputs as `tool` messages.
 */
export function conversationMessages(instructions: string, items: readonly CallItem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (instructions) messages.push({ role: 'system', content: instructions });
  for (const item of items) {
    if (isMessage(item)) {
      if (item.text) messages.push({ role: item.role, content: item.text });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.callId, content: item.output });
    } else {
      const call = {
        id: item.callId,
        type: 'function' as const,
        function: { name: item.name, arguments: item.arguments },
      };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    }
  }
  return messages;
}

/** The newest items a response sees. */
export function contextItems(items: readonly CallItem[]): CallItem[] {
  return items.slice(-CONTEXT_ITEMS);
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

/** A `rejected` event. */
export function rejection(
  code: RejectionCode,
  message: string,
  options: { param?: string | null; clientEventId?: string | null } = {},
): CallEmitted {
  return {
    type: 'rejected',
    code,
    message,
    param: options.param ?? null,
    clientEventId: options.clientEventId ?? null,
  };
}

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
function recordTurn(context: CallContext, turn: Turn, item: CallItem, answer: boolean): Partial<CallContext> {
  const user = isMessage(item) && item.role === 'user' ? item : null;
  const farewell =
    user && context.session.type === 'realtime' && context.ending === null ? detectFarewell(user.text) : null;
  return {
    items: withItem(context.items, item),
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
  const previousItemId = context.lastItemId;
  if (!('content' in draft)) {
    // A function call or its output: recorded as given, never answered by itself.
    const item: CallItem = { ...draft, id: turn.itemId };
    emitted.push(
      { type: 'itemAdded', previousItemId, item, clientEventId: job.clientEventId },
      { type: 'itemDone', previousItemId, item },
    );
    return { patch: { ...recordTurn(context, turn, item, false), lastItemId: turn.itemId }, emitted };
  }
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
  const view = draftView(turn.itemId, draft.role, draft.content, text);
  emitted.push(
    { type: 'itemAdded', previousItemId, item: view, clientEventId: job.clientEventId },
    { type: 'itemDone', previousItemId, item: view },
  );
  const patch = recordTurn(
    context,
    turn,
    { id: turn.itemId, role: draft.role, text, audioMs: draft.role === 'user' ? audioMs : 0 },
    false,
  );
  return { patch: { ...patch, lastItemId: turn.itemId }, emitted };
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

/**
 * The part of `text` heard when `heardMs` of its `totalMs` of speech were played: the same share of
 * its characters (speech takes time in proportion to its text, exactly so for the sim's voice),
 * cut back to the last whole word.
 */
export function heardText(text: string, heardMs: number, totalMs: number): string {
  if (totalMs <= 0 || heardMs >= totalMs) return text;
  const cut = Math.floor((text.length * Math.max(0, heardMs)) / totalMs);
  if (cut >= text.length) return text;
  const head = text.slice(0, cut + 1);
  const end = /\s\S*$/u.exec(head);
  return (end ? head.slice(0, end.index) : '').trimEnd();
}

/** `item` cut at `audioEndMs` of its audio (its text cut to match). */
export function truncated(item: CallMessage, audioEndMs: number): CallMessage {
  if (audioEndMs >= item.audioMs) return item;
  return {
    ...item,
    text: heardText(item.text, audioEndMs, item.audioMs),
    audioMs: audioEndMs,
    producedMs: item.producedMs ?? item.audioMs,
  };
}

/** The outcome of a client's edit of its conversation: the new items and what to announce, or a refusal. */
export type ItemEdit = { items?: CallItem[]; emitted: CallEmitted };

/** `conversation.item.truncate`: only an assistant item with audio, at most as far as its audio went. */
export function truncateEdit(
  items: readonly CallItem[],
  edit: { itemId: string; contentIndex: number; audioEndMs: number; clientEventId: string | null },
): ItemEdit {
  const index = items.findIndex((item) => item.id === edit.itemId);
  const item = items[index];
  if (!item) return { emitted: notFound(edit.itemId, edit.clientEventId) };
  const refuse = (message: string, param: string) =>
    ({ emitted: rejection('invalid_value', message, { param, clientEventId: edit.clientEventId }) }) as const;
  if (!isMessage(item) || item.role !== 'assistant' || (item.producedMs ?? item.audioMs) <= 0)
    return refuse(`Item ${edit.itemId} is not an assistant audio item: only those can be truncated.`, 'item_id');
  if (edit.contentIndex !== 0)
    return refuse('An assistant audio item has one content part (index 0).', 'content_index');
  if (edit.audioEndMs > (item.producedMs ?? item.audioMs))
    return refuse(
      `audio_end_ms ${edit.audioEndMs} is beyond the item's ${item.producedMs ?? item.audioMs} ms of audio.`,
      'audio_end_ms',
    );
  const next = [...items];
  next[index] = truncated(item, edit.audioEndMs);
  return {
    items: next,
    emitted: { type: 'itemTruncated', itemId: item.id, contentIndex: 0, audioEndMs: edit.audioEndMs },
  };
}

/** `conversation.item.delete`: the item leaves the conversation (later responses no longer see it). */
export function deleteEdit(items: readonly CallItem[], itemId: string, clientEventId: string | null): ItemEdit {
  if (!items.some((item) => item.id === itemId)) return { emitted: notFound(itemId, clientEventId) };
  return { items: items.filter((item) => item.id !== itemId), emitted: { type: 'itemDeleted', itemId } };
}

/** `conversation.item.retrieve`: the item as the conversation holds it now. */
export function retrieveEdit(items: readonly CallItem[], itemId: string, clientEventId: string | null): ItemEdit {
  const item = items.find((candidate) => candidate.id === itemId);
  return { emitted: item ? { type: 'itemRetrieved', item: storedView(item) } : notFound(itemId, clientEventId) };
}

function notFound(itemId: string, clientEventId: string | null): CallEmitted {
  return rejection('item_not_found', `The conversation holds no item '${itemId}'.`, {
    param: 'item_id',
    clientEventId,
  });
}

/** A stored item as announced: a message's text as the part it came as (heard or spoken audio, or text). */
export function storedView(item: CallItem): ItemView {
  if (!isMessage(item)) return item;
  let part: ItemContent;
  if (item.role === 'assistant')
    part =
      item.audioMs > 0 || item.producedMs
        ? { type: 'output_audio', transcript: item.text }
        : { type: 'output_text', text: item.text };
  else
    part =
      item.role === 'user' && item.audioMs > 0
        ? { type: 'input_audio', transcript: item.text }
        : { type: 'input_text', text: item.text };
  return { id: item.id, role: item.role, content: [part] };
}
