// A real SMTP server (the `smtp-server` package) on loopback that keeps what it receives, for
// tests that follow the links and codes in the mail the service sends.
import { SMTPServer } from 'smtp-server';

/** One received message, its body decoded. */
export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  headers: Record<string, string>;
  text: string;
  raw: string;
}

function decodeQuotedPrintable(body: string): string {
  const bytes: number[] = [];
  const text = body.replace(/=\r?\n/g, '');
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(text[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Splits a raw message into headers (unfolded, lower-case names) and its decoded text body. */
export function parseMail(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? decodeQuotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { headers, text: text.replace(/\r\n/g, '\n').replace(/\n$/, '') };
}

/** Options of {@link SmtpInbox.start}. */
export interface SmtpInboxOptions {
  /** Require AUTH (PLAIN or LOGIN, allowed without TLS on loopback) with these credentials. */
  auth?: { user: string; pass: string };
}

/** A running inbox: its URL for SVC_SMTP_URL, what it received, and a way to wait for a message. */
export class SmtpInbox {
  readonly messages: ReceivedMail[] = [];
  /** Messages that came in while held, acknowledged only on {@link release}. */
  private held: (() => void)[] | null = null;
  private waiters: { test: (mail: ReceivedMail) => boolean; resolve: (mail: ReceivedMail) => void }[] = [];
  private server!: SMTPServer;
  private auth: SmtpInboxOptions['auth'];
  port = 0;

  /** Starts the server on an ephemeral loopback port (no TLS; AUTH only when `options.auth` is set). */
  static async start(options: SmtpInboxOptions = {}): Promise<SmtpInbox> {
    const inbox = new SmtpInbox();
    const { auth } = options;
    inbox.auth = auth;
    inbox.server = new SMTPServer({
      authOptional: !auth,
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      logger: false,
      onAuth(login, _session, callback) {
        if (auth && login.username === auth.user && login.password === auth.pass)
          return callback(null, { user: login.username });
        callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const { headers, text } = parseMail(raw);
          const accept = () => {
            inbox.receive({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              subject: headers.subject ?? '',
              headers,
              text,
              raw,
            });
            callback();
          };
          if (inbox.held) inbox.held.push(accept);
          else accept();
        });
      },
    });
    await new Promise<void>((resolve) => inbox.server.listen(0, '127.0.0.1', () => resolve()));
    inbox.port = (inbox.server.server.address() as { port: number }).port;
    return inbox;
  }

  /** `smtp://[user:pass@]127.0.0.1:<port>` */
  get url(): string {
    const credentials = this.auth ? `${encodeURIComponent(this.auth.user)}:${encodeURIComponent(this.auth.pass)}@` : '';
    return `smtp://${credentials}127.0.0.1:${this.port}`;
  }

  /** From now on, incoming messages wait unacknowledged (a slow mail server) until {@link release}. */
  hold(): void {
    this.held ??= [];
  }

  /** How many messages are waiting while held. */
  get heldCount(): number {
    return this.held?.length ?? 0;
  }

  /** Acknowledges and records every held message, and stops holding. */
  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const accept of held) accept();
  }

  /** Messages to `address`. */
  to(address: string): ReceivedMail[] {
    return this.messages.filter((mail) => mail.to.includes(address));
  }

  /** Resolves with the first message (already received or still to come) matching `test`. */
  waitFor(test: (mail: ReceivedMail) => boolean): Promise<ReceivedMail> {
    const found = this.messages.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private receive(mail: ReceivedMail): void {
    this.messages.push(mail);
    const ready = this.waiters.filter((waiter) => waiter.test(mail));
    this.waiters = this.waiters.filter((waiter) => !waiter.test(mail));
    for (const waiter of ready) waiter.resolve(mail);
  }
}

/** The first `http(s)://…` link in a text. */
export function firstLink(text: string): URL {
  const match = /https?:\/\/\S+/.exec(text);
  if (!match) throw new Error(`no link in: ${text}`);
  return new URL(match[0]);
}
