/** One text message to a phone number in E.164 form. */
export interface SmsMessage {
  to: string;
  text: string;
  /** What it is for (`waitlist_code`, `waitlist_confirmed`), for logs and tests. */
  kind: string;
}

/**
 * The SMS port. Texts can carry codes: implementations never log them. The default
 * (`RecordingSmsSender`) keeps them in memory without sending; a carrier implementation plugs in
 * here when one is configured.
 */
export interface SmsSender {
  /** `recording`, or the carrier's name. */
  readonly kind: string;
  /** Sends `message`; rejects when the carrier refuses it. */
  send(message: SmsMessage): Promise<{ messageId: string }>;
}
