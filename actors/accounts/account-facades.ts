import type { Mailer } from '../../backends/mailer.js';
import type { Clock } from '../../runtime/clock.js';
import type { WaitlistRepo } from '../waitlist/waitlist-repo.js';
import { AccountService } from './account-service.js';
import type { AccountServices } from './account-services.js';
import { AdminService } from './admin-service.js';
import type { Authenticator } from './authenticator.js';
import type { BackgroundTasks } from './background-tasks.js';
import type { EarlyAccess } from './early-access.js';
import { EmailVerificationService } from './email-verification-service.js';
import { LinkTokens } from './link-tokens.js';
import { LoginService } from './login-service.js';
import { PasswordResetService } from './password-reset-service.js';
import type { SecondFactor } from './second-factor.js';
import { TokenService } from './token-service.js';
import { TwoFactorService } from './two-factor-service.js';

/** The accounts feature as routes, the admin CLI and tools call it, one facade per concern. */
export interface AccountFacades {
  /** Register, log in (two steps with two-factor on), log out, change the password. */
  login: LoginService;
  /** The caller's overview, tier, money movements and token usage. */
  account: AccountService;
  /** The caller's API tokens. */
  tokens: TokenService;
  /** The operator's side: create, fund, suspend, tier, early-access grants, the waitlist. */
  admin: AdminService;
  /** Password reset by mailed single-use link. */
  passwordReset: PasswordResetService;
  /** E-mail verification by mailed single-use link. */
  emailVerification: EmailVerificationService;
  /** Two-factor setup, enable and disable. */
  twoFactor: TwoFactorService;
  /** Who may see the work-in-progress products. */
  earlyAccess: EarlyAccess;
  /** Mail deliveries in flight (tests and shutdown wait on them). */
  background: BackgroundTasks;
}

/** What the account facades are built from, beside the account services. */
export interface AccountFacadeDeps {
  auth: Authenticator;
  secondFactor: SecondFactor;
  mailer: Mailer;
  background: BackgroundTasks;
  waitlist: WaitlistRepo;
  clock: Clock;
  /** Base URL of the mailed links (`SVC_PUBLIC_URL`). */
  publicUrl: string;
  resetTtlMs: number;
  verificationTtlMs: number;
}

/** Builds every account facade over one set of account services. */
export function createAccountFacades(services: AccountServices, deps: AccountFacadeDeps): AccountFacades {
  const account = new AccountService(services, deps.secondFactor);
  const links = new LinkTokens(services.store, deps.clock);
  const mail = {
    services,
    links,
    mailer: deps.mailer,
    background: deps.background,
    clock: deps.clock,
    publicUrl: deps.publicUrl,
  };
  return {
    login: new LoginService(services, deps.auth, account),
    account,
    tokens: new TokenService(services),
    admin: new AdminService(services, { secondFactor: deps.secondFactor, waitlist: deps.waitlist }),
    passwordReset: new PasswordResetService({ ...mail, ttlMs: deps.resetTtlMs }),
    emailVerification: new EmailVerificationService({ ...mail, ttlMs: deps.verificationTtlMs }),
    twoFactor: new TwoFactorService(services, deps.secondFactor, deps.auth),
    earlyAccess: services.earlyAccess,
    background: deps.background,
  };
}
