import type { EarlyAccessGrant } from '../../actors/accounts/early-access.js';
import type { CodeSent } from '../../actors/waitlist/waitlist-service.js';
import type { WaitlistSignup } from '../../actors/waitlist/waitlist-repo.js';
import type { AdminEarlyAccessObject, AdminWaitlistObject } from '../../protocols/admin.js';
import type { WaitlistCodeSentObject, WaitlistSignupObject } from '../../protocols/waitlist.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A code sent (the same answer whether or not the contact signed up before). */
export function codeSentView(sent: CodeSent): WaitlistCodeSentObject {
  return { object: 'waitlist.code', product: sent.product, channel: sent.channel, expires_at: seconds(sent.expiresAt) };
}

/** A confirmed sign-up, its contact masked. */
export function signupView(signup: WaitlistSignup & { masked: string }): WaitlistSignupObject {
  return {
    object: 'waitlist.signup',
    product: signup.product,
    channel: signup.channel,
    contact: signup.masked,
    status: 'confirmed',
    confirmed_at: seconds(signup.confirmedAt),
  };
}

/** The waitlist as the operator sees it, contacts in full. */
export function adminWaitlistView(signups: readonly WaitlistSignup[]): AdminWaitlistObject {
  return {
    object: 'list',
    data: signups.map((s) => ({
      product: s.product,
      channel: s.channel,
      contact: s.contact,
      confirmed_at: seconds(s.confirmedAt),
    })),
  };
}

/** An account's early-access grants as the operator sees them. */
export function adminEarlyAccessView(accountId: string, grants: readonly EarlyAccessGrant[]): AdminEarlyAccessObject {
  return {
    object: 'early_access.grants',
    account_id: accountId,
    products: grants.map((g) => ({ product: g.product, granted_at: seconds(g.grantedAt), source: g.source })),
  };
}
