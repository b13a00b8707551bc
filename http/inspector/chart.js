// The statechart drawn from a machine's definition: nested and parallel states as nested boxes,
// transitions as labelled arrows (event and guard), laid out by elkjs (the global ELK that
// /inspector/elk.js defines), the active states highlighted.

const SVG = 'http://www.w3.org/2000/svg';
const CHAR_W = 6.5;
const ROOT = '(machine)';

const parentOf = (path) => (path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : ROOT);
const labelOf = (row) => (row.guard ? `${row.event} [${row.guard}]` : row.event);

/** The ELK graph of a machine: states (with their types) and transition rows as the export gives them. */
function graphOf(machine) {
  const nodes = new Map([[ROOT, { id: ROOT, children: [], edges: [], layoutOptions: {} }]]);
  for (const state of machine.states) {
    const key = state.path.split('.').at(-1);
    nodes.set(state.path, {
      id: state.path,
      type: state.type,
      labels: [{ text: key, width: key.length * CHAR_W, height: 14 }],
      width: Math.max(60, key.length * CHAR_W + 20),
      height: 30,
      children: [],
      edges: [],
    });
  }
  for (const state of machine.states) nodes.get(parentOf(state.path))?.children.push(nodes.get(state.path));
  for (const node of nodes.values()) {
    if (node.children.length > 0 && node.id !== ROOT)
      node.layoutOptions = { 'elk.padding': '[top=28,left=12,bottom=12,right=12]' };
    if (node.children.length > 0) {
      delete node.width;
      delete node.height;
    }
  }
  let n = 0;
  const root = nodes.get(ROOT);
  for (const row of machine.transitions) {
    if (row.state === ROOT || !nodes.has(row.state)) continue;
    for (const target of row.targets) {
      if (!nodes.has(target)) continue;
      const text = labelOf(row);
      root.edges.push({
        id: `e${n++}`,
        sources: [row.state],
        targets: [target],
        labels: [{ text, width: text.length * CHAR_W * 0.85, height: 12 }],
      });
    }
  }
  root.layoutOptions = {
    'elk.algorithm': 'layered',
    'elk.direction': 'DOWN',
    'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
    'elk.edgeLabels.inline': 'false',
    'elk.layered.spacing.nodeNodeBetweenLayers': '40',
    'elk.spacing.edgeLabel': '4',
  };
  return root;
}

const el = (name, attrs = {}) => {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
};

/** A laid-out machine, drawn once; `highlight` marks the active states without a new layout. */
export class Chart {
  constructor(container) {
    this.container = container;
    this.boxes = new Map();
    this.machine = null;
  }

  /** Lays `machine` out and draws it (once per machine). */
  async draw(machine) {
    if (this.machine === machine.name) return;
    this.machine = machine.name;
    const laid = await new globalThis.ELK().layout(graphOf(machine));
    const svg = el('svg', {
      width: laid.width + 20,
      height: laid.height + 20,
      viewBox: `-10 -10 ${laid.width + 20} ${laid.height + 20}`,
    });
    const defs = el('defs');
    const marker = el('marker', {
      id: 'arrow',
      viewBox: '0 0 10 10',
      refX: 10,
      refY: 5,
      markerWidth: 7,
      markerHeight: 7,
      orient: 'auto-start-reverse',
    });
    marker.append(el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#57606a' }));
    defs.append(marker);
    svg.append(defs);
    const offsets = new Map([[ROOT, { x: 0, y: 0 }]]);
    this.boxes.clear();
    const drawNode = (node, ox, oy) => {
      const x = ox + node.x;
      const y = oy + node.y;
      offsets.set(node.id, { x, y });
      const group = el('g', {
        class: ['node', node.type, node.children?.length ? 'compound' : ''].join(' '),
        'data-path': node.id,
      });
      group.append(el('rect', { x, y, width: node.width, height: node.height }));
      const title = el('text', { x: x + 8, y: y + (node.children?.length ? 16 : node.height / 2 + 4) });
      title.textContent = node.labels?.[0]?.text ?? node.id;
      group.append(title);
      svg.append(group);
      this.boxes.set(node.id, group);
      for (const child of node.children ?? []) drawNode(child, x, y);
    };
    for (const child of laid.children ?? []) drawNode(child, 0, 0);
    for (const edge of laid.edges ?? []) {
      // Edge coordinates are relative to the node ELK put the edge in (its container).
      const base = offsets.get(edge.container ?? ROOT) ?? { x: 0, y: 0 };
      const group = el('g', { class: 'edge' });
      for (const section of edge.sections ?? []) {
        const points = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint];
        group.append(
          el('path', { d: points.map((p, i) => `${i ? 'L' : 'M'}${base.x + p.x},${base.y + p.y}`).join(' ') }),
        );
      }
      for (const label of edge.labels ?? []) {
        const text = el('text', { x: base.x + label.x, y: base.y + label.y + 10 });
        text.textContent = label.text;
        group.append(text);
      }
      svg.append(group);
    }
    this.container.replaceChildren(svg);
  }

  /** Marks the states of `paths` (and their ancestors) active. */
  highlight(paths) {
    for (const [path, group] of this.boxes) {
      const active = paths.some((p) => p === path || p.startsWith(`${path}.`));
      group.classList.toggle('active', active);
    }
  }
}
