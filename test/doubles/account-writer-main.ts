// Another process writing accounts and tokens on a server's LMDB file, as the admin CLI does, for the
// writes the CLI has no command for: `disable-token|enable-token|delete-token <account> <token>`,
// `password <account>` (a new hash and session epoch, as a password change writes). Exits 0 once
// the write is committed and flushed.
import { AccountServices } from '../../actors/accounts/account-services.js';
import { systemClock } from '../../runtime/clock.js';
import { LmdbStore } from '../../runtime/store/lmdb-store.js';

const [dataDir, command, accountId, tokenId] = process.argv.slice(2);
if (!dataDir || !command || !accountId) throw new Error('usage: <data dir> <command> <account> [token]');
const store = LmdbStore.open(dataDir);
const services = new AccountServices(store, systemClock, { sessionTtlMs: 60_000, usageFlushMs: 0 });
const done = (ok: unknown) => {
  if (!ok) throw new Error(`${command}: nothing was written`);
};
switch (command) {
  case 'disable-token':
  case 'enable-token':
    done(await services.tokens.update(accountId, tokenId!, { enabled: command === 'enable-token' }));
    break;
  case 'delete-token':
    done(await services.tokens.delete(accountId, tokenId!));
    break;
  case 'password':
    done(
      await services.accounts.update(accountId, (record) => ({
        ...record,
        passwordHash: 'changed-elsewhere',
        sessionEpoch: record.sessionEpoch + 1,
      })),
    );
    break;
  default:
    throw new Error(`unknown command ${command}`);
}
await store.flushed;
await store.close();
