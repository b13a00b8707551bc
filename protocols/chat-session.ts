import { z } from 'zod';
import { ChatCompletionSchema } from './chat-response.js';

// ---- Requests (beyond the chat request body, which is ChatCompletionRequestSchema) ----

/** `Idempotency-Key` of POST /v1/chat/sessions. */
export const IdempotencyKeySchema = z.string().min(1).max(255);

/** GET /v1/chat/sessions */
export const SessionListQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) });

/** GET …/events-page (and `after` of GET …/events) */
export const SessionEventsQuerySchema = z.object({
  after: z.coerce.number().int().min(-1).default(-1),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** DELETE /v1/chat/sessions/{id} */
export const SessionDeleteQuerySchema = z.object({
  force: z.stringbool().default(false),
  delete_artifacts: z.stringbool().default(true),
});

/** The sheets every workbook has, in order; `Turns` is the default of the CSV export. */
export const WORKBOOK_SHEET_NAMES = ['Turns', 'Budget', 'LiveInputs'] as const;

/** GET …/workbook.csv */
export const WorkbookCsvQuerySchema = z.object({ sheet: z.enum(WORKBOOK_SHEET_NAMES).default('Turns') });

// ---- The session object ----

const SecondsSchema = z.number().int();

/** A quote as the wire shows it: USD and seconds. */
export const SessionQuoteSchema = z.strictObject({
  cost_usd: z.strictObject({ min: z.number().nonnegative(), max: z.number().nonnegative() }),
  hold_usd: z.number().nonnegative(),
  time_seconds: z.strictObject({ min: z.number().nonnegative(), max: z.number().nonnegative() }),
});
export type SessionQuoteWire = z.output<typeof SessionQuoteSchema>;

/** The session object of POST/GET /v1/chat/sessions[/{id}] (spec: id and next_after; the rest is ours). */
export const SessionObjectSchema = z.strictObject({
  id: z.string(),
  object: z.literal('chat.session'),
  state: z.string(),
  phase: z.string().nullable(),
  model: z.string(),
  completion_id: z.string(),
  require_approval: z.boolean(),
  quote: SessionQuoteSchema.extend({ expires_at: SecondsSchema.nullable() }),
  question: z.strictObject({ id: z.string(), text: z.string(), expires_at: SecondsSchema.nullable() }).nullable(),
  usage: z.strictObject({
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
  }),
  price_usd: z.number().nullable(),
  cancel_reason: z.string().nullable(),
  error: z.string().nullable(),
  next_after: z.number().int().nonnegative(),
  created_at: SecondsSchema,
  updated_at: SecondsSchema,
});
export type SessionObject = z.output<typeof SessionObjectSchema>;

/** POST …/live-input: the session after the input, and that it was accepted. */
export const SessionLiveInputAckSchema = SessionObjectSchema.extend({ accepted: z.literal(true) });
export type SessionLiveInputAck = z.output<typeof SessionLiveInputAckSchema>;

/** GET /v1/chat/sessions */
export const SessionListSchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(SessionObjectSchema),
  has_more: z.boolean(),
});
export type SessionList = z.output<typeof SessionListSchema>;

/** DELETE /v1/chat/sessions/{id} */
export const SessionDeletedSchema = z.strictObject({
  id: z.string(),
  object: z.literal('chat.session'),
  deleted: z.literal(true),
  artifacts_deleted: z.boolean(),
});
export type SessionDeleted = z.output<typeof SessionDeletedSchema>;

/** GET …/result: the final completion in the chat.completion shape, with its session. */
export const SessionResultSchema = ChatCompletionSchema.extend({ session_id: z.string() });
export type SessionResult = z.output<typeof SessionResultSchema>;

// ---- Session events (events-page items and SSE `data:`) ----

const ENDINGS = ['completed', 'cancelled', 'failed', 'expired'] as const;

const event = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.strictObject({ seq: z.number().int().positive(), type: z.literal(type), ts: z.number().int(), data });

const EndedData = z.strictObject({
  price_usd: z.number().nonnegative(),
  usage: z.strictObject({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
  reason: z.string().nullable(),
  error: z.string().nullable(),
});

/** One event of a session's log as the wire shows it, per type. */
export const SessionEventSchema = z.discriminatedUnion('type', [
  event('created', z.strictObject({ quote: SessionQuoteSchema, require_approval: z.boolean() })),
  event('awaiting_approval', z.strictObject({ quote: SessionQuoteSchema, expires_at: SecondsSchema.nullable() })),
  event('approved', z.strictObject({})),
  event('phase', z.strictObject({ phase: z.enum(['planning', 'drafting', 'checking', 'judging']) })),
  event(
    'awaiting_user',
    z.strictObject({
      question: z.string().nullable(),
      question_id: z.string().nullable(),
      expires_at: SecondsSchema.nullable(),
    }),
  ),
  event('live_input', z.strictObject({ seq: z.number().int().positive() })),
  event(
    'answer',
    z.strictObject({ text: z.string(), finish_reason: z.enum(['stop', 'length', 'tool_calls']).nullable() }),
  ),
  ...ENDINGS.map((type) => event(type, EndedData)),
  event('acknowledged', z.strictObject({})),
]);
export type SessionEventWire = z.output<typeof SessionEventSchema>;

/** GET …/events-page */
export const SessionEventsPageSchema = z.strictObject({
  object: z.literal('chat.session.events'),
  session_id: z.string(),
  events: z.array(SessionEventSchema),
  next_after: z.number().int(),
  has_more: z.boolean(),
});
export type SessionEventsPage = z.output<typeof SessionEventsPageSchema>;

// ---- The workbook ----

/** GET …/workbook: each sheet's columns and rows; a row is its spreadsheet row number and its cells. */
export const WorkbookObjectSchema = z.strictObject({
  object: z.literal('chat.session.workbook'),
  session_id: z.string(),
  state: z.string(),
  created_at: SecondsSchema,
  updated_at: SecondsSchema,
  sheets: z.array(
    z.strictObject({
      name: z.enum(WORKBOOK_SHEET_NAMES),
      columns: z.array(z.string()),
      rows: z.array(
        z.strictObject({
          row: z.number().int().min(2),
          cells: z.array(
            z.strictObject({
              value: z.union([z.string(), z.number(), z.null()]),
              formula: z.string().startsWith('=').optional(),
            }),
          ),
        }),
      ),
    }),
  ),
});
export type WorkbookObject = z.output<typeof WorkbookObjectSchema>;
