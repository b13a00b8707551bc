// One actor: its chart with the current state highlighted, context, history (time travel through
// the persisted steps), its log, a realtime call's turn timeline, exports; live over SSE.

import { Chart } from './chart.js';
import { renderTree } from './tree.js';

const $ = (id) => document.getElementById(id);

/** The right pane. */
export class ActorView {
  constructor(api) {
    this.api = api;
    this.chart = new Chart($('chart'));
    this.machines = new Map();
    this.steps = new Map();
    this.viewing = null;
    this.stop = null;
    this.actor = null;
    $('history').addEventListener('keydown', (event) => this.keys(event));
    $('live-button').addEventListener('click', () => this.live());
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && this.viewing !== null) this.live();
    });
    for (const button of document.querySelectorAll('[data-export]'))
      button.addEventListener('click', () => void this.export(button.dataset.export));
  }

  async machine(name) {
    let machine = this.machines.get(name);
    if (!machine)
      this.machines.set(name, (machine = await this.api.get(`/admin/v1/machines/${encodeURIComponent(name)}`)));
    return machine;
  }

  /** Opens `id`: follows it live first, then reads its history, so no step falls between. */
  async open(id) {
    this.stop?.abort();
    this.stop = new AbortController();
    this.steps.clear();
    this.viewing = null;
    $('history').replaceChildren();
    $('events').replaceChildren();
    $('export').hidden = true;
    const actor = await this.api.get(`/admin/v1/actors/${encodeURIComponent(id)}`);
    this.actor = actor;
    $('actor-pane').hidden = false;
    $('actor-title').textContent = actor.id;
    $('actor-facts').textContent = `${actor.machine} · account ${actor.owner_id} · node ${actor.node}`;
    this.setLive(actor.live);
    const signal = this.stop.signal;
    if (actor.durable)
      void this.api.stream(
        `/admin/v1/actors/${encodeURIComponent(id)}/events?stream=true`,
        (name, data) => this.streamed(name, data),
        signal,
      );
    try {
      const machine = await this.machine(actor.machine);
      await this.chart.draw(machine);
    } catch (err) {
      $('chart').textContent = `No chart: ${err.message}`;
    }
    await this.loadSteps(id);
    if (this.steps.size === 0) this.show({ state: actor.state, context: actor.snapshot?.context ?? {} });
    $('timeline-box').hidden = actor.machine !== 'realtime-call';
    if (actor.machine === 'realtime-call') await this.timeline();
  }

  async loadSteps(id) {
    let after = 0;
    for (;;) {
      const page = await this.api.get(`/admin/v1/actors/${encodeURIComponent(id)}/steps?after=${after}&limit=1000`);
      for (const step of page.data) this.addStep(step);
      if (!page.has_more) break;
      after = page.next_after;
    }
  }

  streamed(name, data) {
    if (name === 'event') this.addEvent(data);
    else if (name === 'step') {
      this.addStep(data);
      if (this.actor?.machine === 'realtime-call') void this.timeline();
    } else if (name === 'end') this.setLive(false);
  }

  setLive(live) {
    $('actor-live').textContent = live ? 'live' : 'finished';
  }

  addEvent(event) {
    const li = document.createElement('li');
    li.value = event.seq;
    li.textContent = `${event.type} ${JSON.stringify(event.data).slice(0, 160)}`;
    $('events').append(li);
  }

  addStep(step) {
    if (this.steps.has(step.step)) return;
    this.steps.set(step.step, step);
    const li = document.createElement('li');
    li.value = step.step;
    li.tabIndex = -1;
    li.role = 'option';
    li.dataset.step = String(step.step);
    li.textContent = `${step.cause ?? '(internal)'} → ${step.state.join(', ') || step.status}`;
    li.addEventListener('click', () => this.travel(step.step));
    // Steps can arrive out of order (stream and page race): keep them sorted.
    const after = [...$('history').children].find((other) => Number(other.dataset.step) > step.step);
    $('history').insertBefore(li, after ?? null);
    if (this.viewing === null && step.step === Math.max(...this.steps.keys())) this.show(step);
  }

  /** Shows `step` (state, context, highlight). */
  show(step) {
    $('current-state').textContent = step.state.join(', ') || step.status || '';
    this.chart.highlight(step.state);
    renderTree($('context'), step.context);
  }

  /** Time travel: the state and context after `number`, from the persisted history. */
  travel(number) {
    const step = this.steps.get(number);
    if (!step) return;
    const latest = Math.max(...this.steps.keys());
    this.viewing = number === latest ? null : number;
    for (const li of $('history').children)
      li.setAttribute('aria-selected', String(Number(li.dataset.step) === number));
    const item = $('history').querySelector(`[data-step="${number}"]`);
    item?.focus();
    this.show(step);
    $('viewing').textContent =
      this.viewing === null
        ? ''
        : `Viewing step ${number} of ${latest} (after ${step.cause ?? 'an internal event'}), not live`;
    $('live-button').hidden = this.viewing === null;
  }

  /** Back to the latest state. */
  live() {
    this.viewing = null;
    $('viewing').textContent = '';
    $('live-button').hidden = true;
    for (const li of $('history').children) li.setAttribute('aria-selected', 'false');
    const latest = this.steps.get(Math.max(...this.steps.keys()));
    if (latest) this.show(latest);
  }

  keys(event) {
    const numbers = [...this.steps.keys()].sort((a, b) => a - b);
    if (numbers.length === 0) return;
    const current = this.viewing ?? numbers.at(-1);
    const at = numbers.indexOf(current);
    if (event.key === 'ArrowUp' || event.key === 'ArrowLeft') this.travel(numbers[Math.max(0, at - 1)]);
    else if (event.key === 'ArrowDown' || event.key === 'ArrowRight')
      this.travel(numbers[Math.min(numbers.length - 1, at + 1)]);
    else if (event.key === 'Home') this.travel(numbers[0]);
    else if (event.key === 'End') this.live();
    else return;
    event.preventDefault();
  }

  async timeline() {
    const timeline = await this.api.get(`/admin/v1/actors/${encodeURIComponent(this.actor.id)}/timeline`);
    $('timeline').replaceChildren(
      ...timeline.data.map((mark) => {
        const li = document.createElement('li');
        li.className = mark.kind;
        li.textContent = `${new Date(mark.ts).toISOString().slice(11, 23)} ${mark.kind.replace('_', ' ')} ${mark.label}`;
        return li;
      }),
    );
  }

  async export(format) {
    if (!this.actor) return;
    const text = await this.api.text(`/admin/v1/machines/${encodeURIComponent(this.actor.machine)}?format=${format}`);
    const box = $('export');
    box.textContent = format === 'json' ? JSON.stringify(JSON.parse(text), null, 2) : text;
    box.hidden = false;
    box.focus();
  }
}
