/** One e-mail: plain text (links included as text), to one recipient. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** What the message is for (`password_reset`, `email_verification`, `waitlist_code`, …), for logs and tests. */
  kind: string;
}

/** What a delivery reports: the transport's message id. Never the body. */
export interface MailReceipt {
  messageId: string;
}

/**
 * The mail port. Bodies can carry secrets (single-use links, codes): implementations never log
 * them. `RecordingMailer` (the default) keeps them in memory without sending; `SmtpMailer` sends
 * through nodemailer when `SVC_SMTP_URL` is set.
 */
export interface Mailer {
  /** `recording` or `smtp`. */
  readonly kind: string;
  /** Delivers `message`; rejects when the transport refuses it. */
  send(message: MailMessage): Promise<MailReceipt>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}
