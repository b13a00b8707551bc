import type { AppDeps } from '../app.js';
import { bearerSecret } from '../perimeter.js';
import { json, type RouteDef } from '../route.js';
import { earlyAccessView } from '../views/account-security-view.js';

/**
 * GET /v1/early-access (public): whether the work-in-progress products are restricted and which
 * of them this visitor may see. Anonymous visitors get `early_access: false`; a browser session
 * token is read when sent (401 when it is not valid). Access comes from an operator's grant or a
 * live plan that includes it.
 */
export function earlyAccessRoutes({ auth, accounts }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/early-access',
      auth: 'public',
      handler(ctx) {
        const header = ctx.ex.headers.authorization;
        // Anonymous is fine; a session token, when sent, must be a valid one.
        const account = header === undefined ? null : auth.sessionToken(bearerSecret(header)).account;
        return json(earlyAccessView(accounts.earlyAccess.status(account)));
      },
    },
  ];
}
