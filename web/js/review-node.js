// The engine on any node of a review's tree (docs/api.md, "The engine on any node"): one search
// of a branch's position asked for on demand, polled until the server has it, kept per node.

import { call } from './api.js';

const enc = encodeURIComponent;

/** An answer's position figures, whichever way the server wraps them; null while it waits. */
function figures(a) {
  if (!a) return null;
  if (typeof a.winrate === 'number') return a;
  for (const k of ['analysis', 'position', 'result']) if (a[k] && typeof a[k].winrate === 'number') return a[k];
  return null;
}

export class NodeEngine {
  /** @param {string} id the review; @param {() => void} changed called when an answer comes */
  constructor(id, changed) {
    this.id = id;
    this.changed = changed;
    this.done = new Map(); // node → figures
    this.status = new Map(); // node → 'queued' | 'running' | {code, args, message}
  }

  get(node) {
    return this.done.get(node) ?? null;
  }

  state(node) {
    return this.status.get(node) ?? null;
  }

  /** Asks for node's search (once) and polls until it is there. */
  async start(node) {
    if (this.done.has(node) || typeof this.status.get(node) === 'string') return;
    this.status.set(node, 'queued');
    this.changed();
    try {
      this.#take(node, await call('POST', `/api/reviews/${enc(this.id)}/nodes/${node}/analysis`));
    } catch (e) {
      this.status.set(node, e);
      this.changed();
    }
  }

  #take(node, a) {
    const f = figures(a);
    if (f) {
      this.done.set(node, f);
      this.status.delete(node);
    } else {
      this.status.set(node, a?.status === 'running' ? 'running' : 'queued');
      setTimeout(() => this.#poll(node), 1000);
    }
    this.changed();
  }

  async #poll(node) {
    try {
      this.#take(node, await call('GET', `/api/reviews/${enc(this.id)}/nodes/${node}/analysis`));
    } catch (e) {
      this.status.set(node, e);
      this.changed();
    }
  }
}
