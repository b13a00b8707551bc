import type { Config } from '../../runtime/config.js';
import type { Mailer } from '../mailer.js';
import { RecordingMailer } from './recording-mailer.js';
import { SmtpMailer } from './smtp-mailer.js';

/** The mailer the configuration asks for: SMTP when `SVC_SMTP_URL` is set, else the recording mailer. */
export function createMailer(config: Pick<Config, 'SVC_SMTP_URL' | 'SVC_MAIL_FROM'>): Mailer {
  return config.SVC_SMTP_URL ? new SmtpMailer(config.SVC_SMTP_URL, config.SVC_MAIL_FROM) : new RecordingMailer();
}
