import {
  EmailVerificationConfirmSchema,
  EmailVerificationObjectSchema,
  EmailVerificationRequestedObjectSchema,
  EmptyRequestSchema,
  PasswordResetObjectSchema,
  PasswordResetRequestedObjectSchema,
  TwoFactorObjectSchema,
  TwoFactorSetupObjectSchema,
  PasswordResetConfirmSchema,
  PasswordResetRequestSchema,
  TwoFactorDisableSchema,
  TwoFactorEnableSchema,
} from '../../protocols/account.js';
import type { AppDeps } from '../app-deps.js';
import { clientAddressOf } from '../perimeter.js';
import { accountOf, json, type RequestContext, type RouteDef } from '../route.js';
import {
  emailVerificationRequestedView,
  emailVerificationView,
  passwordResetRequestedView,
  passwordResetView,
  twoFactorSetupView,
  twoFactorView,
} from '../views/account-security-view.js';

/** Password reset, e-mail verification and two-factor authentication of the account. */
export function accountSecurityRoutes({ accounts }: AppDeps): RouteDef[] {
  const me = (ctx: RequestContext) => accountOf(ctx.principal).id;
  return [
    {
      method: 'POST',
      path: '/v1/account/password-reset/request',
      auth: 'public',
      schema: { body: PasswordResetRequestSchema, response: PasswordResetRequestedObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(PasswordResetRequestSchema);
        accounts.passwordReset.request(body.email, clientAddressOf(ctx.ex));
        return json(passwordResetRequestedView());
      },
    },
    {
      method: 'POST',
      path: '/v1/account/password-reset/confirm',
      auth: 'public',
      schema: { body: PasswordResetConfirmSchema, response: PasswordResetObjectSchema },
      async handler(ctx) {
        await accounts.passwordReset.confirm(await ctx.json(PasswordResetConfirmSchema));
        return json(passwordResetView());
      },
    },
    {
      method: 'POST',
      path: '/v1/account/email-verification/request',
      auth: 'session',
      schema: { body: EmptyRequestSchema, bodyOptional: true, response: EmailVerificationRequestedObjectSchema },
      async handler(ctx) {
        await ctx.optionalJson(EmptyRequestSchema);
        return json(emailVerificationRequestedView(await accounts.emailVerification.request(me(ctx))));
      },
    },
    {
      method: 'POST',
      path: '/v1/account/email-verification/confirm',
      auth: 'public',
      schema: { body: EmailVerificationConfirmSchema, response: EmailVerificationObjectSchema },
      async handler(ctx) {
        const { token } = await ctx.json(EmailVerificationConfirmSchema);
        return json(emailVerificationView(await accounts.emailVerification.confirm(token)));
      },
    },
    {
      method: 'POST',
      path: '/v1/account/2fa/setup',
      auth: 'session',
      schema: { body: EmptyRequestSchema, bodyOptional: true, response: TwoFactorSetupObjectSchema },
      async handler(ctx) {
        await ctx.optionalJson(EmptyRequestSchema);
        return json(twoFactorSetupView(await accounts.twoFactor.setup(me(ctx))));
      },
    },
    {
      method: 'POST',
      path: '/v1/account/2fa/enable',
      auth: 'session',
      schema: { body: TwoFactorEnableSchema, response: TwoFactorObjectSchema },
      async handler(ctx) {
        const { code } = await ctx.json(TwoFactorEnableSchema);
        return json(twoFactorView(await accounts.twoFactor.enable(me(ctx), code)));
      },
    },
    {
      method: 'POST',
      path: '/v1/account/2fa/disable',
      auth: 'session',
      schema: { body: TwoFactorDisableSchema, response: TwoFactorObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(TwoFactorDisableSchema);
        return json(twoFactorView(await accounts.twoFactor.disable(me(ctx), body)));
      },
    },
  ];
}
