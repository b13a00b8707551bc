// Runs every test/**/*.test.ts (or those whose path matches argv[2]) in one process through uvu's
// public runner (`uvu/parse` finds the files, `uvu/run` imports and runs them in order), then exits
// with uvu's verdict: a test left holding a socket or timer must not keep the run alive.
import { resolve } from 'node:path';
import { parse } from 'uvu/parse';
import { run } from 'uvu/run';

const only = process.argv[2] ? new RegExp(process.argv[2]) : null;
const { suites } = await parse(resolve(import.meta.dirname), /\.test\.ts$/);
await run(suites.filter((suite) => !only || only.test(suite.name)));
process.exit(process.exitCode ?? 0);
