import type { ToolChoice, ToolDefinition } from '../../backends/chat-backend.js';
import type {
  CallEmitted,
  CallItem,
  CallFunctionCall,
  CallFunctionOutput,
  CallMessage,
  CallUsage,
  CancelReason,
  CloseReason,
  EndingReason,
  Modality,
  ResponseStatus,
  ResponseToolCall,
  ResponseUsage,
} from './call-events.js';
import type { CallSession, SessionChange } from './call-session.js';
import type { AudioFormat } from './telephony-audio.js';
import type { FarewellVerdict } from './farewell.js';

// The call machine's data: what a call starts with and keeps between events, the work it queues,
// the events it takes and what its effects are given. Plain data throughout (it is persisted).

/** What a client asks of one response (`response.create`); null fields fall back to the session. */
export interface ResponseRequest {
  outputModalities: Modality[] | null;
  instructions: string | null;
  maxOutputTokens: number | 'inf' | null;
  metadata: Record<string, unknown> | null;
  /** Absent in requests persisted before function calls: the session's. */
  tools?: ToolDefinition[] | null;
  toolChoice?: ToolChoice | null;
}

/** A response the call is about to run or is running. */
export interface ResponsePlan {
  id: string;
  itemId: string;
  modalities: Modality[];
  /** The service's own line (the goodbye), spoken or written as is; null for a model answer. */
  line: string | null;
  /** Language hint for speech (the goodbye's language). */
  language: string | null;
  instructions: string;
  maxTokens: number;
  metadata: Record<string, unknown> | null;
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  /** Prompt tokens of the conversation sent (0 for a fixed line): billed even if the response is cut. */
  promptTokens: number;
  /** The price of the call so far plus this response's worst case: what must be held before it starts. */
  worstMicros: number;
  /** `planned` (waiting for money), `streaming` (its effect runs) or `finished`. */
  stage: 'planned' | 'streaming' | 'finished';
  cancelReason: CancelReason | null;
}

/** Everything a call starts with; plain data, persisted with the snapshot. */
export interface CallInput {
  id: string;
  accountId: string;
  tokenId: string | null;
  session: CallSession;
  /** Money held for the call when it opened; the charge never exceeds what is held. */
  holdMicros: number;
  /** How long `endReady` waits for the client's end acknowledgement before closing anyway. */
  endGraceMs: number;
  /** Random base62 characters the call's item and response ids are made of (so the machine stays deterministic). */
  idSeed: string;
  at: number;
}

/** A part of an item a client adds; audio is parked on the call's line under `audioKey` until transcribed. */
export type DraftContent =
  | { type: 'input_text' | 'output_text' | 'text'; text: string }
  | { type: 'input_audio'; transcript: string | null; audioMs: number; audioKey: string | null };

/** An item a client adds (`conversation.item.create`): a message (no `type` in older snapshots) or a function call or output. */
export type ItemDraft =
  | { type?: 'message'; id: string | null; role: CallMessage['role']; content: DraftContent[] }
  | (Omit<CallFunctionCall, 'id'> & { id: string | null })
  | (Omit<CallFunctionOutput, 'id'> & { id: string | null });

/** Work the call does one piece at a time, in arrival order: transcribe and answer turns, add items, respond. */
export type TurnJob =
  | { kind: 'audio'; itemId: string; previousItemId: string | null; audioKey: string; audioMs: number; answer: boolean }
  /** `previousItemId`: where the client placed it (absent in jobs from before placement: at the end). */
  | { kind: 'item'; draft: ItemDraft; clientEventId: string | null; previousItemId?: string | null }
  | { kind: 'response'; request: ResponseRequest; clientEventId: string | null };

/** The job in progress and what its user turn said. */
export interface Turn {
  job: TurnJob;
  itemId: string;
  /** What the turn said, once recorded. */
  text: string | null;
  /** Answer the turn (server VAD's `createResponse`). */
  answer: boolean;
  /** A user turn of a realtime session that ends the call. */
  farewell: FarewellVerdict | null;
}

/** A call's state between events. */
export interface CallContext extends CallInput {
  idCount: number;
  /** The conversation as text, oldest first: what survives a crash besides the usage. */
  items: CallItem[];
  lastItemId: string | null;
  usage: CallUsage;
  queue: TurnJob[];
  turn: Turn | null;
  response: ResponsePlan | null;
  /** Set when the caller said goodbye; `ready` once the goodbye was said (end_ready, grace deadline armed). */
  ending: { reason: EndingReason; language: string | null; ready: boolean } | null;
  closeReason: CloseReason | null;
  charge: { micros: number; entryId: string | null } | null;
  deadlines: { endGrace?: number | null };
  updatedAt: number;
}

/** One transcription result per audio part, in order; the first failure ends the list. */
export type TranscriptionResult = { ok: true; text: string; durationSeconds: number } | { ok: false; message: string };

/** Input of the `transcribe` effect: audio parked on the call's line, by key. */
export interface TranscribeInput {
  callId: string;
  audioKeys: string[];
  language: string | null;
  /** Guides the transcriber (`audio.input.transcription.prompt`); absent in inputs from before it. */
  prompt?: string | null;
}

/** Input of the `respond` effect: everything one response needs, as plain data. */
export interface RespondInput {
  callId: string;
  responseId: string;
  itemId: string;
  modalities: Modality[];
  voice: string;
  /** The wire format of the audio sent (absent in inputs from before telephony: PCM). */
  audioFormat?: AudioFormat;
  language: string | null;
  /** The fixed line to say, or null for a model answer to `request`. */
  line: string | null;
  /**
   * A model answer's settings. The conversation itself is not here: the effect takes it from the
   * call's state when it starts (an input is persisted with every snapshot while the response runs).
   */
  request: {
    model: string;
    instructions: string;
    maxTokens: number;
    metadata: Record<string, unknown> | null;
    tools: ToolDefinition[];
    toolChoice: ToolChoice;
  } | null;
  promptTokens: number;
}

/** Input of the `topUp` effect: the call must hold at least `neededMicros`. */
export interface TopUpInput {
  callId: string;
  accountId: string;
  tokenId: string | null;
  neededMicros: number;
}

/** Input of the `settle` effect: plain data, so a settlement cut by a crash is re-run (idempotently). */
export interface SettleCallInput {
  callId: string;
  accountId: string;
  tokenId: string | null;
  usage: CallUsage;
  capMicros: number;
}

/** How the `respond` effect reports the end of its response (sent back to the machine). */
export type ResponseFinished = {
  type: 'RESPONSE_FINISHED';
  responseId: string;
  status: ResponseStatus;
  text: string;
  toolCalls: ResponseToolCall[];
  usage: ResponseUsage;
  failure: string | null;
  /** Audio the client had played when the response was cut (ms since its first frame was sent, at most what was sent); null without audio. */
  playedMs?: number | null;
  at: number;
};

/** Events the call's handle (client messages, its line's VAD), its effects and the host's timers send. */
export type CallEvent =
  | { type: 'OPEN'; at: number }
  | { type: 'SESSION_UPDATE'; change: SessionChange; clientEventId: string | null; at: number }
  | { type: 'SPEECH_STARTED'; itemId: string; at: number }
  | { type: 'SPEECH_STOPPED'; itemId: string; audioEndMs: number; audioKey: string; audioMs: number; at: number }
  | { type: 'AUDIO_COMMITTED'; itemId: string; audioKey: string; audioMs: number; at: number }
  | { type: 'ITEM_CREATE'; item: ItemDraft; previousItemId: string | null; clientEventId: string | null; at: number }
  | { type: 'RESPONSE_CREATE'; request: ResponseRequest; clientEventId: string | null; at: number }
  | { type: 'RESPONSE_CANCEL'; responseId: string | null; clientEventId: string | null; at: number }
  | {
      type: 'ITEM_TRUNCATE';
      itemId: string;
      contentIndex: number;
      audioEndMs: number;
      clientEventId: string | null;
      at: number;
    }
  | { type: 'ITEM_DELETE'; itemId: string; clientEventId: string | null; at: number }
  | { type: 'ITEM_RETRIEVE'; itemId: string; clientEventId: string | null }
  | { type: 'END_ACK'; clientEventId: string | null; at: number }
  | { type: 'DISCONNECT'; at: number }
  | ResponseFinished
  | { type: 'TIMER'; name: string };

/** A refusal the machine emits. */
export type RejectionCode = Extract<CallEmitted, { type: 'rejected' }>['code'];
