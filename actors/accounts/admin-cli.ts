// The operator CLI: `npm run admin -- <command> [--flag value]`, working directly on SVC_DATA_DIR
// (LMDB lets it run beside a live server). Prints JSON; exits non-zero with a message on error.
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import {
  AdminCreateAccountSchema,
  AdminCreditSchema,
  AdminEarlyAccessSchema,
  AdminSetTierSchema,
  AdminStatusSchema,
  AdminWaitlistQuerySchema,
} from '../../protocols/admin.js';
import { ApiError } from '../../protocols/errors.js';
import { AccountServices } from './account-services.js';
import { AdminService } from './admin-service.js';
import type { AccountOverview } from './account-service.js';
import { systemClock } from '../../runtime/clock.js';
import { loadConfig } from '../../runtime/config.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';
import { WaitlistRepo } from '../waitlist/waitlist-repo.js';
import type { EarlyAccessGrant } from './early-access.js';

const USAGE = `usage: npm run admin -- <command> [options]
  create-account --email E [--password P] [--credit-usd N] [--tier T]   account + first API token (printed once)
  credit --account ID --usd N [--description TEXT]            add funds
  status --account ID --status active|suspended               suspend or reactivate
  set-tier --account ID --tier auto|custom|free|tier-1…tier-4 the account's usage tier
  grant-early-access --account ID --product P                 let the account see a product (marketplace, ai-companies)
  revoke-early-access --account ID --product P                take an operator grant back
  waitlist [--product P] [--limit N]                          confirmed waitlist sign-ups, newest first
  show --account ID                                           balance and status
  list                                                        every account
options: --data-dir DIR (default SVC_DATA_DIR or ./data)`;

function fail(message: string): never {
  process.stderr.write(`admin: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** Validates with the admin API's own schema, so the CLI accepts exactly what the API accepts. */
function validate<S extends z.ZodType>(
  schema: S,
  input: Record<string, unknown>,
  flags: Record<string, string>,
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = String(issue.path[0] ?? '');
  return fail(`${flags[field] ?? field}: ${issue.message}`);
}

const usd = (value: string | undefined) => (value === undefined ? undefined : Number(value));

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        'credit-usd': { type: 'string' },
        account: { type: 'string' },
        usd: { type: 'string' },
        description: { type: 'string' },
        status: { type: 'string' },
        tier: { type: 'string' },
        product: { type: 'string' },
        limit: { type: 'string' },
        'data-dir': { type: 'string' },
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parse();
  const config = loadConfig({ ...process.env, ...(values['data-dir'] && { SVC_DATA_DIR: values['data-dir'] }) });
  // A cluster node's LMDB is a copy of the replicated log: writing it directly would part it from the other nodes.
  if (config.SVC_NATS_URL)
    return fail(
      "the CLI writes one node's LMDB directly; in cluster mode (SVC_NATS_URL set) use the admin API (/admin/v1) on any node instead",
    );
  const store = LmdbStore.open(config.SVC_DATA_DIR);
  const services = new AccountServices(store, systemClock, {
    sessionTtlMs: config.SVC_SESSION_TTL_S * 1000,
    usageFlushMs: 0,
  });
  const admin = new AdminService(services, { waitlist: new WaitlistRepo(store) });
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  const show = ({ account }: AccountOverview) => ({
    id: account.id,
    email: account.email,
    status: account.status,
    balance_usd: account.balance / 1e6,
  });
  const grants = (accountId: string, list: EarlyAccessGrant[]) => ({
    account_id: accountId,
    early_access: list.map((g) => ({ product: g.product, source: g.source })),
  });
  const view = (id: string) => show(admin.account(id));
  try {
    switch (positionals[0]) {
      case 'create-account': {
        const body = validate(
          AdminCreateAccountSchema,
          { email: values.email, password: values.password, credit_usd: usd(values['credit-usd']), tier: values.tier },
          { email: '--email', password: '--password', credit_usd: '--credit-usd', tier: '--tier' },
        );
        const created = await admin.createAccount(body);
        print({ account: show(created), api_token: { id: created.token.record.id, token: created.token.value } });
        break;
      }
      case 'credit': {
        if (!values.account) fail('--account is required');
        const body = validate(
          AdminCreditSchema,
          { usd: usd(values.usd), description: values.description },
          { usd: '--usd', description: '--description' },
        );
        const { overview } = await admin.credit(values.account, body, 'operator top-up (cli)');
        print({ account: show(overview) });
        break;
      }
      case 'status': {
        if (!values.account) fail('--account is required');
        const body = validate(AdminStatusSchema, { status: values.status }, { status: '--status' });
        print({ account: show(await admin.setStatus(values.account, body)) });
        break;
      }
      case 'set-tier': {
        if (!values.account) fail('--account is required');
        const body = validate(AdminSetTierSchema, { tier: values.tier }, { tier: '--tier' });
        const { account, tier } = await admin.setTier(values.account, body);
        print({ account_id: account.id, tier: tier.id, source: tier.source });
        break;
      }
      case 'grant-early-access':
      case 'revoke-early-access': {
        if (!values.account) fail('--account is required');
        const { product } = validate(AdminEarlyAccessSchema, { product: values.product }, { product: '--product' });
        const list =
          positionals[0] === 'grant-early-access'
            ? await admin.grantEarlyAccess(values.account, { product })
            : await admin.revokeEarlyAccess(values.account, product);
        print(grants(values.account, list));
        break;
      }
      case 'waitlist': {
        const query = validate(
          AdminWaitlistQuerySchema,
          { product: values.product, limit: values.limit },
          { product: '--product', limit: '--limit' },
        );
        print({
          waitlist: admin.waitlist(query.product, query.limit).map((s) => ({
            product: s.product,
            channel: s.channel,
            contact: s.contact,
            confirmed_at: new Date(s.confirmedAt).toISOString(),
          })),
        });
        break;
      }
      case 'show':
        if (!values.account) fail('--account is required');
        print({ account: view(values.account) });
        break;
      case 'list':
        print({ accounts: [...admin.list()].map((a) => view(a.id)) });
        break;
      default:
        fail(positionals[0] ? `unknown command ${positionals[0]}` : 'a command is required');
    }
  } catch (err) {
    // The service's refusals (unknown account, e-mail taken) are the operator's, said plainly.
    if (err instanceof ApiError) fail(err.message);
    throw err;
  } finally {
    await services.close();
    await store.close();
  }
}

await main();
