import { EarlyAccessObjectSchema } from '../../protocols/account.js';
import type { AppDeps } from '../app-deps.js';
import { bearerSecret } from '../perimeter.js';
import { json, type RouteDef } from '../route.js';
import { earlyAccessView } from '../views/account-security-view.js';

/**
 * GET /v1/early-access (public): whether the work-in-progress products are restricted and which
 * of them this visitor may see. Anonymous visitors get `early_access: false`; a browser session
 * token (or an API token) is read when sent (401 when it is not valid). Access comes from an
 * operator's grant or a live plan that includes it.
 */
export function earlyAccessRoutes({ auth, accounts }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/early-access',
      auth: 'public',
      schema: { response: EarlyAccessObjectSchema },
      handler(ctx) {
        const header = ctx.ex.headers.authorization;
        // Anonymous is fine; a credential, when sent (the browser's session token, or an API token), must be valid.
        const account = header === undefined ? null : auth.bearer(bearerSecret(header)).account;
        return json(earlyAccessView(accounts.earlyAccess.status(account)));
      },
    },
  ];
}
