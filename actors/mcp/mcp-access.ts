import { AccessTokenError, type IssuerCheckResult, type OidcIssuer } from '../../backends/oidc.js';
import { ApiError } from '../../protocols/errors.js';
import {
  MCP_SCOPES,
  type McpScope,
  type OAuthStatusObject,
  type ProtectedResourceMetadata,
} from '../../protocols/mcp.js';
import type { Clock, TimerHandle } from '../../runtime/clock.js';
import type { Logger } from '../../runtime/logger.js';
import type { AccountRecord } from '../accounts/account-repo.js';
import { isApiTokenValue, type Authenticator } from '../accounts/authenticator.js';

/** Who calls a product tool: the account, how they proved it, and what they may do. */
export interface McpCaller {
  account: AccountRecord;
  /** The API token (null for OAuth callers): what charges and rate limits count against. */
  tokenId: string | null;
  via: 'api_token' | 'oauth';
  /** An API token may do everything its account may; an OAuth token only what its scopes grant. */
  scopes: 'all' | ReadonlySet<string>;
  /** Identifies the caller across stateless requests (the API token's id or the OAuth client and subject); no secret. */
  key: string;
}

/** What the access checks run on. */
export interface McpAccessOptions {
  auth: Authenticator;
  accounts: { get(id: string): AccountRecord | undefined };
  /** The OAuth issuer, when SVC_OIDC_ISSUER and SVC_OIDC_AUDIENCE are set. */
  issuer: OidcIssuer | null;
  /** The access-token claim that holds the account id. */
  accountClaim: string;
  clock: Clock;
  logger: Logger;
  /** How often a passing issuer is checked again. */
  checkIntervalMs: number;
  /** How soon a failing issuer is checked again. */
  retryMs: number;
}

/** Whether a caller may use a tool that needs `scope` (null: no scope needed). */
export function hasScope(caller: McpCaller, scope: McpScope | null): boolean {
  return scope === null || caller.scopes === 'all' || caller.scopes.has(scope);
}

const bearerOf = (header: string | undefined): string | null => {
  if (!header) return null;
  const match = /^Bearer[ \t]+([\x21-\x7e]{1,4096})[ \t]*$/i.exec(header);
  return match ? match[1]! : '';
};

/** A header value, with `"` and `\` escaped as RFC 9110 quoted-string needs. */
const quote = (value: string) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/**
 * Who may use the product tool endpoint (`/mcp`) and how it says so: an API token through the one
 * authentication path, or, with an OIDC issuer configured, an OAuth 2.1 access token verified
 * against the issuer's keys, whose scopes limit the tools. The issuer is checked live at start and
 * then periodically (discovery document, JWKS, algorithms, PKCE); the RFC 9728 metadata is
 * published only while the last check passed.
 */
export class McpAccess {
  private lastCheck: IssuerCheckResult | null = null;
  private running: Promise<IssuerCheckResult> | null = null;
  private timer: TimerHandle | null = null;
  private nextCheckAt: number | null = null;
  private stopped = false;

  constructor(private readonly options: McpAccessOptions) {}

  /** Whether OAuth access tokens are accepted at all (an issuer is configured). */
  get oauthConfigured(): boolean {
    return this.options.issuer !== null;
  }

  /** Starts the live issuer checks (the first now); a no-op without an issuer. */
  start(): void {
    if (this.options.issuer) void this.checkNow();
  }

  /** Stops the periodic checks. */
  stop(): void {
    this.stopped = true;
    if (this.timer) this.options.clock.clearTimer(this.timer);
    this.timer = null;
  }

  /** Runs the issuer check now (or joins the one running) and schedules the next. */
  checkNow(): Promise<IssuerCheckResult | null> {
    const { issuer, logger, clock } = this.options;
    if (!issuer) return Promise.resolve(null);
    this.running ??= issuer
      .check()
      .catch((err: unknown): IssuerCheckResult => ({
        checkedAt: clock.now(),
        ok: false,
        durationMs: 0,
        checks: [{ name: 'check', ok: false, detail: err instanceof Error ? err.message : String(err) }],
      }))
      .then((result) => {
        if (result.ok !== this.lastCheck?.ok)
          logger[result.ok ? 'info' : 'warn']('oauth issuer check', {
            issuer: issuer.issuer,
            ok: result.ok,
            failed: result.checks.filter((c) => !c.ok).map((c) => c.name),
          });
        this.lastCheck = result;
        return result;
      })
      .finally(() => {
        this.running = null;
        this.schedule();
      });
    return this.running;
  }

  private schedule(): void {
    const { clock } = this.options;
    if (this.stopped) return;
    if (this.timer) clock.clearTimer(this.timer);
    const delay = this.lastCheck?.ok ? this.options.checkIntervalMs : this.options.retryMs;
    this.nextCheckAt = clock.now() + delay;
    this.timer = clock.setTimer(() => void this.checkNow(), delay);
  }

  /** The last check's result, waiting for the first one when none has finished yet. */
  private async settledCheck(): Promise<IssuerCheckResult | null> {
    if (!this.options.issuer) return null;
    if (this.lastCheck) return this.lastCheck;
    return this.running ?? this.checkNow();
  }

  /** Whether the RFC 9728 metadata is published: an issuer is configured and its last live check passed. */
  async published(): Promise<boolean> {
    return (await this.settledCheck())?.ok === true;
  }

  /** GET /mcp/oauth/status: configured or not, reachable, the last check and its result; no secret. */
  async status(resource: string): Promise<OAuthStatusObject> {
    const { issuer } = this.options;
    const check = await this.settledCheck();
    const discovery = check?.checks.find((c) => c.name === 'discovery');
    return {
      object: 'mcp.oauth_status',
      configured: issuer !== null,
      issuer: issuer?.issuer ?? null,
      audience: issuer?.audience ?? null,
      resource: issuer ? resource : null,
      scopes_supported: [...MCP_SCOPES],
      issuer_reachable: check ? (discovery?.ok ?? false) : null,
      metadata_published: check?.ok === true,
      api_tokens_accepted: true,
      last_check: check
        ? {
            checked_at: Math.floor(check.checkedAt / 1000),
            ok: check.ok,
            duration_ms: check.durationMs,
            checks: check.checks,
          }
        : null,
      next_check_at: issuer && this.nextCheckAt !== null ? Math.floor(this.nextCheckAt / 1000) : null,
    };
  }

  /** The RFC 9728 metadata of `resource`; null (a 404) unless the issuer's last live check passed. */
  async metadata(resource: string, documentation: string): Promise<ProtectedResourceMetadata | null> {
    const { issuer } = this.options;
    if (!issuer || !(await this.published())) return null;
    return {
      resource,
      authorization_servers: [issuer.issuer],
      scopes_supported: [...MCP_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'svc product tools (MCP)',
      resource_documentation: documentation,
    };
  }

  /**
   * The `WWW-Authenticate` value of a refusal: the resource metadata URL while it is published,
   * and the OAuth error (`invalid_token`, `insufficient_scope` with the scope needed) when given.
   */
  challenge(
    metadataUrl: string,
    error?: { code: 'invalid_token' | 'insufficient_scope'; description: string; scope?: string },
  ): string {
    const parts: string[] = [];
    if (this.oauthConfigured && this.lastCheck?.ok) parts.push(`resource_metadata=${quote(metadataUrl)}`);
    if (error) {
      parts.push(`error=${quote(error.code)}`, `error_description=${quote(error.description)}`);
      if (error.scope) parts.push(`scope=${quote(error.scope)}`);
    } else if (this.oauthConfigured) {
      parts.push(`scope=${quote(MCP_SCOPES.join(' '))}`);
    }
    return parts.length > 0 ? `Bearer ${parts.join(', ')}` : 'Bearer realm="svc"';
  }

  /**
   * The caller of an `Authorization` header: an API token (all its account may do, checked and
   * rate-limited by the one authentication path) or, with OAuth on, an access token whose
   * `accountClaim` names an active account. Throws 401 in the envelope with `WWW-Authenticate`.
   */
  async authenticate(authorization: string | undefined, metadataUrl: string): Promise<McpCaller> {
    const secret = bearerOf(authorization);
    if (secret === null) {
      throw new ApiError(
        'missing_authorization',
        'Missing Authorization header: send "Authorization: Bearer <API token or OAuth access token>".',
        { headers: { 'www-authenticate': this.challenge(metadataUrl) } },
      );
    }
    if (secret === '')
      throw new ApiError('invalid_api_key', 'Malformed Authorization header: expected "Bearer <token>".', {
        headers: { 'www-authenticate': this.challenge(metadataUrl) },
      });
    if (isApiTokenValue(secret)) {
      const caller = this.options.auth.apiToken(secret);
      return {
        account: caller.account,
        tokenId: caller.token.id,
        via: 'api_token',
        scopes: 'all',
        key: `token:${caller.token.id}`,
      };
    }
    const { issuer } = this.options;
    if (!issuer)
      throw new ApiError(
        'invalid_api_key',
        'Invalid API token (OAuth access tokens are not accepted: no issuer is configured).',
        { headers: { 'www-authenticate': this.challenge(metadataUrl) } },
      );
    return this.oauthCaller(issuer, secret, metadataUrl);
  }

  private async oauthCaller(issuer: OidcIssuer, token: string, metadataUrl: string): Promise<McpCaller> {
    const refuse = (description: string) =>
      new ApiError('invalid_access_token', `Invalid access token: ${description}.`, {
        headers: { 'www-authenticate': this.challenge(metadataUrl, { code: 'invalid_token', description }) },
      });
    let claims;
    try {
      claims = await issuer.verify(token);
    } catch (err) {
      if (err instanceof AccessTokenError && err.failure === 'unavailable') {
        this.options.logger.warn('oauth issuer unavailable for a token check', { issuer: issuer.issuer, err });
        throw new ApiError(
          'upstream_unavailable',
          'The OAuth issuer cannot be reached to verify the access token; retry later.',
          { retryAfterMs: 5_000 },
        );
      }
      throw refuse(err instanceof AccessTokenError ? err.message : 'the token could not be verified');
    }
    const accountId = claims.claims[this.options.accountClaim];
    const account = typeof accountId === 'string' ? this.options.accounts.get(accountId) : undefined;
    if (!account) throw refuse(`its ${this.options.accountClaim} claim names no account of this service`);
    if (account.status !== 'active') throw new ApiError('account_suspended', 'This account is suspended.');
    return {
      account,
      tokenId: null,
      via: 'oauth',
      scopes: new Set(claims.scopes),
      key: `oauth:${claims.clientId ?? '-'}:${claims.subject ?? '-'}:${account.id}`,
    };
  }
}
