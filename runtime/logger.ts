import { trace } from '@opentelemetry/api';
import { pino, stdSerializers, type DestinationStream } from 'pino';
import type { RequestScope } from './request-scope.js';

/** Log levels in increasing severity. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** The one logger: JSON lines on stderr, secret-bearing fields redacted by pino before they are written. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** The same logger stamping the request's `request_id`, `client` and `trace_id` on each line. */
  forRequest(scope: RequestScope): Logger;
}

/**
 * Field names that carry a secret wherever they appear: credentials, tokens, passwords, one-time
 * codes, keys and the headers that hold them. Callers log ids, not secrets; this is the mechanism
 * that holds when one forgets.
 */
export const SECRET_FIELDS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-admin-key',
  'api_key',
  'apiKey',
  'admin_key',
  'secret',
  'client_secret',
  'webhook_secret',
  'secrets_key',
  'password',
  'new_password',
  'current_password',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'session_token',
  'ticket',
  'totp_code',
  'recovery_code',
  'recovery_codes',
  'smtp_url',
  'upstream_api_key',
];

/** pino redaction paths: each secret field at the top of a line, one level down, and in headers. */
function redactPaths(): string[] {
  const paths: string[] = [];
  for (const name of SECRET_FIELDS) {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : `["${name}"]`;
    const dotted = key.startsWith('[') ? key : `.${key}`;
    paths.push(key, `*${dotted}`, `headers${dotted}`, `*.headers${dotted}`);
  }
  return paths;
}

/** Error values anywhere at the top of a line become name, message and stack (pino does it for `err` only). */
function serialise(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (key !== 'err' && value instanceof Error) (out ??= { ...fields })[key] = stdSerializers.err(value);
  }
  return out ?? fields;
}

/**
 * The trace id of the span active where a line is written (tracing on only; off, the API's no-op
 * context answers no span). Lines from code that holds no request logger still join their trace.
 */
function traceFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  return span ? { trace_id: span.spanContext().traceId } : {};
}

/** The request's id, client address and trace id, read when the line is written (the trace id is set once the span starts). */
function scopeFields(scope: RequestScope): Record<string, string> {
  const fields: Record<string, string> = { request_id: scope.requestId, client: scope.client };
  if (scope.traceId) fields.trace_id = scope.traceId;
  return fields;
}

/** Creates a logger that drops lines below `level` and writes each line to `sink` (stderr by default). */
export function createLogger(level: LogLevel, sink?: (line: string) => void): Logger {
  const destination: DestinationStream = sink ? { write: sink } : pino.destination({ dest: 2, sync: true });
  const log = pino(
    {
      level,
      base: null,
      messageKey: 'msg',
      timestamp: () => `,"ts":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactPaths(), censor: '[redacted]' },
      mixin: traceFields,
    },
    destination,
  );
  const make = (scope: RequestScope | null): Logger => {
    const at =
      (method: 'debug' | 'info' | 'warn' | 'error') =>
      (msg: string, fields?: Record<string, unknown>): void => {
        if (!log.isLevelEnabled(method)) return;
        const own = fields ? serialise(fields) : undefined;
        if (scope) log[method]({ ...scopeFields(scope), ...own }, msg);
        else if (own) log[method](own, msg);
        else log[method](msg);
      };
    return {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      forRequest: (next) => make(next),
    };
  };
  return make(null);
}
