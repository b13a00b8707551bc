import type { AccountOverview, AccountUsage } from '../../actors/accounts/account-service.js';
import type { KeyUsageRecord } from '../../actors/accounts/key-usage.js';
import type { LoginSession, SignedIn } from '../../actors/accounts/login-service.js';
import type { CreatedToken } from '../../actors/accounts/token-service.js';
import type { TokenRecord } from '../../actors/accounts/token-repo.js';
import type { LedgerEntry } from '../../actors/billing/ledger-types.js';
import type {
  AccountObject,
  AccountUsageObject,
  ApiTokenDeletedObject,
  ApiTokenListObject,
  ApiTokenObject,
  CreatedApiTokenObject,
  KeyUsageObject,
  LoginSessionObject,
  SessionRevokedObject,
  SignedInObject,
} from '../../protocols/account.js';
import { microsToUsd } from '../../protocols/money.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** An account on the wire, with what is held for requests in flight. */
export function accountView({ account, held, twoFactorEnabled, tier }: AccountOverview): AccountObject {
  return {
    object: 'account',
    id: account.id,
    email: account.email,
    status: account.status,
    balance_usd: microsToUsd(account.balance),
    held_usd: microsToUsd(held),
    available_usd: microsToUsd(account.balance - held),
    email_verified: Boolean(account.emailVerifiedAt),
    two_factor_enabled: twoFactorEnabled,
    tier: tier.id,
    created_at: seconds(account.createdAt),
  };
}

/** A login session on the wire; the only time its token is shown. */
export function loginSessionView(session: LoginSession): LoginSessionObject {
  return { object: 'session', token: session.token, token_type: 'session', expires_at: seconds(session.expiresAt) };
}

/** A sign-in (register, login): the session and the account. */
export function signedInView(signedIn: SignedIn): SignedInObject {
  return { ...loginSessionView(signedIn.session), account: accountView(signedIn) };
}

/** The answer to a logout. */
export function sessionRevokedView(): SessionRevokedObject {
  return { object: 'session', revoked: true };
}

/** A token as listed: never its value, only a masked form. */
export function tokenView(token: TokenRecord): ApiTokenObject {
  return {
    object: 'api_token',
    id: token.id,
    label: token.label,
    masked_token: `sk-svc-…${token.lastFour}`,
    requests_per_minute: token.requestsPerMinute,
    enabled: token.enabled,
    created_at: seconds(token.createdAt),
  };
}

/** The account's tokens. */
export function tokenListView(tokens: readonly TokenRecord[]): ApiTokenListObject {
  return { object: 'list', data: tokens.map(tokenView) };
}

/** A token just created: the value is shown here once; only its hash is stored. */
export function createdTokenView(created: CreatedToken): CreatedApiTokenObject {
  return { ...tokenView(created.record), token: created.value };
}

/** The answer to a token deletion. */
export function tokenDeletedView(id: string): ApiTokenDeletedObject {
  return { id, object: 'api_token', deleted: true };
}

function ledgerEntryView(entry: LedgerEntry): AccountUsageObject['recent'][number] {
  return {
    object: 'ledger_entry',
    id: entry.id,
    type: entry.type,
    amount_usd: microsToUsd(entry.amount),
    balance_after_usd: microsToUsd(entry.balanceAfter),
    description: entry.description,
    request_id: entry.requestId,
    token_id: entry.tokenId,
    model: entry.model,
    prompt_tokens: entry.promptTokens,
    completion_tokens: entry.completionTokens,
    created_at: seconds(entry.createdAt),
  };
}

/** The account's money: balance, holds, newest entries and the last 30 days. */
export function accountUsageView(usage: AccountUsage): AccountUsageObject {
  const totals = usage.last30Days;
  return {
    object: 'account.usage',
    account_id: usage.accountId,
    balance_usd: microsToUsd(usage.balance),
    held_usd: microsToUsd(usage.held),
    recent: usage.recent.map(ledgerEntryView),
    last_30_days: {
      topups_usd: microsToUsd(totals.topups),
      charges_usd: microsToUsd(totals.charges),
      requests: totals.requests,
      prompt_tokens: totals.promptTokens,
      completion_tokens: totals.completionTokens,
      total_tokens: totals.promptTokens + totals.completionTokens,
    },
  };
}

/** What one API token has used. */
export function keyUsageView(tokenId: string, usage: KeyUsageRecord): KeyUsageObject {
  return {
    object: 'usage',
    token_id: tokenId,
    requests: usage.requests,
    denied: usage.denied,
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    cost_usd: microsToUsd(usage.cost),
    last_used_at: usage.lastUsedAt === null ? null : seconds(usage.lastUsedAt),
  };
}
