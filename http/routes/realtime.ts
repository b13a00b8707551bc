import { z } from 'zod';
import { ApiError } from '../../protocols/errors.js';
import { RealtimeTicketObjectSchema, type RealtimeTicketObject } from '../../protocols/realtime.js';
import type { AppDeps } from '../app-deps.js';
import { accountOf, json, type RouteDef } from '../route.js';

/** POST /v1/realtime/ticket, and a plain GET of the socket path (which needs an upgrade). */
export function realtimeRoutes({ realtime }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/realtime/ticket',
      auth: 'token',
      schema: { response: RealtimeTicketObjectSchema },
      handler(ctx) {
        const account = accountOf(ctx.principal);
        // Refused now rather than at the upgrade, where the client sees less of the reason.
        realtime.calls.assertCanOpen(account.id);
        const { ticket, expiresAt } = realtime.tickets.issue({
          accountId: account.id,
          tokenId: ctx.principal.token!.id,
        });
        const body: RealtimeTicketObject = {
          object: 'realtime.ticket',
          ticket,
          expires_at: Math.floor(expiresAt / 1000),
        };
        return json(body);
      },
    },
    {
      method: 'GET',
      path: '/v1/realtime',
      auth: 'public',
      // The socket itself: an Upgrade with ?ticket= switches protocols; a plain GET is a 426.
      schema: {
        summary: 'The realtime WebSocket (Upgrade with ?ticket= from POST /v1/realtime/ticket)',
        query: z.object({ ticket: z.string() }),
        status: 101,
      },
      handler() {
        throw new ApiError(
          'upgrade_required',
          'This is a WebSocket endpoint: connect with an Upgrade request and ?ticket=<ticket> from POST /v1/realtime/ticket.',
          { headers: { upgrade: 'websocket' } },
        );
      },
    },
  ];
}
