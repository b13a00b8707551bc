import type { createRemoteJWKSet, JWK, JWTPayload } from 'jose';
import type { AuthorizationServer } from 'oauth4webapi';
import type { Clock } from '../../runtime/clock.js';
import { lazyModule } from '../../runtime/lazy-module.js';
import {
  AccessTokenError,
  type AccessTokenClaims,
  type IssuerCheck,
  type IssuerCheckResult,
  type OidcIssuer,
} from '../oidc.js';

/** jose loads with the first token to verify (only servers with OAuth configured need it). */
const loadJose = lazyModule(() => import('jose'));
/** oauth4webapi loads with the first discovery, for the same reason. */
const loadOauth = lazyModule(() => import('oauth4webapi'));

/** Asymmetric JWS algorithms accepted on access tokens; `none` and shared-secret (HS*) tokens never are. */
export const ACCEPTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** Token types accepted in the JWS header: RFC 9068 access tokens, and the generic `JWT` many issuers write. */
const ACCEPTED_TYP = new Set(['at+jwt', 'application/at+jwt', 'jwt']);

/** Seconds of clock difference tolerated on `exp` and `nbf`. */
const CLOCK_TOLERANCE_S = 30;

/** Options of {@link JoseOidcIssuer}. */
export interface JoseOidcIssuerOptions {
  issuer: string;
  audience: string;
  clock: Clock;
  /** Timeout of each request to the issuer (discovery, JWKS). */
  timeoutMs?: number;
}

/** Whether `url` may be fetched in the clear: loopback only (a local issuer in development and tests). */
function isLoopback(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
}

/** An https URL, or http on loopback; null otherwise. */
function secureUrl(value: unknown): URL | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url)) ? url : null;
  } catch {
    return null;
  }
}

/** The algorithm a published key is for: its `alg`, or what its type implies. */
function algorithmOf(key: JWK): string | null {
  if (typeof key.alg === 'string') return key.alg;
  if (key.kty === 'RSA') return 'RS256';
  if (key.kty === 'EC') return key.crv === 'P-384' ? 'ES384' : key.crv === 'P-521' ? 'ES512' : 'ES256';
  if (key.kty === 'OKP') return 'EdDSA';
  return null;
}

/** Why a discovery document could not be read, in a line: an HTTP status with its path, or the error's message. */
function discoveryFailure(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof Response) return `${new URL(cause.url).pathname} answered ${cause.status}`;
  return err instanceof Error ? err.message : String(err);
}

function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  const scp = (payload as { scp?: unknown }).scp;
  if (Array.isArray(scp)) return scp.filter((scope): scope is string => typeof scope === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter(Boolean);
  return [];
}

/** Maps what jose threw to a refusal that names the failed check. */
function refusal(err: unknown, errors: typeof import('jose').errors): AccessTokenError {
  if (err instanceof AccessTokenError) return err;
  if (err instanceof errors.JWTExpired)
    return new AccessTokenError('expired', 'the access token has expired', { cause: err });
  if (err instanceof errors.JWTClaimValidationFailed) {
    const failure =
      err.claim === 'iss'
        ? 'issuer'
        : err.claim === 'aud'
          ? 'audience'
          : err.claim === 'nbf'
            ? 'not_yet_valid'
            : 'malformed';
    return new AccessTokenError(failure, `the access token's ${err.claim} claim is not accepted (${err.reason})`, {
      cause: err,
    });
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return new AccessTokenError('algorithm', 'the access token is signed with an algorithm that is not accepted', {
      cause: err,
    });
  if (
    err instanceof errors.JWSSignatureVerificationFailed ||
    err instanceof errors.JWKSNoMatchingKey ||
    err instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return new AccessTokenError('signature', 'the access token is not signed by a key of the issuer', { cause: err });
  }
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || err instanceof TypeError) {
    return new AccessTokenError('unavailable', "the issuer's keys could not be fetched", { cause: err });
  }
  return new AccessTokenError('malformed', 'the access token is not a valid JWT', { cause: err });
}

/**
 * An OIDC / OAuth 2.1 issuer reached over HTTP. Its metadata is read by oauth4webapi
 * (`discoveryRequest` + `processDiscoveryResponse`: the OpenID Connect document, else RFC 8414
 * metadata, a 200 JSON object naming this issuer; https only, and http on loopback where we allow
 * it). Access tokens are verified with jose against the issuer's JWKS (from the metadata's
 * `jwks_uri`, cached and refreshed by jose), and there is a live conformance check.
 *
 * jose stays for tokens: oauth4webapi's `validateJwtAccessToken` is strict RFC 9068 (a `typ` of
 * `at+jwt` only; `sub`, `jti`, `client_id` and `iat` required), while this service also accepts
 * the `JWT`-typed access tokens many issuers write and client-credentials tokens without `sub`
 * (test/mcp-oauth-token-checks.test.ts). oauth4webapi has no public JWKS request either, so the
 * live check fetches the JWKS itself.
 */
export class JoseOidcIssuer implements OidcIssuer {
  readonly issuer: string;
  readonly audience: string;
  private keys: ReturnType<typeof createRemoteJWKSet> | null = null;
  private readonly timeoutMs: number;

  constructor(private readonly options: JoseOidcIssuerOptions) {
    this.issuer = options.issuer;
    this.audience = options.audience;
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    const { errors, jwtVerify } = await loadJose();
    try {
      const keys = this.keys ?? (await this.loadKeys());
      const { payload, protectedHeader } = await jwtVerify(token, keys, {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: [...ACCEPTED_ALGORITHMS],
        currentDate: new Date(this.options.clock.now()),
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp'],
      });
      if (protectedHeader.typ !== undefined && !ACCEPTED_TYP.has(protectedHeader.typ.toLowerCase())) {
        throw new AccessTokenError('malformed', `a token of type ${protectedHeader.typ} is not an access token`);
      }
      const clientId =
        typeof payload.client_id === 'string'
          ? payload.client_id
          : typeof payload.azp === 'string'
            ? payload.azp
            : null;
      return {
        subject: payload.sub ?? null,
        clientId,
        scopes: scopesOf(payload),
        expiresAt: (payload.exp ?? 0) * 1000,
        claims: payload,
      };
    } catch (err) {
      throw refusal(err, errors);
    }
  }

  /** The JWKS resolver from the metadata's `jwks_uri` (the metadata is fetched once it works). */
  private async loadKeys(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const metadata = await this.discover().catch((cause: unknown) => {
      throw new AccessTokenError('unavailable', 'the issuer could not be reached', { cause });
    });
    const jwksUri = secureUrl(metadata?.jwks_uri);
    if (!metadata || !jwksUri || metadata.issuer !== this.issuer)
      throw new AccessTokenError('unavailable', 'the issuer does not publish a usable discovery document');
    this.keys = (await loadJose()).createRemoteJWKSet(jwksUri, { timeoutDuration: this.timeoutMs });
    return this.keys;
  }

  private async fetchJson(url: URL): Promise<unknown> {
    const res = await fetch(url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!res.ok) throw new Error(`${url.pathname} answered ${res.status}`);
    return res.json();
  }

  /**
   * The issuer's metadata: OpenID Connect discovery first, then RFC 8414; null when the document
   * found names another issuer (oauth4webapi compares them as URLs; callers compare the strings,
   * as the `iss` of every token will be).
   */
  private async discover(): Promise<AuthorizationServer | null> {
    const oauth = await loadOauth();
    const issuer = new URL(this.issuer);
    const read = async (algorithm: 'oidc' | 'oauth2') => {
      const response = await oauth.discoveryRequest(issuer, {
        algorithm,
        signal: AbortSignal.timeout(this.timeoutMs),
        // In the clear only where secureUrl allows it: an issuer on loopback (development, tests).
        [oauth.allowInsecureRequests]: issuer.protocol === 'http:' && isLoopback(issuer),
      });
      return oauth.processDiscoveryResponse(issuer, response);
    };
    const otherIssuer = (err: unknown) =>
      err instanceof oauth.OperationProcessingError && err.code === oauth.JSON_ATTRIBUTE_COMPARISON;
    try {
      return await read('oidc');
    } catch (first) {
      if (otherIssuer(first)) return null;
      try {
        return await read('oauth2');
      } catch (second) {
        if (otherIssuer(second)) return null;
        throw first;
      }
    }
  }

  async check(): Promise<IssuerCheckResult> {
    const started = this.options.clock.now();
    const wall = performance.now();
    const checks: IssuerCheck[] = [];
    const add = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
    await this.runChecks(add);
    const ok = checks.length > 0 && checks.every((c) => c.ok);
    return { checkedAt: started, ok, durationMs: Math.round(performance.now() - wall), checks };
  }

  private async runChecks(add: (name: string, ok: boolean, detail: string) => void): Promise<void> {
    if (!secureUrl(this.issuer))
      return add('issuer_url', false, 'the issuer must be an https URL (http only on loopback)');
    let discovery: AuthorizationServer | null;
    try {
      discovery = await this.discover();
      add('discovery', true, 'discovery document fetched');
    } catch (err) {
      return add('discovery', false, `no discovery document: ${discoveryFailure(err)}`);
    }
    if (discovery?.issuer !== this.issuer) return add('issuer', false, 'the document names another issuer');
    add('issuer', true, 'issuer matches');
    add(
      'token_endpoint',
      secureUrl(discovery.token_endpoint) !== null,
      secureUrl(discovery.token_endpoint) ? 'token endpoint published' : 'no usable token_endpoint',
    );
    const pkce =
      Array.isArray(discovery.code_challenge_methods_supported) &&
      discovery.code_challenge_methods_supported.includes('S256');
    add(
      'pkce_s256',
      pkce,
      pkce ? 'PKCE S256 supported' : 'code_challenge_methods_supported does not list S256 (OAuth 2.1 needs it)',
    );
    const jwksUri = secureUrl(discovery.jwks_uri);
    if (!jwksUri) return add('jwks', false, 'no usable jwks_uri');
    let keys: JWK[];
    try {
      const jwks = (await this.fetchJson(jwksUri)) as { keys?: unknown };
      keys = Array.isArray(jwks.keys) ? (jwks.keys as JWK[]) : [];
      add('jwks', keys.length > 0, keys.length > 0 ? `${keys.length} key(s) published` : 'the JWKS has no keys');
    } catch (err) {
      return add('jwks', false, `JWKS not reachable: ${err instanceof Error ? err.message : String(err)}`);
    }
    const secret = keys.some((key) => key.kty === 'oct');
    const usable = [
      ...new Set(
        keys
          .filter((key) => key.use === undefined || key.use === 'sig')
          .map(algorithmOf)
          .filter((alg): alg is string => alg !== null && (ACCEPTED_ALGORITHMS as readonly string[]).includes(alg)),
      ),
    ];
    add(
      'algorithms',
      usable.length > 0 && !secret,
      secret
        ? 'the JWKS publishes a shared-secret (oct) key'
        : usable.length > 0
          ? `accepted: ${usable.join(', ')}`
          : 'no signing key with an accepted asymmetric algorithm',
    );
  }
}
