// The operator CLI: `npm run admin -- <command> [--flag value]`, working directly on SVC_DATA_DIR
// (LMDB lets it run beside a live server). Prints JSON; exits non-zero with a message on error.
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { AdminCreateAccountSchema, AdminCreditSchema, AdminStatusSchema } from '../protocols/admin.js';
import { usdToMicros } from '../protocols/money.js';
import { AccountServices } from './accounts/account-services.js';
import { systemClock } from './clock.js';
import { loadConfig } from './config.js';
import { Store } from './store.js';

const USAGE = `usage: npm run admin -- <command> [options]
  create-account --email E [--password P] [--credit-usd N]   account + first API token (printed once)
  credit --account ID --usd N [--description TEXT]            add funds
  status --account ID --status active|suspended               suspend or reactivate
  show --account ID                                           balance and status
  list                                                        every account
options: --data-dir DIR (default SVC_DATA_DIR or ./data)`;

function fail(message: string): never {
  process.stderr.write(`admin: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** Validates with the admin API's own schema, so the CLI accepts exactly what the API accepts. */
function validate<S extends z.ZodType>(schema: S, input: Record<string, unknown>, flags: Record<string, string>): z.output<S> {
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
  const store = Store.open(config.SVC_DATA_DIR);
  const services = new AccountServices(store, systemClock, { sessionTtlMs: config.SVC_SESSION_TTL_S * 1000, usageFlushMs: 0 });
  const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  const view = (id: string) => {
    const account = services.accounts.get(id);
    if (!account) fail(`no account ${id}`);
    return { id: account.id, email: account.email, status: account.status, balance_usd: account.balance / 1e6 };
  };
  try {
    switch (positionals[0]) {
      case 'create-account': {
        const body = validate(
          AdminCreateAccountSchema,
          { email: values.email, password: values.password, credit_usd: usd(values['credit-usd']) },
          { email: '--email', password: '--password', credit_usd: '--credit-usd' },
        );
        const created = await services.createAccount({
          email: body.email,
          password: body.password ?? null,
          creditMicros: body.credit_usd === undefined ? 0 : usdToMicros(body.credit_usd),
          tokenLabel: 'admin-issued',
        });
        if (!created) fail(`an account with e-mail ${values.email} already exists`);
        print({ account: view(created.account.id), api_token: { id: created.token!.record.id, token: created.token!.value } });
        break;
      }
      case 'credit': {
        if (!values.account) fail('--account is required');
        const body = validate(AdminCreditSchema, { usd: usd(values.usd), description: values.description }, { usd: '--usd', description: '--description' });
        view(values.account);
        await services.ledger.credit(values.account, usdToMicros(body.usd), body.description ?? 'operator top-up (cli)');
        print({ account: view(values.account) });
        break;
      }
      case 'status': {
        if (!values.account) fail('--account is required');
        const { status } = validate(AdminStatusSchema, { status: values.status }, { status: '--status' });
        if (!(await services.setStatus(values.account, status))) fail(`no account ${values.account}`);
        print({ account: view(values.account) });
        break;
      }
      case 'show':
        if (!values.account) fail('--account is required');
        print({ account: view(values.account) });
        break;
      case 'list':
        print({ accounts: [...services.accounts.all()].map((a) => view(a.id)) });
        break;
      default:
        fail(positionals[0] ? `unknown command ${positionals[0]}` : 'a command is required');
    }
  } finally {
    await services.close();
    await store.close();
  }
}

await main();
