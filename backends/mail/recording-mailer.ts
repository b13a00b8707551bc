import type { MailMessage, MailReceipt, Mailer } from '../mailer.js';

/** A recorded message, with when it was recorded. */
export interface RecordedMail extends MailMessage {
  messageId: string;
  at: number;
}

/**
 * The offline default: messages are kept in memory (the newest `capacity`) and never sent or
 * logged. Tests and operators running without SMTP read them through {@link messages}; a restart
 * forgets them.
 */
export class RecordingMailer implements Mailer {
  readonly kind = 'recording';
  private readonly recorded: RecordedMail[] = [];
  private counter = 0;

  constructor(private readonly capacity = 200) {}

  send(message: MailMessage): Promise<MailReceipt> {
    const messageId = `recorded-${++this.counter}`;
    this.recorded.push({ ...message, messageId, at: Date.now() });
    if (this.recorded.length > this.capacity) this.recorded.shift();
    return Promise.resolve({ messageId });
  }

  /** Recorded messages, oldest first, optionally only those to `to`. */
  messages(to?: string): RecordedMail[] {
    return to === undefined ? [...this.recorded] : this.recorded.filter((message) => message.to === to);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
