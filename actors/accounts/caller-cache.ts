import type { AccountRecord, AccountRepo } from './account-repo.js';
import type { AuthGeneration } from './auth-generation.js';
import type { TokenRecord, TokenRepo } from './token-repo.js';

/** What an API token value leads to: its record and its account's (undefined when the account is gone). */
export interface TokenLookup {
  readonly token: TokenRecord;
  readonly account: AccountRecord | undefined;
}

/** Entries kept at most; past it the oldest goes (a bound on memory, not a correctness matter). */
const MAX_ENTRIES = 10_000;

/**
 * The token and account records of recently seen API token values, decoded once and kept while
 * the {@link AuthGeneration} stays where it was when they were read; any move empties it. So a
 * disabled or deleted token, a suspended account or a changed tier is seen by the very next
 * request, whichever process or node wrote it. Only values that name a token are kept (a flood of
 * made-up tokens costs a lookup each, never memory). Kept records are frozen: they are shared by
 * every request of the token, and a record's balance is as of its read (the ledger reads its own).
 */
export class CallerCache {
  private readonly entries = new Map<string, TokenLookup>();
  private generation = -1;

  constructor(
    private readonly current: AuthGeneration,
    private readonly tokens: TokenRepo,
    private readonly accounts: AccountRepo,
  ) {}

  /** The records of the token whose value is `secret`, as committed now; undefined when no token has it. */
  find(secret: string): TokenLookup | undefined {
    const generation = this.current.current();
    if (generation !== this.generation) {
      this.entries.clear();
      this.generation = generation;
    } else {
      const hit = this.entries.get(secret);
      if (hit) return hit;
    }
    // Read in the same snapshot as the generation above: what is kept is what that generation saw.
    const token = this.tokens.findByValue(secret);
    if (!token) return undefined;
    const account = this.accounts.get(token.accountId);
    const found: TokenLookup = Object.freeze({
      token: Object.freeze(token),
      account: account && Object.freeze(account),
    });
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(secret, found);
    return found;
  }
}
