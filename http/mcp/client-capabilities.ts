import type { Clock } from '../../runtime/clock.js';

/** What a client said it can do when it initialized, as far as the tools use it. */
export interface RememberedCapabilities {
  /** The client answers form-mode `elicitation/create` requests. */
  elicitation: boolean;
}

interface Entry extends RememberedCapabilities {
  at: number;
}

/**
 * What each caller's MCP client declared in `initialize`, kept for later stateless requests (which
 * carry no session): a tool call asks the user through elicitation only when the caller's client
 * said it can. Keyed by caller (never a secret), bounded in size and age. A wrong guess is safe
 * both ways: a client that cannot answer makes the request fail, and the tool falls back to the
 * two-call approval; a client not remembered simply gets the two-call approval.
 */
export class ClientCapabilities {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly options: { maxEntries: number; ttlMs: number },
  ) {}

  /** Records what `callerKey`'s client declared (the `capabilities` of its `initialize`). */
  remember(callerKey: string, declared: unknown): void {
    const elicitation = (declared as { elicitation?: unknown } | null)?.elicitation;
    // `elicitation: {}` (2025-06-18) means form mode; 2025-11-25 may name `form` explicitly.
    const form =
      typeof elicitation === 'object' &&
      elicitation !== null &&
      (Object.keys(elicitation).length === 0 || 'form' in elicitation);
    this.entries.delete(callerKey);
    this.entries.set(callerKey, { elicitation: form, at: this.clock.now() });
    if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** What `callerKey`'s client declared, while remembered. */
  get(callerKey: string): RememberedCapabilities {
    const entry = this.entries.get(callerKey);
    if (!entry || this.clock.now() - entry.at > this.options.ttlMs) return { elicitation: false };
    return entry;
  }
}
