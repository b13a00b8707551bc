import {
  LoginRequestSchema,
  RegisterRequestSchema,
  SessionRevokedObjectSchema,
  SignedInObjectSchema,
} from '../../protocols/account.js';
import type { AppDeps } from '../app-deps.js';
import { clientAddressOf } from '../perimeter.js';
import { json, type RouteDef } from '../route.js';
import { sessionRevokedView, signedInView } from '../views/account-view.js';

/** Register, login (a second step with `totp_code` when two-factor is on), logout. */
export function authRoutes({ accounts }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/auth/register',
      auth: 'public',
      schema: { body: RegisterRequestSchema, response: SignedInObjectSchema, status: 201 },
      async handler(ctx) {
        const body = await ctx.json(RegisterRequestSchema);
        return json(signedInView(await accounts.login.register(body)), 201);
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/login',
      auth: 'public',
      schema: { body: LoginRequestSchema, response: SignedInObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(LoginRequestSchema);
        return json(signedInView(await accounts.login.login(body, clientAddressOf(ctx.ex))));
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/logout',
      auth: 'session',
      schema: { response: SessionRevokedObjectSchema },
      async handler(ctx) {
        await accounts.login.logout(ctx.principal.sessionToken!);
        return json(sessionRevokedView());
      },
    },
  ];
}
