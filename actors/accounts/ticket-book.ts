import type { Clock } from '../../runtime/clock.js';
import { newSecret, sha256Hex } from '../../runtime/ids.js';

/** Who a ticket lets in: the account and API token that asked for it. */
export interface TicketHolder {
  accountId: string;
  tokenId: string;
}

/** Why a ticket was refused. */
export type TicketRefusal = 'unknown' | 'expired' | 'used';

interface Entry extends TicketHolder {
  expiresAt: number;
  used: boolean;
}

/**
 * Single-use WebSocket tickets, so an API token never travels in a URL. Kept in memory by hash
 * (a restart only forces a new ticket); used tickets are remembered until they expire, so a
 * replay is told apart from a typo.
 */
export class TicketBook {
  private readonly entries = new Map<string, Entry>();
  private lastSweep = 0;

  /** `node`: in cluster mode, the issuing node's id, written into each ticket so any node can send the socket to it. */
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly node: string | null = null,
  ) {}

  /** The node a ticket was issued by (cluster mode), or null. */
  static nodeOf(ticket: string): string | null {
    return /^rtt_([A-Za-z0-9_-]{1,64})\./.exec(ticket)?.[1] ?? null;
  }

  /** A new ticket for `holder`, valid for the book's TTL. */
  issue(holder: TicketHolder): { ticket: string; expiresAt: number } {
    const now = this.clock.now();
    this.sweep(now);
    const ticket = newSecret(this.node ? `rtt_${this.node}.` : 'rtt_');
    const expiresAt = now + this.ttlMs;
    this.entries.set(sha256Hex(ticket), {
      accountId: holder.accountId,
      tokenId: holder.tokenId,
      expiresAt,
      used: false,
    });
    return { ticket, expiresAt };
  }

  /** The holder of `ticket` if it could be spent now, or why not; the ticket stays unspent. */
  peek(ticket: string): TicketHolder | { refused: TicketRefusal } {
    const entry = this.usable(ticket);
    return 'refused' in entry ? entry : { accountId: entry.accountId, tokenId: entry.tokenId };
  }

  /** Spends `ticket`: its holder, or why it cannot be used. Call it only once every other check has passed. */
  redeem(ticket: string): TicketHolder | { refused: TicketRefusal } {
    const entry = this.usable(ticket);
    if ('refused' in entry) return entry;
    entry.used = true;
    return { accountId: entry.accountId, tokenId: entry.tokenId };
  }

  /** Tickets held (used ones included until they expire). */
  get size(): number {
    return this.entries.size;
  }

  private usable(ticket: string): Entry | { refused: TicketRefusal } {
    const entry = this.entries.get(sha256Hex(ticket));
    if (!entry) return { refused: 'unknown' };
    if (entry.expiresAt <= this.clock.now()) return { refused: 'expired' };
    if (entry.used) return { refused: 'used' };
    return entry;
  }

  // Expired entries go at most once per TTL, so memory is bounded by the tickets issued per TTL.
  private sweep(now: number): void {
    if (now - this.lastSweep < this.ttlMs) return;
    this.lastSweep = now;
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
