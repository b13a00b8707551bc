import { lookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ApiError, ensureError } from '../../../protocols/errors.js';
import { formatBytes } from './media-labels.js';
import { isPublicAddress } from './public-address.js';

/** How far a remote fetch may go: bytes, time, and whether non-public addresses are allowed. */
export interface RemoteFetchLimits {
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
}

/** One remote fetch on behalf of a content part. */
export interface RemoteFetch {
  limits: RemoteFetchLimits;
  /** The request's signal: when it aborts (client gone) the fetch stops and rethrows that abort. */
  signal: AbortSignal;
  /** What is fetched, for messages: `the image in messages[0].content[1]`. */
  label: string;
  /** The request field the URL came from, for the error's `param`. */
  param: string;
  /** The Accept header to send. */
  accept: string;
}

/** A fetched body and its declared content type. */
export interface FetchedBody {
  bytes: Buffer;
  contentType: string | null;
}

const HTTP_PROTOCOLS = new Set(['http:', 'https:']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
const USER_AGENT = 'svc-media-fetch/1';

class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, which is not a public address`);
  }
}

/**
 * DNS lookup that refuses a host when any of its addresses (IPv4 and IPv6) is not public. It runs
 * inside the connection, so the socket goes to exactly the addresses that were checked.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
    if (blocked) return callback(new BlockedAddressError(hostname, blocked.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    return callback(null, first.address, first.family);
  });
};

function refuse(fetch: RemoteFetch, reason: string, cause?: unknown): ApiError {
  return new ApiError('invalid_request', `Cannot fetch ${fetch.label}: ${reason}.`, { param: fetch.param, cause });
}

function open(target: URL, fetch: RemoteFetch, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // An IP literal is never looked up, so it is checked here.
    if (!fetch.limits.allowPrivate && isIP(host) && !isPublicAddress(host))
      return reject(new BlockedAddressError(host, host));
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, {
      method: 'GET',
      agent: false,
      signal,
      lookup: fetch.limits.allowPrivate ? undefined : publicOnlyLookup,
      headers: { accept: fetch.accept, 'accept-encoding': 'identity', 'user-agent': USER_AGENT },
    });
    req.on('response', resolve);
    req.on('error', reject); // `on`, not `once`: a late second error must not go unhandled
    req.end();
  });
}

/** Reads a body into memory, never holding more than the cap: past it the connection is cut. */
async function readCapped(res: IncomingMessage, fetch: RemoteFetch, signal: AbortSignal): Promise<Buffer> {
  const { maxBytes } = fetch.limits;
  const tooLarge = () => refuse(fetch, `the body is larger than the ${formatBytes(maxBytes)} limit`);
  if (Number(res.headers['content-length']) > maxBytes) {
    res.destroy();
    throw tooLarge();
  }
  const onAbort = () => res.destroy(ensureError(signal.reason));
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      if (total + chunk.length > maxBytes) {
        res.destroy();
        throw tooLarge();
      }
      total += chunk.length;
      chunks.push(chunk);
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  signal.throwIfAborted(); // an abort may end the stream quietly: never return a cut body
  return Buffer.concat(chunks, total);
}

/** A follow-up URL from a redirect, or a refusal when it leaves http(s). */
function redirectTarget(location: string, from: URL, fetch: RemoteFetch): URL {
  const next = URL.canParse(location, from.href) ? new URL(location, from) : null;
  if (!next || !HTTP_PROTOCOLS.has(next.protocol)) throw refuse(fetch, 'it redirects to a URL that is not http(s)');
  return next;
}

/**
 * Fetches an http(s) URL for a content part: follows up to 5 redirects, refuses loopback, private
 * and link-local destinations (every resolved address, each hop) unless allowed, and stops at the
 * byte and time caps. Every failure is a 400 naming `fetch.param`; a client abort is rethrown as is.
 */
export async function fetchRemote(url: URL, fetch: RemoteFetch): Promise<FetchedBody> {
  const timeout = AbortSignal.timeout(fetch.limits.timeoutMs);
  const signal = AbortSignal.any([fetch.signal, timeout]);
  try {
    let target = url;
    for (let redirects = 0; ; redirects++) {
      if (!HTTP_PROTOCOLS.has(target.protocol)) throw refuse(fetch, 'only http(s) and data: URLs are accepted');
      const res = await open(target, fetch, signal);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location) {
        res.destroy();
        if (redirects >= MAX_REDIRECTS) throw refuse(fetch, `more than ${MAX_REDIRECTS} redirects`);
        target = redirectTarget(location, target, fetch);
        continue;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        throw refuse(fetch, `the server answered HTTP ${status}`);
      }
      const bytes = await readCapped(res, fetch, signal);
      return { bytes, contentType: res.headers['content-type'] ?? null };
    }
  } catch (err) {
    fetch.signal.throwIfAborted();
    if (err instanceof ApiError) throw err;
    if (timeout.aborted) throw refuse(fetch, `no complete answer within ${fetch.limits.timeoutMs} ms`, err);
    if (err instanceof BlockedAddressError) {
      throw refuse(
        fetch,
        `${err.host} is a loopback, private or link-local address (${err.address}); only public hosts are fetched`,
        err,
      );
    }
    const cause = ensureError(err);
    const code = (cause as NodeJS.ErrnoException).code;
    throw refuse(fetch, `the host could not be reached (${code ?? cause.message})`, cause);
  }
}
