import type { Exchange } from '../exchange.js';

/**
 * A web-standard `Request` for the exchange, headers only: the body has been read (bounded) by the
 * caller and is handed to the MCP transport already parsed, so it is never read twice.
 */
export function webRequestOf(ex: Exchange, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ex.headers)) headers.set(name, value);
  const query = ex.query.toString();
  return new Request(`${origin}${ex.path}${query ? `?${query}` : ''}`, { method: ex.method, headers });
}

/** Response headers the exchange sets itself, or that make no sense once the body is re-framed. */
const SKIPPED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

function headersOf(response: Response): Record<string, string> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!SKIPPED.has(name.toLowerCase())) out[name.toLowerCase()] = value;
  });
  return out;
}

/**
 * Writes a web-standard `Response` to the exchange: a whole body at once, or an event stream
 * chunk by chunk with backpressure (the next chunk is pulled only once the client took the last).
 * Resolves when the response has ended or the client has gone (the stream is then cancelled).
 */
export async function sendWebResponse(ex: Exchange, response: Response): Promise<void> {
  const headers = headersOf(response);
  const streaming = (headers['content-type'] ?? '').startsWith('text/event-stream');
  if (!response.body || !streaming) {
    const body = response.body ? Buffer.from(await response.arrayBuffer()) : '';
    ex.send(response.status, headers, body);
    return;
  }
  const reader = response.body.getReader();
  const onAbort = () => void reader.cancel().catch(() => undefined);
  ex.signal.addEventListener('abort', onAbort, { once: true });
  try {
    ex.beginStream(response.status, headers);
    for (;;) {
      const { done, value } = (await reader.read()) as
        { done: false; value: Uint8Array } | { done: true; value?: undefined };
      if (done || ex.signal.aborted) break;
      if (!ex.write(Buffer.from(value))) await ex.drained();
    }
  } catch (err) {
    // The stream was cancelled because the client left; anything else is a fault to report.
    if (!ex.signal.aborted) throw err;
  } finally {
    ex.signal.removeEventListener('abort', onAbort);
    if (!ex.signal.aborted) ex.end();
  }
}
