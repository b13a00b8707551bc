import { fromPromise } from 'xstate';
import type { HostedMachine } from '../../runtime/host/actor-host.js';
import type { AccountRepo } from '../accounts/account-repo.js';
import type { PaymentRepo } from './payment-repo.js';
import { SUBSCRIPTION_MACHINE, subscriptionMachine, type GrantsInput } from './subscription-machine.js';

/**
 * The subscription machine's one effect: writing what the subscription grants (its plan, until the
 * end of the paid period) onto the account, which the tier and early-access checks read. Only the
 * account's current subscription writes, so an old one ending cannot clear a newer one's grants.
 * Idempotent: a write cut short by a crash simply runs again after rehydration.
 */
export class SubscriptionRuntime {
  constructor(
    private readonly accounts: AccountRepo,
    private readonly repo: PaymentRepo,
  ) {}

  private async applyGrants(input: GrantsInput): Promise<void> {
    if (this.repo.currentSubscription(input.accountId) !== input.subscriptionId) return;
    await this.accounts.update(input.accountId, (record) => ({ ...record, plan: input.plan }));
  }

  /** The subscription machine with this runtime's effect, ready to register with the host. */
  hosted(): HostedMachine {
    return {
      name: SUBSCRIPTION_MACHINE,
      logic: subscriptionMachine.provide({
        actors: { applyGrants: fromPromise<void, GrantsInput>(({ input }) => this.applyGrants(input)) },
      }),
    };
  }
}
