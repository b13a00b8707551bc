import type { Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { MailMessage, MailReceipt, Mailer } from '../mailer.js';
import { lazyModule } from '../../runtime/lazy-module.js';

/** nodemailer loads with the first message, so a server that never mails never holds it. */
const loadNodemailer = lazyModule(() => import('nodemailer'));

/**
 * Mail over SMTP through nodemailer, from `SVC_SMTP_URL` (`smtp://user:pass@host:587`,
 * `smtps://…:465`; STARTTLS is used when the server offers it). Pooled connections; nodemailer's
 * own logging stays off, so neither the URL's password nor a message body reaches a log.
 */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly options: SMTPPool.Options;
  private transport: Transporter<SMTPPool.SentMessageInfo, SMTPPool.Options> | null = null;

  constructor(
    url: string,
    private readonly from: string,
    options: { timeoutMs?: number } = {},
  ) {
    const timeout = options.timeoutMs ?? 15_000;
    this.options = {
      url,
      pool: true,
      maxConnections: 4,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      logger: false,
      debug: false,
    };
  }

  async send(message: MailMessage): Promise<MailReceipt> {
    this.transport ??= (await loadNodemailer()).createTransport(this.options);
    const info = await this.transport.sendMail({
      from: this.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      headers: { 'X-Svc-Mail': message.kind },
    });
    return { messageId: info.messageId };
  }

  close(): Promise<void> {
    this.transport?.close();
    return Promise.resolve();
  }
}
