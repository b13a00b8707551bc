/**
 * API requests in flight per account, in this process: the perimeter admits a request when the
 * account is under its tier's cap and lets it go when the answer (a whole stream included) ends.
 */
export class ConcurrencyGate {
  private readonly inFlight = new Map<string, number>();

  /** Admits one more request for `accountId` under `max`; false when the account is at its cap. */
  tryAcquire(accountId: string, max: number): boolean {
    const current = this.inFlight.get(accountId) ?? 0;
    if (current >= max) return false;
    this.inFlight.set(accountId, current + 1);
    return true;
  }

  /** Lets one request of `accountId` go. */
  release(accountId: string): void {
    const current = this.inFlight.get(accountId) ?? 0;
    if (current <= 1) this.inFlight.delete(accountId);
    else this.inFlight.set(accountId, current - 1);
  }

  /** Requests of `accountId` in flight now. */
  count(accountId: string): number {
    return this.inFlight.get(accountId) ?? 0;
  }
}
