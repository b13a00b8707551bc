import type { AccountOverview } from '../../actors/accounts/account-service.js';
import type { AdminCreatedAccount } from '../../actors/accounts/admin-service.js';
import type {
  AdminAccountObject,
  AdminCreatedAccountObject,
  AdminCreditedObject,
  MachineDefinitionsObject,
} from '../../protocols/admin.js';
import { accountView } from './account-view.js';

/** An account as the admin API shows it. */
export function adminAccountView(overview: AccountOverview): AdminAccountObject {
  return { account: accountView(overview) };
}

/** A created account and its first API token, whose value is shown this once. */
export function adminCreatedAccountView(created: AdminCreatedAccount): AdminCreatedAccountObject {
  return { account: accountView(created), api_token: { id: created.token.record.id, token: created.token.value } };
}

/** A credit: the account after it and the ledger entry that made it. */
export function adminCreditedView(overview: AccountOverview, entryId: string): AdminCreditedObject {
  return { account: accountView(overview), entry_id: entryId };
}

/** Every machine's definition by name. */
export function machineDefinitionsView(definitions: Record<string, unknown>): MachineDefinitionsObject {
  return { object: 'list', data: definitions };
}
