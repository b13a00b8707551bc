import type { MailMessage, Mailer } from '../../backends/mailer.js';
import type { Clock } from '../../runtime/clock.js';
import type { AccountServices } from './account-services.js';
import type { BackgroundTasks } from './background-tasks.js';
import type { LinkTokens } from './link-tokens.js';

/** What a flow that mails single-use links needs (password reset, e-mail verification). */
export interface MailedLinkDeps {
  services: AccountServices;
  links: LinkTokens;
  mailer: Mailer;
  background: BackgroundTasks;
  clock: Clock;
  /** Base of the mailed link (`SVC_PUBLIC_URL`). */
  publicUrl: string;
  /** How long a link stays valid. */
  ttlMs: number;
}

const minutes = (ms: number) => Math.round(ms / 60_000);

/** Where the web front end takes a mailed link: `<public URL><path>?token=…`. */
export function linkUrl(publicUrl: string, path: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${path}?token=${encodeURIComponent(token)}`;
}

/** The password-reset mail: a single-use link and its lifetime. */
export function passwordResetMail(to: string, link: string, ttlMs: number): MailMessage {
  return {
    kind: 'password_reset',
    to,
    subject: 'Reset your svc password',
    text: [
      'Someone (hopefully you) asked to reset the password of your svc account.',
      '',
      `Set a new password here (the link works once, for ${minutes(ttlMs)} minutes):`,
      link,
      '',
      'Setting a new password signs every session out. If you did not ask for this, ignore this mail:',
      'your password stays as it is.',
    ].join('\n'),
  };
}

/** The verification mail: a single-use link and its lifetime. */
export function emailVerificationMail(to: string, link: string, ttlMs: number): MailMessage {
  const hours = Math.round(ttlMs / 3_600_000);
  return {
    kind: 'email_verification',
    to,
    subject: 'Confirm your e-mail address for svc',
    text: [
      'Confirm that this address belongs to your svc account:',
      link,
      '',
      `The link works once, for ${hours >= 1 ? `${hours} hours` : `${minutes(ttlMs)} minutes`}. If you did not create an account, ignore this mail.`,
    ].join('\n'),
  };
}
