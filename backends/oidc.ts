/** What a verified OAuth access token says: who, for which client, with which scopes, until when. */
export interface AccessTokenClaims {
  /** `sub`; absent on client-credentials tokens. */
  subject: string | null;
  /** `client_id` (RFC 9068) or `azp`. */
  clientId: string | null;
  /** From `scope` (space-separated) or `scp`. */
  scopes: string[];
  /** Epoch milliseconds. */
  expiresAt: number;
  /** Every claim, for the account mapping. */
  claims: Readonly<Record<string, unknown>>;
}

/** Why an access token was refused: callers answer 401 for all but `unavailable` (the issuer could not be reached). */
export type AccessTokenFailure =
  'malformed' | 'signature' | 'algorithm' | 'issuer' | 'audience' | 'expired' | 'not_yet_valid' | 'unavailable';

/** A refused access token. The message names the failed check, never the token. */
export class AccessTokenError extends Error {
  override name = 'AccessTokenError';
  constructor(
    readonly failure: AccessTokenFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** One step of the live issuer check. */
export interface IssuerCheck {
  name: string;
  ok: boolean;
  detail: string;
}

/** The live issuer check: discovery document, issuer, JWKS, algorithms, PKCE. */
export interface IssuerCheckResult {
  checkedAt: number;
  ok: boolean;
  durationMs: number;
  checks: IssuerCheck[];
}

/**
 * An OAuth 2.1 / OpenID Connect authorization server whose access tokens this service accepts:
 * its tokens verified against its published keys, and a live conformance check of it.
 */
export interface OidcIssuer {
  readonly issuer: string;
  readonly audience: string;
  /** Verifies a JWT access token: signature against the issuer's JWKS, `iss`, `aud`, `exp`, `nbf`; throws {@link AccessTokenError}. */
  verify(token: string): Promise<AccessTokenClaims>;
  /** Checks the issuer live: discovery document, matching issuer, reachable JWKS with usable keys, supported algorithms, PKCE S256. */
  check(): Promise<IssuerCheckResult>;
}
