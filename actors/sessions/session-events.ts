import type { TokenUsage } from '../../protocols/pricing.js';
import type { LogEvent } from '../../runtime/host/actor-log.js';
import type { SessionQuote } from './session-types.js';

/** The ways a session's run ends; each is also the state it ends in and the event that says so. */
export type SessionEnding = 'completed' | 'cancelled' | 'failed' | 'expired';

/** The steps of a running session, as its `phase` events name them. */
export type SessionPhase = 'planning' | 'drafting' | 'checking' | 'judging';

/**
 * What a session emits, and what its persisted event log holds: domain facts in camelCase, money
 * in integer micro-USD, times in epoch ms. The API's event wire (snake_case, USD, seconds) is
 * rendered from these at the edge (http/views/session-events.ts), so the log does not depend on it.
 */
export type SessionDomainEvent =
  | { type: 'created'; quote: SessionQuote; requireApproval: boolean }
  | { type: 'awaiting_approval'; quote: SessionQuote; expiresAt: number | null }
  | { type: 'approved' }
  | { type: 'phase'; phase: SessionPhase }
  | { type: 'awaiting_user'; question: string | null; questionId: string | null; expiresAt: number | null }
  | { type: 'live_input'; seq: number }
  | { type: 'answer'; text: string; finishReason: 'stop' | 'length' | 'tool_calls' | null }
  | { type: SessionEnding; priceMicros: number; usage: TokenUsage; reason: string | null; error: string | null }
  | { type: 'acknowledged' };

const ENDING_TYPES: ReadonlySet<string> = new Set<string>([
  'completed',
  'cancelled',
  'failed',
  'expired',
  'acknowledged',
]);

/** Whether an event of `type` ends the run (nothing but `acknowledged` can follow it). */
export function isEndingEvent(type: string): boolean {
  return ENDING_TYPES.has(type);
}

/** A log entry as the domain event it was emitted as. */
export function domainEventOf(entry: LogEvent): SessionDomainEvent {
  return { ...entry.data, type: entry.type } as SessionDomainEvent;
}
