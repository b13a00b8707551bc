import { ApiError } from '../../protocols/errors.js';
import type { AppDeps } from '../app.js';
import { accountOf, json, type RouteDef } from '../route.js';

/** POST /v1/realtime/ticket, and a plain GET of the socket path (which needs an upgrade). */
export function realtimeRoutes({ realtime }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/realtime/ticket',
      auth: 'token',
      handler(ctx) {
        const account = accountOf(ctx.principal);
        // Refused now rather than at the upgrade, where the client sees less of the reason.
        realtime.calls.assertCanOpen(account.id);
        const { ticket, expiresAt } = realtime.tickets.issue({ accountId: account.id, tokenId: ctx.principal.token!.id });
        return json({ object: 'realtime.ticket', ticket, expires_at: Math.floor(expiresAt / 1000) });
      },
    },
    {
      method: 'GET',
      path: '/v1/realtime',
      auth: 'public',
      handler() {
        throw new ApiError('upgrade_required', 'This is a WebSocket endpoint: connect with an Upgrade request and ?ticket=<ticket> from POST /v1/realtime/ticket.', { headers: { upgrade: 'websocket' } });
      },
    },
  ];
}
