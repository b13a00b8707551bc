// A chat session's data: its input, context between events, the runtime actors' inputs and the
// events it accepts. Plain data throughout, persisted with the machine's snapshot.
import type { ChatMessage } from '../../protocols/chat.js';
import type { TokenUsage } from '../../protocols/pricing.js';
import type { ChatPlan, PassName } from '../chat/chat-plan.js';
import type { PassChoiceResult } from '../chat/completion.js';
import type { LiveInput } from '../chat/completion-passes.js';

/** The quote a session parks with (same figures as /v1/estimate), money in micro-USD. */
export interface SessionQuote {
  minMicros: number;
  holdMicros: number;
  minSeconds: number;
  maxSeconds: number;
}

/** A clarifying question the run is waiting on. */
export interface PendingQuestion {
  id: string;
  text: string;
}

/** One step of the run, for the workbook's Turns sheet. */
export interface SessionTurn {
  phase: PassName | 'clarification';
  at: number;
  promptTokens: number;
  completionTokens: number;
  summary: string;
}

/** Everything a session needs to start; all of it is plain data, persisted with the snapshot. */
export interface SessionInput {
  id: string;
  /** Processed tokens spent resolving content parts before the run (0 while approval defers it). */
  preprocessed: TokenUsage;
  accountId: string;
  tokenId: string | null;
  completionId: string;
  model: string;
  conversation: ChatMessage[];
  /** The request's backend settings (plain JSON), handed to every step. */
  settings: Record<string, unknown>;
  plan: ChatPlan;
  quote: SessionQuote;
  requireApproval: boolean;
  at: number;
  approvalTtlMs: number;
  idleTtlMs: number;
}

/** A session's state between events. */
export interface SessionContext extends SessionInput {
  planText: string;
  answer: PassChoiceResult | null;
  usage: TokenUsage;
  liveInputs: LiveInput[];
  question: PendingQuestion | null;
  /** Messages added by clarifications: the assistant's question and the user's answer. */
  clarifications: ChatMessage[];
  turns: SessionTurn[];
  deadlines: { approval?: number | null; idle?: number | null };
  outcome: 'completed' | 'cancelled' | 'failed' | 'expired' | null;
  cancelReason: string | null;
  error: string | null;
  priceMicros: number | null;
  updatedAt: number;
}

/** Input of the runtime's `runStep` actor: one backend call, plain data so it can restart after a crash. */
export interface RunStepInput {
  sessionId: string;
  pass: PassName;
  messages: ChatMessage[];
  maxTokens: number;
  settings: Record<string, unknown>;
  /** Offer the ask_user tool (the drafting step may ask a clarifying question). */
  mayAsk: boolean;
}

/** Input of the runtime's `settleCharge` actor: idempotent by session id. */
export interface SettleInput {
  sessionId: string;
  accountId: string;
  tokenId: string | null;
  model: string;
  outcome: 'completed' | 'cancelled' | 'failed' | 'expired';
  usage: TokenUsage;
  capMicros: number;
}

/** Events clients (through the routes) and the host's timers send to a session. */
export type SessionEvent =
  | { type: 'APPROVE'; at: number; conversation: ChatMessage[]; preprocessed: TokenUsage }
  | { type: 'LIVE_INPUT'; content: unknown; questionId: string | null; source: string; modality: string; at: number }
  | { type: 'CANCEL'; reason: string | null; at: number }
  | { type: 'ACKNOWLEDGE'; at: number }
  | { type: 'TIMER'; name: string };

/** A finished step: its result, stamped by the runtime with when it finished. */
export type StepResult = PassChoiceResult & { at?: number };
