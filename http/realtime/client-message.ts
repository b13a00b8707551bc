import { ClientEventSchema, CLIENT_EVENT_TYPES, type ClientEvent } from '../../protocols/realtime.js';
import { errorEvent } from './server-events.js';

/** A client message parsed, or the `error` event that answers it. */
export type ParsedMessage = { event: ClientEvent; eventId: string | null } | { error: Record<string, unknown> };

/** Parses one text frame: JSON, a known `type`, then its schema; each failure names the problem. */
export function parseClientMessage(text: string): ParsedMessage {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: errorEvent('invalid_json', 'The message is not valid JSON.') };
  }
  const object = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown; event_id?: unknown }) : {};
  const type = object.type;
  const eventId = typeof object.event_id === 'string' ? object.event_id : null;
  if (typeof type !== 'string' || !CLIENT_EVENT_TYPES.includes(type as never)) {
    const named = typeof type === 'string' ? `Unknown message type "${type}".` : 'The message has no "type".';
    return { error: errorEvent('invalid_event', `${named} Understood: ${CLIENT_EVENT_TYPES.join(', ')}.`, { param: 'type', eventId }) };
  }
  const parsed = ClientEventSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join('.');
    return { error: errorEvent('invalid_value', `Invalid ${type}${where ? ` at ${where}` : ''}: ${issue.message}`, { param: where || null, eventId }) };
  }
  return { event: parsed.data, eventId };
}
