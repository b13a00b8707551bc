import { ApiError } from '../../protocols/errors.js';
import type { AppDeps } from '../app.js';
import { json, type RouteDef } from '../route.js';

/** The work-in-progress products behind early access. */
const EARLY_ACCESS_PRODUCTS = ['marketplace', 'ai_companies'] as const;

/**
 * GET /v1/early-access (public): whether the work-in-progress products are restricted and whether
 * this visitor may see them. Anonymous visitors get `early_access: false`; a browser session token
 * is read when sent (no account has early access until an operator grants it).
 */
export function earlyAccessRoutes({ services }: AppDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/early-access',
      auth: 'public',
      handler(ctx) {
        const header = ctx.ex.headers.authorization;
        let signedIn = false;
        if (header !== undefined) {
          const token = /^Bearer[ \t]+(\S+)\s*$/i.exec(header)?.[1];
          const session = token ? services.sessions.find(token) : undefined;
          const account = session && services.accounts.get(session.accountId);
          if (!account || account.sessionEpoch !== session.epoch) throw new ApiError('invalid_api_key', 'Invalid or expired session token.');
          signedIn = true;
        }
        return json({ object: 'early_access', restricted: true, early_access: false, signed_in: signedIn, products: EARLY_ACCESS_PRODUCTS });
      },
    },
  ];
}
