// The inspector page: asks for the admin key (kept for this tab only), then shows the live actors
// and one actor at a time. `#actor=<id>` in the address opens that actor.

import { createApi } from './api.js';
import { ActorList } from './actor-list.js';
import { ActorView } from './actor-view.js';

const KEY = 'svc-admin-key';
const form = document.getElementById('key-form');
const status = document.getElementById('key-status');

async function start(key) {
  const api = createApi(key);
  let machines;
  try {
    machines = await api.get('/admin/v1/machines');
  } catch (err) {
    status.textContent =
      err.status === 401 ? 'That key is not the admin key.' : `Cannot reach the admin API: ${err.message}`;
    sessionStorage.removeItem(KEY);
    return;
  }
  sessionStorage.setItem(KEY, key);
  status.textContent = 'Connected';
  const select = document.getElementById('filter-machine');
  for (const name of Object.keys(machines.data).sort()) select.append(new Option(name, name));
  const view = new ActorView(api);
  const open = (id) => {
    history.replaceState(null, '', `#actor=${encodeURIComponent(id)}`);
    view.open(id).catch((err) => {
      status.textContent = `Cannot open ${id}: ${err.message}`;
    });
  };
  const list = new ActorList(api, open);
  document.getElementById('app').hidden = false;
  await list.reload();
  const wanted = new URLSearchParams(location.hash.slice(1)).get('actor');
  if (wanted) void list.openById(wanted);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void start(document.getElementById('admin-key').value);
});
const saved = sessionStorage.getItem(KEY);
if (saved) void start(saved);
