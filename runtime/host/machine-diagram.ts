/** A state node of an XState machine definition, as `machine.toJSON()` gives it. */
interface StateNodeJson {
  id: string;
  key: string;
  type: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  initial?: { target: (string | { id: string })[] };
  states: Record<string, StateNodeJson>;
  on?: Record<string, TransitionJson[]>;
  always?: TransitionJson[];
  invoke?: { src: string; id: string }[];
}

interface TransitionJson {
  eventType: string | null;
  target?: (string | { id: string })[];
  source: string;
  guard?: string | { type: string };
  actions?: (string | { type: string })[];
  reenter?: boolean;
}

/** One row of a machine's transition table. */
export interface TransitionRow {
  state: string;
  event: string;
  guard: string | null;
  targets: string[];
  actions: string[];
}

// Inline guards and actions are functions with no `type`: they have no name to show (null, never undefined).
const nameOf = (value: string | { type?: string } | undefined): string | null =>
  value === undefined ? null : typeof value === 'string' ? value : (value.type ?? null);

/** `#machine.a.b` → `a.b` (the path below the root); the root itself is `(machine)`. */
function pathOf(id: string, rootId: string): string {
  const bare = id.startsWith('#') ? id.slice(1) : id;
  return bare === rootId ? '(machine)' : bare.startsWith(`${rootId}.`) ? bare.slice(rootId.length + 1) : bare;
}

/** Event names as people read them: XState's done/error events by the actor (its `src`) they belong to. */
function eventLabel(eventType: string | null, invokes: readonly { src: string; id: string }[] = []): string {
  if (eventType === null || eventType === '') return '(always)';
  const srcOf = (id: string) => invokes.find((entry) => entry.id === id)?.src ?? id;
  const done = /^xstate\.done\.actor\.(.+)$/.exec(eventType);
  if (done) return `done: ${srcOf(done[1]!)}`;
  const error = /^xstate\.error\.actor\.(.+)$/.exec(eventType);
  if (error) return `error: ${srcOf(error[1]!)}`;
  const state = /^xstate\.done\.state\.(.+)$/.exec(eventType);
  if (state) return `done: ${state[1]}`;
  return eventType;
}

function visit(node: StateNodeJson, rootId: string, rows: TransitionRow[]): void {
  const state = pathOf(node.id, rootId);
  const transitions = [
    ...(node.always ?? []).map((t) => ({ ...t, eventType: null })),
    ...Object.values(node.on ?? {}).flat(),
  ];
  for (const transition of transitions) {
    rows.push({
      state,
      event: eventLabel(transition.eventType, node.invoke),
      guard: nameOf(transition.guard),
      targets: (transition.target ?? []).map((target) =>
        pathOf(typeof target === 'string' ? target : `#${target.id}`, rootId),
      ),
      actions: (transition.actions ?? [])
        .map((action) => nameOf(action) ?? '?')
        .filter((name) => !name.startsWith('xstate.')),
    });
  }
  for (const child of Object.values(node.states)) visit(child, rootId, rows);
}

/** A machine as XState hands it out: its JSON definition and its root state node. */
interface MachineLike {
  root: unknown;
  toJSON(): unknown;
}

interface LiveStateNode {
  id: string;
  states: Record<string, LiveStateNode>;
  always?: { guard?: string | { type: string }; target?: { id: string }[]; actions?: (string | { type: string })[] }[];
}

/**
 * A machine's definition for the renderers below: its JSON, with the eventless (`always`)
 * transitions added, which XState's `toJSON()` leaves out.
 */
export function machineDefinition(machine: MachineLike): unknown {
  const json = machine.toJSON() as StateNodeJson;
  const merge = (live: LiveStateNode, node: StateNodeJson) => {
    if (live.always?.length) {
      node.always = live.always.map((t) => ({
        eventType: null,
        source: `#${live.id}`,
        guard: t.guard,
        target: (t.target ?? []).map((target) => `#${target.id}`),
        actions: t.actions ?? [],
      }));
    }
    for (const [key, child] of Object.entries(live.states)) if (node.states[key]) merge(child, node.states[key]);
  };
  merge(machine.root as LiveStateNode, json);
  return json;
}

/** Every transition of a machine definition, state by state, in definition order. */
export function transitionTable(definition: unknown): TransitionRow[] {
  const root = definition as StateNodeJson;
  const rows: TransitionRow[] = [];
  visit(root, root.id, rows);
  return rows;
}

/** Every state path of a machine definition with its type, in definition order. */
export function stateList(definition: unknown): { path: string; type: string; invokes: string[] }[] {
  const root = definition as StateNodeJson;
  const out: { path: string; type: string; invokes: string[] }[] = [];
  const walk = (node: StateNodeJson) => {
    if (node !== root)
      out.push({
        path: pathOf(node.id, root.id),
        type: node.type,
        invokes: (node.invoke ?? []).map((entry) => entry.src),
      });
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(root);
  return out;
}

const mermaidId = (path: string) => path.replace(/[^A-Za-z0-9_]/g, '_');

/** The machine as a Mermaid `stateDiagram-v2`: nested and parallel states, events and guards on the arrows. */
export function toMermaid(definition: unknown): string {
  const root = definition as StateNodeJson;
  const lines = ['stateDiagram-v2'];
  const declare = (node: StateNodeJson, indent: string) => {
    const children = Object.values(node.states);
    const first = node.initial?.target[0];
    const initial = first === undefined ? undefined : typeof first === 'string' ? first : `#${first.id}`;
    if (initial && node.type !== 'parallel') lines.push(`${indent}[*] --> ${mermaidId(pathOf(initial, root.id))}`);
    children.forEach((child, index) => {
      const id = mermaidId(pathOf(child.id, root.id));
      if (Object.keys(child.states).length > 0) {
        lines.push(`${indent}state "${child.key}" as ${id} {`);
        declare(child, `${indent}  `);
        lines.push(`${indent}}`);
      } else {
        lines.push(`${indent}state "${child.key}" as ${id}`);
        if (child.type === 'final') lines.push(`${indent}${id} --> [*]`);
      }
      if (node.type === 'parallel' && index < children.length - 1) lines.push(`${indent}--`);
    });
  };
  declare(root, '  ');
  for (const row of transitionTable(definition)) {
    if (row.state === '(machine)') continue;
    for (const target of row.targets) {
      const label = row.guard ? `${row.event} [${row.guard}]` : row.event;
      lines.push(`  ${mermaidId(row.state)} --> ${mermaidId(target)} : ${label.replace(/:/g, '∶')}`);
    }
  }
  return lines.join('\n');
}

/** The machine as Markdown: its states and its transition table. */
export function toMarkdown(name: string, definition: unknown): string {
  const states = stateList(definition)
    .map(
      (state) => `| \`${state.path}\` | ${state.type} | ${state.invokes.map((src) => `\`${src}\``).join(', ') || ''} |`,
    )
    .join('\n');
  const transitions = transitionTable(definition)
    .map(
      (row) =>
        `| \`${row.state}\` | \`${row.event}\` | ${row.guard ? `\`${row.guard}\`` : ''} | ${row.targets.map((t) => `\`${t}\``).join(', ') || '(stays)'} | ${row.actions.map((a) => `\`${a}\``).join(', ')} |`,
    )
    .join('\n');
  return [
    `## \`${name}\``,
    '',
    '```mermaid',
    toMermaid(definition),
    '```',
    '',
    '| state | type | runs |',
    '|---|---|---|',
    states,
    '',
    '| from | event | guard | to | actions |',
    '|---|---|---|---|---|',
    transitions,
    '',
  ].join('\n');
}

const xml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The machine as SCXML-like XML: `<state>`, `<parallel>`, `<final>` and `<transition event cond target>`, for tools that read statecharts. */
export function toScxml(name: string, definition: unknown): string {
  const root = definition as StateNodeJson;
  const rows = transitionTable(definition);
  const lines = [
    `<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0" name="${xml(name)}"${initialAttr(root, root.id)}>`,
  ];
  const emit = (node: StateNodeJson, indent: string) => {
    const path = pathOf(node.id, root.id);
    const tag = node.type === 'parallel' ? 'parallel' : node.type === 'final' ? 'final' : 'state';
    lines.push(`${indent}<${tag} id="${xml(path)}"${node.type === 'parallel' ? '' : initialAttr(node, root.id)}>`);
    for (const src of (node.invoke ?? []).map((entry) => entry.src))
      lines.push(`${indent}  <invoke type="${xml(src)}"/>`);
    for (const row of rows.filter((r) => r.state === path)) {
      const cond = row.guard ? ` cond="${xml(row.guard)}"` : '';
      const target = row.targets.length ? ` target="${xml(row.targets.join(' '))}"` : '';
      lines.push(`${indent}  <transition event="${xml(row.event)}"${cond}${target}/>`);
    }
    for (const child of Object.values(node.states)) emit(child, `${indent}  `);
    lines.push(`${indent}</${tag}>`);
  };
  for (const child of Object.values(root.states)) emit(child, '  ');
  lines.push('</scxml>');
  return lines.join('\n');
}

function initialAttr(node: StateNodeJson, rootId: string): string {
  const first = node.initial?.target[0];
  if (first === undefined) return '';
  return ` initial="${xml(pathOf(typeof first === 'string' ? first : `#${first.id}`, rootId))}"`;
}
