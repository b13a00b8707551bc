import { z } from 'zod';
import { accountView, ChangePasswordRequestSchema } from '../../protocols/account.js';
import { ApiError } from '../../protocols/errors.js';
import { microsToUsd } from '../../protocols/money.js';
import { hashPassword, verifyPassword } from '../../runtime/accounts/passwords.js';
import type { LedgerEntry } from '../../runtime/accounts/ledger.js';
import type { AppDeps } from '../app.js';
import { accountOf, json, type RouteDef } from '../route.js';
import { sessionView } from './auth.js';

const UsageQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) });

function entryView(entry: LedgerEntry): Record<string, unknown> {
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
    created_at: Math.floor(entry.createdAt / 1000),
  };
}

/** The account overview, password change and account usage. */
export function accountRoutes({ services }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/account',
      auth: 'account',
      handler(ctx) {
        const account = accountOf(ctx.principal);
        return json(accountView(services.accounts.get(account.id) ?? account, services.ledger.state(account.id).held));
      },
    },
    {
      method: 'POST',
      path: '/v1/account/password',
      auth: 'session',
      async handler(ctx) {
        const body = await ctx.json(ChangePasswordRequestSchema);
        const account = accountOf(ctx.principal);
        if (!(await verifyPassword(body.current_password, account.passwordHash))) {
          throw new ApiError('invalid_credentials', 'The current password is wrong.', { param: 'current_password' });
        }
        const passwordHash = await hashPassword(body.new_password);
        // A new epoch revokes every session at once; the caller moves onto a fresh one.
        const updated = await services.accounts.update(account.id, (record) => ({ ...record, passwordHash, sessionEpoch: record.sessionEpoch + 1 }));
        if (!updated) throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
        const session = await services.sessions.create(updated.id, updated.sessionEpoch);
        return json(sessionView(session.token, session.record.expiresAt));
      },
    },
    {
      method: 'GET',
      path: '/v1/account/usage',
      auth: 'account',
      handler(ctx) {
        const { limit } = ctx.query(UsageQuerySchema);
        const account = accountOf(ctx.principal);
        const state = services.ledger.state(account.id);
        const totals = services.ledger.totals(account.id, 30);
        return json({
          object: 'account.usage',
          account_id: account.id,
          balance_usd: microsToUsd(state.balance),
          held_usd: microsToUsd(state.held),
          recent: services.ledger.recent(account.id, limit).map(entryView),
          last_30_days: {
            topups_usd: microsToUsd(totals.topups),
            charges_usd: microsToUsd(totals.charges),
            requests: totals.requests,
            prompt_tokens: totals.promptTokens,
            completion_tokens: totals.completionTokens,
            total_tokens: totals.promptTokens + totals.completionTokens,
          },
        });
      },
    },
  ];
}
