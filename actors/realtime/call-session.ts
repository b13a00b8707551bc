import type { ToolChoice, ToolDefinition } from '../../backends/chat-backend.js';
import type { AudioFormat } from './telephony-audio.js';

/** Server VAD settings of a call; `null` in the session means the client commits turns itself. */
export interface TurnDetection {
  /** Speech probability (0…1) above which a 10 ms frame counts as voiced. */
  threshold: number;
  prefixPaddingMs: number;
  silenceDurationMs: number;
  /** A turn the VAD commits is answered. */
  createResponse: boolean;
  /** Speech that starts during a response cancels it (barge-in). */
  interruptResponse: boolean;
}

/**
 * A call's session as the machine keeps it (domain shape, camelCase): what the call does with
 * turns, and how it answers. The wire shows it as OpenAI's `session` object (rendered at the edge).
 * Inside, audio is always PCM16 at 24 kHz mono; the wire formats only change the edge.
 */
export interface CallSession {
  /** `transcription` only transcribes turns: nothing is answered and nothing said ends the call. */
  type: 'realtime' | 'transcription';
  model: string;
  outputModalities: ('text' | 'audio')[];
  instructions: string;
  maxOutputTokens: number | 'inf';
  turnDetection: TurnDetection | null;
  /** Input transcription settings; `prompt` guides the transcriber (absent in sessions from before it). */
  transcription: { model: string; language: string | null; prompt?: string | null } | null;
  voice: string;
  speed: number;
  /** Wire audio formats (absent in sessions from before telephony: PCM); converted at the edge of the call. */
  inputFormat?: AudioFormat;
  outputFormat?: AudioFormat;
  /** Functions the model may call, and whether it must (`tools`, `tool_choice`). */
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
}

/** A `session.update` as a change to the session: fields absent stay as they are. */
export interface SessionChange {
  type?: CallSession['type'];
  model?: string;
  outputModalities?: ('text' | 'audio')[];
  instructions?: string;
  maxOutputTokens?: number | 'inf';
  /** `null` turns server VAD off; fields absent keep their values (or the defaults when it was off). */
  turnDetection?: Partial<TurnDetection> | null;
  /** `null` turns input transcription settings off. */
  transcription?: { model?: string; language?: string; prompt?: string } | null;
  voice?: string;
  speed?: number;
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  inputFormat?: AudioFormat;
  outputFormat?: AudioFormat;
}

/**
 * The silence our VAD waits for when a client asks for `semantic_vad`, by `eagerness`: we have no
 * model of whether the caller finished a thought, so a less eager setting waits longer.
 */
export const SEMANTIC_VAD_SILENCE_MS = { low: 1_200, medium: 700, auto: 700, high: 350 } as const;

/** Server VAD as a call starts with it. */
export const DEFAULT_TURN_DETECTION: TurnDetection = {
  threshold: 0.5,
  prefixPaddingMs: 300,
  silenceDurationMs: 500,
  createResponse: true,
  interruptResponse: true,
};

/** The session a call starts with, on `model`. */
export function defaultCallSession(model: string): CallSession {
  return {
    type: 'realtime',
    model,
    outputModalities: ['audio'],
    instructions: '',
    maxOutputTokens: 'inf',
    turnDetection: { ...DEFAULT_TURN_DETECTION },
    transcription: null,
    voice: 'alloy',
    speed: 1,
    tools: [],
    toolChoice: 'auto',
    inputFormat: 'pcm',
    outputFormat: 'pcm',
  };
}

/** `session` with `change` applied; turn detection fields not given keep their values. */
export function applySessionChange(session: CallSession, change: SessionChange): CallSession {
  let turnDetection = session.turnDetection;
  if (change.turnDetection === null) turnDetection = null;
  else if (change.turnDetection)
    turnDetection = { ...(turnDetection ?? DEFAULT_TURN_DETECTION), ...definedOnly(change.turnDetection) };
  let transcription = session.transcription;
  if (change.transcription === null) transcription = null;
  else if (change.transcription) {
    transcription = {
      model: change.transcription.model ?? transcription?.model ?? 'sim',
      language: change.transcription.language ?? transcription?.language ?? null,
      prompt: change.transcription.prompt ?? transcription?.prompt ?? null,
    };
  }
  return {
    type: change.type ?? session.type,
    model: change.model ?? session.model,
    outputModalities: change.outputModalities ? [...new Set(change.outputModalities)] : session.outputModalities,
    instructions: change.instructions ?? session.instructions,
    maxOutputTokens: change.maxOutputTokens ?? session.maxOutputTokens,
    turnDetection,
    transcription,
    voice: change.voice ?? session.voice,
    speed: change.speed ?? session.speed,
    // Sessions persisted before tools existed have none.
    tools: change.tools ?? session.tools ?? [],
    toolChoice: change.toolChoice ?? session.toolChoice ?? 'auto',
    inputFormat: change.inputFormat ?? session.inputFormat ?? 'pcm',
    outputFormat: change.outputFormat ?? session.outputFormat ?? 'pcm',
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
