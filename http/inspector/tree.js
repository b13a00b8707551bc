// The context as a collapsible tree: <details> per object, so the keyboard opens and closes it.

const MAX_CHILDREN = 200;

function leaf(value) {
  const span = document.createElement('span');
  span.className = 'value';
  span.textContent =
    typeof value === 'string' ? JSON.stringify(value.length > 500 ? `${value.slice(0, 500)}…` : value) : String(value);
  return span;
}

function node(key, value, depth) {
  const li = document.createElement('li');
  const label = document.createElement('span');
  label.className = 'key';
  label.textContent = `${key}: `;
  if (value === null || typeof value !== 'object') {
    li.append(label, leaf(value));
    return li;
  }
  const details = document.createElement('details');
  details.open = depth < 1;
  const summary = document.createElement('summary');
  const entries = Object.entries(value);
  summary.append(label, document.createTextNode(Array.isArray(value) ? `[${value.length}]` : `{${entries.length}}`));
  details.append(summary, list(entries, depth + 1));
  li.append(details);
  return li;
}

function list(entries, depth) {
  const ul = document.createElement('ul');
  for (const [key, value] of entries.slice(0, MAX_CHILDREN)) ul.append(node(key, value, depth));
  if (entries.length > MAX_CHILDREN)
    ul.append(Object.assign(document.createElement('li'), { textContent: `… ${entries.length - MAX_CHILDREN} more` }));
  return ul;
}

/** Renders `value` into `container` as a tree. */
export function renderTree(container, value) {
  container.replaceChildren(value && typeof value === 'object' ? list(Object.entries(value), 0) : leaf(value));
}
