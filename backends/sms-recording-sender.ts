import type { SmsMessage, SmsSender } from './sms-sender.js';

/** The offline SMS default: texts are kept in memory (the newest `capacity`), never sent or logged. */
export class RecordingSmsSender implements SmsSender {
  readonly kind = 'recording';
  private readonly recorded: (SmsMessage & { messageId: string })[] = [];
  private counter = 0;

  constructor(private readonly capacity = 200) {}

  send(message: SmsMessage): Promise<{ messageId: string }> {
    const messageId = `sms-${++this.counter}`;
    this.recorded.push({ ...message, messageId });
    if (this.recorded.length > this.capacity) this.recorded.shift();
    return Promise.resolve({ messageId });
  }

  /** Recorded texts, oldest first, optionally only those to `to`. */
  messages(to?: string): (SmsMessage & { messageId: string })[] {
    return to === undefined ? [...this.recorded] : this.recorded.filter((message) => message.to === to);
  }
}
