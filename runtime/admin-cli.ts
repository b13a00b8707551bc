// The operator CLI: `npm run admin -- <command> [--flag value]`, working directly on SVC_DATA_DIR
// (LMDB lets it run beside a live server). Prints JSON; exits non-zero with a message on error.
import { parseArgs } from 'node:util';
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

function money(value: string | undefined, flag: string): number {
  const usd = Number(value);
  if (value === undefined || !Number.isFinite(usd) || usd <= 0) fail(`${flag} must be a positive number of USD`);
  return usdToMicros(usd);
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
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
        if (!values.email) fail('--email is required');
        const created = await services.createAccount({
          email: values.email,
          password: values.password ?? null,
          creditMicros: values['credit-usd'] === undefined ? 0 : money(values['credit-usd'], '--credit-usd'),
          tokenLabel: 'admin-issued',
        });
        if (!created) fail(`an account with e-mail ${values.email} already exists`);
        print({ account: view(created.account.id), api_token: { id: created.token!.record.id, token: created.token!.value } });
        break;
      }
      case 'credit': {
        if (!values.account) fail('--account is required');
        view(values.account);
        await services.ledger.credit(values.account, money(values.usd, '--usd'), values.description ?? 'operator top-up (cli)');
        print({ account: view(values.account) });
        break;
      }
      case 'status': {
        if (!values.account) fail('--account is required');
        if (values.status !== 'active' && values.status !== 'suspended') fail('--status must be active or suspended');
        if (!(await services.setStatus(values.account, values.status))) fail(`no account ${values.account}`);
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
