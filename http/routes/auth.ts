import { accountView, LoginRequestSchema, RegisterRequestSchema } from '../../protocols/account.js';
import { ApiError } from '../../protocols/errors.js';
import { verifyPassword } from '../../runtime/accounts/passwords.js';
import type { AppDeps } from '../app.js';
import { json, type RouteDef } from '../route.js';

/** The session object returned by register, login and password change. */
export function sessionView(token: string, expiresAt: number): Record<string, unknown> {
  return { object: 'session', token, token_type: 'session', expires_at: Math.floor(expiresAt / 1000) };
}

/** Register, login, logout. */
export function authRoutes({ services }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/auth/register',
      auth: 'public',
      async handler(ctx) {
        const body = await ctx.json(RegisterRequestSchema);
        const created = await services.createAccount({ email: body.email, password: body.password, creditMicros: 0, tokenLabel: null });
        if (!created) throw new ApiError('email_taken', 'An account with this e-mail already exists; log in instead.', { param: 'email', headers: { 'x-should-retry': 'false' } });
        const session = await services.sessions.create(created.account.id, created.account.sessionEpoch);
        return json({ ...sessionView(session.token, session.record.expiresAt), account: accountView(created.account, 0) }, 201);
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/login',
      auth: 'public',
      async handler(ctx) {
        const body = await ctx.json(LoginRequestSchema);
        const account = services.accounts.findByEmail(body.email);
        // verifyPassword does the same work for an unknown e-mail, so timing says nothing either.
        const ok = await verifyPassword(body.password, account?.passwordHash ?? null);
        if (!account || !ok) throw new ApiError('invalid_credentials', 'Invalid e-mail or password.');
        if (account.status !== 'active') throw new ApiError('account_suspended', 'This account is suspended.');
        const session = await services.sessions.create(account.id, account.sessionEpoch);
        return json({ ...sessionView(session.token, session.record.expiresAt), account: accountView(account, services.ledger.state(account.id).held) });
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/logout',
      auth: 'session',
      async handler(ctx) {
        await services.sessions.revoke(ctx.principal.sessionToken!);
        return json({ object: 'session', revoked: true });
      },
    },
  ];
}
