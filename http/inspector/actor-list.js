// The list of live actors: filters, a page at a time (never all of them), rows updated live from
// /admin/v1/actors/stream, and search by id (Enter opens an id even when it is not in the page).

const PAGE = 50;

function describe(actor) {
  return `${actor.machine} · ${actor.state.join(', ') || actor.status} · ${actor.age_s}s`;
}

/** The left pane. `onSelect(id)` opens an actor. */
export class ActorList {
  constructor(api, onSelect) {
    this.api = api;
    this.onSelect = onSelect;
    this.list = document.getElementById('actor-list');
    this.more = document.getElementById('more');
    this.note = document.getElementById('list-note');
    this.total = document.getElementById('actor-total');
    this.form = document.getElementById('filters');
    this.rows = new Map();
    this.cursor = null;
    this.fresh = 0;
    this.stop = null;
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.reload();
    });
    document.getElementById('search').addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      event.preventDefault();
      const id = event.target.value.trim();
      if (id) void this.openById(id);
    });
    this.more.addEventListener('click', () => void this.page());
    this.list.addEventListener('keydown', (event) => this.arrows(event));
  }

  query() {
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(this.form))
      if (String(value).trim() !== '') params.set(name, String(value).trim());
    return params;
  }

  /** Reloads the first page with the filters and re-follows the live updates. */
  async reload() {
    this.rows.clear();
    this.list.replaceChildren();
    this.cursor = null;
    this.fresh = 0;
    await this.page();
    this.follow();
  }

  async page() {
    const params = this.query();
    params.set('limit', String(PAGE));
    if (this.cursor) params.set('cursor', this.cursor);
    try {
      const page = await this.api.get(`/admin/v1/actors?${params}`);
      for (const actor of page.data) this.row(actor);
      this.cursor = page.next_cursor;
      this.more.hidden = !page.has_more;
      this.total.textContent = `(${page.total})`;
      this.note.textContent = page.total === 0 ? 'No live actor matches.' : '';
    } catch (err) {
      this.note.textContent = `Cannot list actors: ${err.message}`;
    }
  }

  row(actor) {
    let item = this.rows.get(actor.id);
    if (!item) {
      item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.id = actor.id;
      button.addEventListener('click', () => this.select(actor.id));
      item.append(button);
      this.rows.set(actor.id, item);
      this.list.append(item);
    }
    const button = item.firstChild;
    const id = Object.assign(document.createElement('span'), { className: 'id', textContent: actor.id });
    const state = Object.assign(document.createElement('span'), {
      className: actor.done ? 'state done' : 'state',
      textContent: describe(actor),
    });
    button.replaceChildren(id, state);
  }

  select(id) {
    for (const [rowId, item] of this.rows) item.firstChild.setAttribute('aria-current', String(rowId === id));
    this.onSelect(id);
  }

  async openById(id) {
    try {
      const actor = await this.api.get(`/admin/v1/actors/${encodeURIComponent(id)}`);
      this.row({ ...actor, done: !actor.live });
      this.select(actor.id);
      this.rows.get(actor.id)?.firstChild.focus();
    } catch (err) {
      this.note.textContent = err.status === 404 ? `No actor ${id}.` : `Cannot open ${id}: ${err.message}`;
    }
  }

  /** Up and down move between rows. */
  arrows(event) {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const buttons = [...this.list.querySelectorAll('button')];
    const at = buttons.indexOf(document.activeElement);
    const next = buttons[at + (event.key === 'ArrowDown' ? 1 : -1)];
    if (next) {
      event.preventDefault();
      next.focus();
    }
  }

  /** Rows on screen follow their actors; actors not on screen are counted, not drawn. */
  follow() {
    this.stop?.abort();
    this.stop = new AbortController();
    const params = this.query();
    void this.api.stream(
      `/admin/v1/actors/stream?${params}`,
      (name, actor) => {
        if (name !== 'actor') return;
        if (this.rows.has(actor.id)) this.row(actor);
        else if (!actor.done) {
          this.fresh++;
          this.note.textContent = `${this.fresh} more started since; Apply to refresh.`;
        }
      },
      this.stop.signal,
    );
  }
}
