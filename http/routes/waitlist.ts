import {
  WaitlistCodeSentObjectSchema,
  WaitlistRequestSchema,
  WaitlistSignupObjectSchema,
  WaitlistVerifySchema,
} from '../../protocols/waitlist.js';
import type { AppDeps } from '../app-deps.js';
import { clientAddressOf } from '../perimeter.js';
import { json, type RouteDef } from '../route.js';
import { codeSentView, signupView } from '../views/account-waitlist-view.js';

/** The public waitlist of the work-in-progress products: a 6-digit code, then its verification. */
export function waitlistRoutes({ waitlist }: AppDeps): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/v1/waitlist/request',
      auth: 'public',
      schema: { body: WaitlistRequestSchema, response: WaitlistCodeSentObjectSchema, status: 202 },
      async handler(ctx) {
        const body = await ctx.json(WaitlistRequestSchema);
        return json(codeSentView(await waitlist.request(body, clientAddressOf(ctx.ex))), 202);
      },
    },
    {
      method: 'POST',
      path: '/v1/waitlist/verify',
      auth: 'public',
      schema: { body: WaitlistVerifySchema, response: WaitlistSignupObjectSchema },
      async handler(ctx) {
        const body = await ctx.json(WaitlistVerifySchema);
        return json(signupView(await waitlist.verify(body)));
      },
    },
  ];
}
