import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DOCUMENTED_MACHINES, machineDocs } from '../http/machine-docs.js';
import { machineDefinition, stateList, toMermaid, transitionTable } from '../runtime/host/machine-diagram.js';
import { MACHINE_DOCS_PATH } from './tools/write-machine-docs.js';

const test = suite('machine docs: generated from the code and current');

test('docs/machines.md is what the machine definitions generate (run `npm run docs:machines` after changing a machine)', () => {
  assert.fixture(readFileSync(MACHINE_DOCS_PATH, 'utf8'), machineDocs());
});

test('every state and every transition of every machine appears in its diagram', () => {
  for (const [name, machine] of DOCUMENTED_MACHINES) {
    const definition = machineDefinition(machine);
    const mermaid = toMermaid(definition);
    for (const state of stateList(definition))
      assert.ok(mermaid.includes(`"${state.path.split('.').at(-1)}"`), `${name}: state ${state.path}`);
    for (const row of transitionTable(definition).filter((r) => r.state !== '(machine)')) {
      for (const target of row.targets)
        assert.ok(
          mermaid.includes(`--> ${target.replace(/[^A-Za-z0-9_]/g, '_')} :`),
          `${name}: ${row.state} → ${target}`,
        );
    }
  }
});

test.run();
