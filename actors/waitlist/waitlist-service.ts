import { randomInt, timingSafeEqual } from 'node:crypto';
import type { Mailer } from '../../backends/mailer.js';
import type { SmsSender } from '../../backends/sms-sender.js';
import { ApiError } from '../../protocols/errors.js';
import type { EarlyAccessProduct } from '../../protocols/payments.js';
import type { WaitlistRequest, WaitlistVerify } from '../../protocols/waitlist.js';
import type { Clock } from '../../runtime/clock.js';
import type { SecretBox } from '../../runtime/secret-box.js';
import { normaliseEmail } from '../accounts/account-repo.js';
import { AttemptLimiter } from '../accounts/attempt-limiter.js';
import type { BackgroundTasks } from '../accounts/background-tasks.js';
import { codeMessage, confirmationMessage, maskContact } from './waitlist-messages.js';
import type { WaitlistChannel, WaitlistRepo, WaitlistSignup } from './waitlist-repo.js';

/** What the waitlist needs. */
export interface WaitlistDeps {
  repo: WaitlistRepo;
  mailer: Mailer;
  sms: SmsSender;
  /** Keys the code hashes: a 6-digit code has a million values, so a plain hash would not protect it. */
  box: SecretBox;
  background: BackgroundTasks;
  clock: Clock;
  codeTtlMs: number;
}

/** A code sent: where, and until when. */
export interface CodeSent {
  product: EarlyAccessProduct;
  channel: WaitlistChannel;
  expiresAt: number;
}

/** Codes per contact per 15 minutes, and per client address per hour. */
const CODES_PER_CONTACT = 3;
const CODES_PER_CLIENT = 30;
/** Wrong codes allowed against one code before it is void. */
const MAX_ATTEMPTS = 5;

interface Contact {
  channel: WaitlistChannel;
  contact: string;
}

function contactOf(input: { email?: string | undefined; phone?: string | undefined }): Contact {
  return input.email !== undefined
    ? { channel: 'email', contact: normaliseEmail(input.email) }
    : { channel: 'sms', contact: input.phone! };
}

/**
 * The public waitlist of the work-in-progress products: a request sends a 6-digit code to an
 * e-mail (Mailer) or a phone (SmsSender), stored only as a keyed hash, valid for a short time and
 * a few attempts; verifying it confirms the sign-up and sends a short confirmation. Requests are
 * limited per contact and per client address. Early access itself is an operator's grant.
 */
export class WaitlistService {
  private readonly perContact: AttemptLimiter;
  private readonly perClient: AttemptLimiter;

  constructor(private readonly deps: WaitlistDeps) {
    this.perContact = new AttemptLimiter(deps.clock, { limit: CODES_PER_CONTACT, windowMs: 15 * 60_000 });
    this.perClient = new AttemptLimiter(deps.clock, { limit: CODES_PER_CLIENT, windowMs: 3_600_000 });
  }

  /** Sends a new code (replacing an unconfirmed one); 429 past the contact's or the client's limit. */
  async request(input: WaitlistRequest, client: string): Promise<CodeSent> {
    const { channel, contact } = contactOf(input);
    // Both limits or neither: a code refused by the contact's limit does not count against the client's.
    const clientWaitMs = this.perClient.reserve(client);
    const waitMs = clientWaitMs > 0 ? clientWaitMs : this.perContact.reserve(contact);
    if (waitMs > 0) {
      if (clientWaitMs === 0) this.perClient.refund(client);
      throw new ApiError('rate_limit_exceeded', 'Too many waitlist codes asked for; try again later.', {
        retryAfterMs: waitMs,
      });
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = this.deps.clock.now();
    const expiresAt = now + this.deps.codeTtlMs;
    await this.deps.repo.codes.put([input.product, contact], {
      channel,
      codeHash: this.hash(input.product, contact, code),
      sentAt: now,
      expiresAt,
      attempts: 0,
    });
    this.send(channel, contact, 'waitlist_code', codeMessage(input.product, code, this.deps.codeTtlMs));
    return { product: input.product, channel, expiresAt };
  }

  /**
   * Checks the code and confirms the sign-up (a confirmed contact confirming again keeps its first
   * date). 400 `invalid_code` when wrong (the attempt counts), 400 `code_expired` when expired or
   * out of attempts: ask for a new one.
   */
  async verify(input: WaitlistVerify): Promise<WaitlistSignup & { masked: string }> {
    const { channel, contact } = contactOf(input);
    const key = [input.product, contact];
    const { repo, clock } = this.deps;
    type Outcome = { refused: 'invalid_code' | 'code_expired'; left: number } | { signup: WaitlistSignup };
    const outcome = await repo.store.transaction((): Outcome => {
      const pending = repo.codes.get(key);
      if (!pending) return { refused: 'invalid_code', left: 0 };
      if (pending.expiresAt <= clock.now() || pending.attempts >= MAX_ATTEMPTS)
        return { refused: 'code_expired', left: 0 };
      const expected = Buffer.from(pending.codeHash, 'hex');
      const actual = Buffer.from(this.hash(input.product, contact, input.code), 'hex');
      if (!timingSafeEqual(expected, actual)) {
        void repo.codes.put(key, { ...pending, attempts: pending.attempts + 1 });
        return { refused: 'invalid_code', left: MAX_ATTEMPTS - pending.attempts - 1 };
      }
      void repo.codes.remove(key);
      const signup: WaitlistSignup = repo.signups.get(key) ?? {
        product: input.product,
        channel,
        contact,
        confirmedAt: clock.now(),
      };
      void repo.signups.put(key, signup);
      return { signup };
    });
    if ('refused' in outcome) {
      if (outcome.refused === 'code_expired')
        throw new ApiError('code_expired', 'This code has expired or had too many wrong tries: ask for a new one.', {
          param: 'code',
        });
      throw new ApiError(
        'invalid_code',
        `The code is wrong${outcome.left > 0 ? ` (${outcome.left} tries left)` : ''}.`,
        { param: 'code' },
      );
    }
    this.send(channel, contact, 'waitlist_confirmed', confirmationMessage(input.product));
    return { ...outcome.signup, masked: maskContact(contact) };
  }

  private hash(product: string, contact: string, code: string): string {
    return this.deps.box.keyedHash('waitlist-code', `${product}\u0000${contact}\u0000${code}`);
  }

  private send(channel: WaitlistChannel, to: string, kind: string, message: { subject: string; text: string }): void {
    this.deps.background.run('waitlist message', { channel, kind }, async () => {
      if (channel === 'email') await this.deps.mailer.send({ to, subject: message.subject, text: message.text, kind });
      else await this.deps.sms.send({ to, text: message.text, kind });
    });
  }
}
