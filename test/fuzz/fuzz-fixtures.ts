import type { Sender } from './send-request.js';

/** An account the fuzzer acts as: its id, an API token and a login session. */
export interface FuzzAccount {
  id: string;
  email: string;
  token: string;
  tokenId: string;
  session: string;
}

/** Ids of one account's resources, used as path parameters; pools where a request can use one up. */
export interface ResourceIds {
  /** Sessions waiting for approval (approving one starts a run that holds money; cancelling ends it). */
  sessionsAwaiting: string[];
  /** A session that ran to completion (results, workbook, events); never offered to DELETE. */
  sessionDone: string;
  /** Finished sessions that DELETE may take. */
  sessionsToDelete: string[];
  /** The completion id of the finished session's run. */
  sessionCompletionId: string;
  /** A recent plain completion (still in the registry). */
  completionId: string;
  /** A stored response (reads, input items); never offered to DELETE. */
  responseId: string;
  /** Stored responses that DELETE may take. */
  responsesToDelete: string[];
  /** A file that reads may use; never offered to DELETE. */
  fileId: string;
  /** Files that DELETE may take. */
  filesToDelete: string[];
  /** Open resumable uploads of 16 bytes (one part), to fill and complete. */
  uploads: string[];
  /** Open uploads that DELETE may cancel. */
  uploadsToCancel: string[];
}

/**
 * Everything the generator draws real credentials and ids from. The primary account's own token
 * and session are never sent where they could be revoked, disabled or suspended, so the server can
 * be checked healthy afterwards.
 */
export interface FuzzFixtures {
  adminKey: string;
  /** Funded; most requests act as it. */
  primary: FuzzAccount;
  /** Another funded account: its credentials and ids are the "someone else's" inputs. */
  other: FuzzAccount;
  /** An account only admin routes touch (credit, suspend). */
  victimId: string;
  /** A second token of the primary account, which token routes may patch, disable or delete. */
  spareToken: { id: string; value: string };
  /** Extra login sessions of the primary account, for logout. */
  spareSessions: string[];
  own: ResourceIds;
  foreign: ResourceIds;
}

/** A JSON call for setup: fails loudly on an unexpected status. */
async function call(
  sender: Sender,
  method: string,
  path: string,
  options: { auth?: string; body?: unknown; expect: number },
): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.auth) headers.authorization = `Bearer ${options.auth}`;
  const res = await sender.send({
    method,
    path,
    headers,
    ...(options.body !== undefined && { body: Buffer.from(JSON.stringify(options.body)) }),
  });
  const text = res.body.toString('utf8');
  if (res.status !== options.expect)
    throw new Error(`fuzz setup: ${method} ${path} answered ${res.status ?? res.error}: ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

let counter = 0;

/** A new funded account, logged in; the password is returned apart so generators never see it. */
async function createAccount(
  sender: Sender,
  adminKey: string,
  creditUsd: number,
): Promise<{ account: FuzzAccount; password: string }> {
  const email = `fuzz${++counter}-${process.pid}-${Date.now().toString(36)}@example.com`;
  const password = `fuzz-password-${counter}-${process.pid}`;
  const created = await call(sender, 'POST', '/admin/v1/accounts', {
    auth: adminKey,
    body: { email, password, credit_usd: creditUsd },
    expect: 201,
  });
  const login = await call(sender, 'POST', '/v1/auth/login', { body: { email, password }, expect: 200 });
  return {
    account: {
      id: created.account.id,
      email,
      token: created.api_token.token,
      tokenId: created.api_token.id,
      session: login.token,
    },
    password,
  };
}

async function login(sender: Sender, email: string, password: string): Promise<string> {
  return (await call(sender, 'POST', '/v1/auth/login', { body: { email, password }, expect: 200 })).token;
}

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'pro-1',
  messages: [{ role: 'user', content }],
  max_tokens: 32,
  ...extra,
});

/** `count` results of `make`, one after another, so ids come in a stable order. */
async function times<T>(count: number, make: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i++) out.push(await make());
  return out;
}

async function createResources(sender: Sender, account: FuzzAccount, pools: number): Promise<ResourceIds> {
  const auth = account.token;
  const session = async (extra: Record<string, unknown>) =>
    (await call(sender, 'POST', '/v1/chat/sessions', {
      auth,
      body: chat('Plan a small garden', extra),
      expect: 201,
    })) as { id: string; completion_id: string };
  const file = async () =>
    (
      await call(sender, 'POST', '/v1/files', {
        auth,
        body: { filename: 'notes.txt', file_data: Buffer.from('fuzz fixture notes\n').toString('base64') },
        expect: 200,
      })
    ).id as string;
  const upload = async () =>
    (await call(sender, 'POST', '/v1/files/uploads', { auth, body: { filename: 'parts.bin', bytes: 16 }, expect: 200 }))
      .id as string;
  const response = async () =>
    (
      await call(sender, 'POST', '/v1/responses', {
        auth,
        body: { model: 'pro-1', input: 'Say hello', max_output_tokens: 32 },
        expect: 200,
      })
    ).id as string;
  const done = await session({});
  const completion = await call(sender, 'POST', '/v1/chat/completions', {
    auth,
    body: chat(`Say hello to ${account.id}`),
    expect: 200,
  });
  return {
    sessionsAwaiting: (await times(pools * 2, () => session({ require_approval: true }))).map((s) => s.id),
    sessionDone: done.id,
    sessionsToDelete: (await times(pools, () => session({}))).map((s) => s.id),
    sessionCompletionId: done.completion_id,
    completionId: completion.id,
    responseId: await response(),
    responsesToDelete: await times(pools, response),
    fileId: await file(),
    filesToDelete: await times(pools, file),
    uploads: await times(pools, upload),
    uploadsToCancel: await times(pools, upload),
  };
}

/** Creates the accounts, tokens, sessions and resources the fuzzer needs, through the public API. */
export async function createFixtures(sender: Sender, adminKey: string): Promise<FuzzFixtures> {
  const { account: primary, password } = await createAccount(sender, adminKey, 10_000);
  const { account: other } = await createAccount(sender, adminKey, 1_000);
  const { account: victim } = await createAccount(sender, adminKey, 1);
  const spare = await call(sender, 'POST', '/v1/account/tokens', {
    auth: primary.session,
    body: { label: 'fuzz-spare' },
    expect: 201,
  });
  const spareSessions = [await login(sender, primary.email, password), await login(sender, primary.email, password)];
  return {
    adminKey,
    primary,
    other,
    victimId: victim.id,
    spareToken: { id: spare.id, value: spare.token },
    spareSessions,
    own: await createResources(sender, primary, 3),
    foreign: await createResources(sender, other, 1),
  };
}
