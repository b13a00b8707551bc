import { resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
// eslint.layers.js is plain JS beside the config; its rules are what `npm run lint` applies.
import { layerRules } from '../eslint.layers.js';

const test = suite('lint layers: a wrong-way import fails the lint, the allowed directions pass');
const root = resolve(import.meta.dirname, '..');
const eslint = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...layerRules],
});

/** The layer messages ESLint gives `code` as if it were the file at `path`. */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, path) });
  return result!.messages
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

const wrongWay: [string, string][] = [
  ['runtime/probe.ts', "import { Ledger } from '../actors/billing/ledger.js';"],
  ['runtime/host/probe.ts', "import type { ChatBackend } from '../../backends/chat-backend.js';"],
  ['runtime/probe.ts', "import { uws } from '../http/uws.js';"],
  ['runtime/probe.ts', "import { open } from 'lmdb';"],
  ['protocols/probe.ts', "import { newId } from '../runtime/ids.js';"],
  ['protocols/probe.ts', "import type { AccountRecord } from '../actors/accounts/account-repo.js';"],
  ['backends/probe.ts', "import { Ledger } from '../actors/billing/ledger.js';"],
  ['backends/sim/probe.ts', "import { ActorHost } from '../../runtime/host/actor-host.js';"],
  ['actors/chat/probe.ts', "import { sendJson } from '../../http/dispatch.js';"],
  ['actors/chat/probe.ts', "import { createSimSpeechBackend } from '../../backends/sim/sim-speech.js';"],
  ['http/routes/probe.ts', "import { readFile } from 'node:fs/promises';"],
  ['http/routes/probe.ts', "import { LmdbStore } from '../../runtime/store/lmdb-store.js';"],
  ['http/views/probe.ts', "import { open } from 'lmdb';"],
  ['http/routes/probe.ts', "import { startCompletion } from '../../actors/chat/completion-run.js';"],
  ['http/realtime/probe.ts', "import { createCallEffects } from '../../actors/realtime/call-effects.js';"],
];

test('each wrong-way import is an error naming the layer rule', async () => {
  for (const [path, code] of wrongWay) {
    const errors = await layerErrors(path, code);
    assert.is(errors.length, 1, `${path}: ${code} → ${JSON.stringify(errors)}`);
  }
});

const allowed: [string, string][] = [
  ['runtime/host/probe.ts', "import type { Store } from '../store/store.js';"],
  ['runtime/probe.ts', "import { ApiError } from '../protocols/errors.js';"],
  ['protocols/probe.ts', "import { z } from 'zod';\nimport { ApiError } from './errors.js';"],
  [
    'backends/sim/probe.ts',
    "import { ConfigError } from '../../runtime/config.js';\nimport type { ChatMessage } from '../../protocols/chat.js';",
  ],
  [
    'actors/chat/probe.ts',
    "import type { ChatBackend } from '../../backends/chat-backend.js';\nimport { ActorHost } from '../../runtime/host/actor-host.js';",
  ],
  ['http/routes/probe.ts', "import { ChatService } from '../../actors/chat/chat-service.js';"],
  [
    'http/app.ts',
    "import { LmdbStore } from '../runtime/store/lmdb-store.js';\nimport { createChatBackend } from '../backends/create-chat-backend.js';",
  ],
];

test('the allowed directions pass', async () => {
  for (const [path, code] of allowed) assert.equal(await layerErrors(path, code), [], `${path}: ${code}`);
});

test.run();
