/** One probe's answer: ready or not, and each check that decided it. */
export interface ReadinessReport {
  ready: boolean;
  checks: { booted: boolean; store_open: boolean; draining: boolean; nats_connected: boolean | null };
}

/**
 * Whether this node should be sent traffic: booted (actors brought back), its store open, not
 * draining, and in cluster mode connected to NATS. `/readyz` answers from it; the drain on
 * SIGTERM flips it first, so the balancer stops sending before requests in flight end.
 */
export class Readiness {
  private booted = false;
  private storeOpen = true;
  private drainingNow = false;

  /** `natsConnected` is null on one node (no NATS to lose). */
  constructor(private readonly natsConnected: () => boolean | null = () => null) {}

  /** Whether the node is draining (SIGTERM): new work is refused. */
  get draining(): boolean {
    return this.drainingNow;
  }

  /** The boot is over: rehydrated actors are back. */
  markBooted(): void {
    this.booted = true;
  }

  /** Shutdown began: the node takes no new work. */
  markDraining(): void {
    this.drainingNow = true;
  }

  /** The store is closed (the last step of shutting down). */
  markStoreClosed(): void {
    this.storeOpen = false;
  }

  /** The probe's answer now. */
  report(): ReadinessReport {
    const nats = this.natsConnected();
    const checks = {
      booted: this.booted,
      store_open: this.storeOpen,
      draining: this.drainingNow,
      nats_connected: nats,
    };
    return { ready: checks.booted && checks.store_open && !checks.draining && nats !== false, checks };
  }
}
