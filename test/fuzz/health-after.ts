import type { FuzzAccount, FuzzFixtures } from './fuzz-fixtures.js';
import { POLLUTION_MARKER } from './hostile-body.js';
import type { Sender } from './send-request.js';

/** Session states in which a session may still hold money. */
const HOLDING_STATES = new Set(['running', 'awaiting_user', 'settling']);

/** Resolves once a session no longer holds money (in-process: the actor host's waitFor). */
export type SessionSettler = (sessionId: string) => Promise<void>;

async function call(
  sender: Sender,
  method: string,
  path: string,
  auth: string | null,
  body?: unknown,
): Promise<{ status: number | null; json: any; text: string }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth) headers.authorization = `Bearer ${auth}`;
  const res = await sender.send({
    method,
    path,
    headers,
    fresh: true,
    ...(body !== undefined && { body: Buffer.from(JSON.stringify(body)) }),
  });
  const text = res.body.toString('utf8');
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // reported by the caller through the status
  }
  return { status: res.status, json, text: text.slice(0, 500) };
}

/** Cancels every session of `account` that may hold money, then waits for each to let go. */
async function settleSessions(
  sender: Sender,
  account: FuzzAccount,
  settle: SessionSettler | undefined,
  problems: string[],
): Promise<void> {
  const list = await call(sender, 'GET', '/v1/chat/sessions?limit=500', account.token);
  if (list.status !== 200) {
    problems.push(`listing ${account.id}'s sessions answered ${list.status}: ${list.text}`);
    return;
  }
  const live = (list.json.data as { id: string; state: string }[]).filter(
    (session) => HOLDING_STATES.has(session.state) || session.state === 'awaiting_approval',
  );
  for (const session of live) await call(sender, 'POST', `/v1/chat/sessions/${session.id}/cancel`, account.token);
  if (settle) for (const session of live) await settle(session.id);
}

/** The account's money must add up with nothing running: no hold left, nothing negative. */
async function checkMoney(sender: Sender, account: FuzzAccount, problems: string[]): Promise<void> {
  const overview = await call(sender, 'GET', '/v1/account', account.token);
  if (overview.status !== 200) {
    problems.push(`GET /v1/account for ${account.id} answered ${overview.status}: ${overview.text}`);
    return;
  }
  const { balance_usd: balance, held_usd: held, available_usd: available } = overview.json;
  if (held !== 0) problems.push(`${account.id}: held_usd is ${held} with nothing running`);
  if (!(balance >= 0)) problems.push(`${account.id}: balance_usd is ${balance}`);
  if (Math.abs(available - (balance - held)) > 1e-6)
    problems.push(`${account.id}: available_usd ${available} is not balance ${balance} minus held ${held}`);
  const usage = await call(sender, 'GET', '/v1/account/usage?limit=1', account.token);
  if (usage.status !== 200)
    problems.push(`GET /v1/account/usage for ${account.id} answered ${usage.status}: ${usage.text}`);
  else if (usage.json.balance_usd !== balance || usage.json.held_usd !== held)
    problems.push(
      `${account.id}: /v1/account/usage says ${usage.json.balance_usd}/${usage.json.held_usd}, /v1/account ${balance}/${held}`,
    );
}

const micros = (usd: number) => Math.round(usd * 1_000_000);

/**
 * The ledger must be a chain (each entry's balance is the one before plus its amount, the newest
 * is the balance now), and every session charged must exist, unless the run deleted it on purpose.
 */
async function checkLedger(
  sender: Sender,
  account: FuzzAccount,
  deletable: ReadonlySet<string>,
  problems: string[],
): Promise<void> {
  const usage = await call(sender, 'GET', '/v1/account/usage?limit=500', account.token);
  if (usage.status !== 200) return; // reported by checkMoney
  const entries = usage.json.recent as {
    amount_usd: number;
    balance_after_usd: number;
    description: string;
    type: string;
  }[];
  if (entries[0] && micros(entries[0].balance_after_usd) !== micros(usage.json.balance_usd)) {
    problems.push(
      `${account.id}: the newest ledger entry leaves ${entries[0].balance_after_usd}, the balance is ${usage.json.balance_usd}`,
    );
  }
  for (let i = 0; i + 1 < entries.length; i++) {
    const [newer, older] = [entries[i]!, entries[i + 1]!];
    if (micros(older.balance_after_usd) + micros(newer.amount_usd) !== micros(newer.balance_after_usd)) {
      problems.push(
        `${account.id}: ledger entry "${newer.description}" moves ${older.balance_after_usd} by ${newer.amount_usd} to ${newer.balance_after_usd}`,
      );
      break;
    }
  }
  const charged = new Set(
    entries
      .map((entry) => /chat session (sess_[A-Za-z0-9_-]+)/.exec(entry.description)?.[1])
      .filter((id): id is string => id !== undefined && !deletable.has(id)),
  );
  for (const id of charged) {
    const session = await call(sender, 'GET', `/v1/chat/sessions/${id}`, account.token);
    if (session.status !== 200)
      problems.push(`${account.id}: charged for session ${id}, which answers ${session.status}`);
  }
}

/**
 * After the storm: with every session cancelled and settled, the server still serves a normal
 * completion and the account, the accounts' money adds up with no hold left, the ledger is a
 * chain with no charge for a session that is not there, and no prototype was polluted in this
 * process. Returns the problems found.
 */
export async function checkHealthAfter(sender: Sender, fx: FuzzFixtures, settle?: SessionSettler): Promise<string[]> {
  const problems: string[] = [];
  // The run may have suspended the other account through the admin API; it must be reachable to settle.
  const reactivate = await call(sender, 'POST', `/admin/v1/accounts/${fx.other.id}/status`, fx.adminKey, {
    status: 'active',
  });
  if (reactivate.status !== 200)
    problems.push(`reactivating the other account answered ${reactivate.status}: ${reactivate.text}`);
  for (const account of [fx.primary, fx.other]) await settleSessions(sender, account, settle, problems);

  const health = await call(sender, 'GET', '/healthz', null);
  if (health.status !== 200) problems.push(`GET /healthz answered ${health.status}: ${health.text}`);
  const completion = await call(sender, 'POST', '/v1/chat/completions', fx.primary.token, {
    model: 'pro-1',
    messages: [{ role: 'user', content: 'Are you still there?' }],
    max_tokens: 32,
  });
  if (completion.status !== 200 || typeof completion.json?.choices?.[0]?.message?.content !== 'string')
    problems.push(`a normal completion answered ${completion.status}: ${completion.text}`);
  const bySession = await call(sender, 'GET', '/v1/account', fx.primary.session);
  if (bySession.status !== 200)
    problems.push(`GET /v1/account with the session answered ${bySession.status}: ${bySession.text}`);
  for (const account of [fx.primary, fx.other]) await checkMoney(sender, account, problems);
  // Any fixture session may be deleted by its owner (the other account's token also reaches the
  // "foreign" ones as its own); sessions the run creates are never offered to DELETE.
  const fixtureSessions = (ids: typeof fx.own) =>
    new Set([...ids.sessionsToDelete, ...ids.sessionsAwaiting, ids.sessionDone]);
  await checkLedger(sender, fx.primary, fixtureSessions(fx.own), problems);
  await checkLedger(sender, fx.other, fixtureSessions(fx.foreign), problems);

  const probe = {} as Record<string, unknown>;
  if (probe[POLLUTION_MARKER] !== undefined || probe.isAdmin !== undefined)
    problems.push('Object.prototype was polluted');
  return problems;
}
