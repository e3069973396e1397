// A review room on the page (docs/api.md, "Review rooms"): the shared tree kept in step with the
// room's socket (its first message, then one op, cursor, control, watchers, chat or meta delta
// at a time), what this page sends (ops and the cursor over the socket, chat over HTTP), and
// the copy of the tree a viewer explores alone. The page draws; this file keeps the state and
// talks to the server.

import { call, reviewSocket, account } from './api.js';
import { ReviewTree, TreeError } from './review-tree.js';
import { t } from './i18n.js';

const enc = encodeURIComponent;

export class Room {
  /**
   * @param {string} id the review
   * @param {{changed: (what: string) => void}} hooks `what`: 'tree' | 'cursor' | 'people' | 'chat' | 'meta'
   */
  constructor(id, hooks) {
    this.id = id;
    this.hooks = hooks;
    this.shared = null; // the room's tree (ReviewTree)
    this.cursor = 0;
    this.owner = null;
    this.controller = null;
    this.you = null;
    this.watchers = 0;
    this.public = false;
    this.title = '';
    this.sourceGame = null;
    this.chat = [];
    this.alone = null; // {tree, node} while exploring alone
    this.live = false; // the socket has given the room
    this.ws = null;
    this.seq = 0;
    this.waiting = new Map(); // socket message id → {ok, fail, timer} of an op sent
    this.cursorTimer = null;
    this.provisional = false; // the shared tree is the summary's main line until the room's comes
    this.asked = false; // the tree was asked for over HTTP (no socket gave it)
    this.ready = new Promise((ok) => {
      this.isReady = ok;
    });
  }

  /**
   * Starts from the review's summary (`GET /api/reviews/{id}`): its main line drawn at once,
   * the room's whole tree from the socket's first message (over HTTP where no socket gives
   * it). `ready` resolves when the room's tree is there, or is known not to come.
   */
  start(summary) {
    Object.assign(this, pick(summary));
    this.you = account()?.name ?? null;
    this.shared = ReviewTree.fromSummary(summary);
    this.provisional = true;
    this.ws = reviewSocket(this.id, { onMessage: (m) => this.#message(m), onStatus: (s) => this.#status(s) });
  }

  /** The room's tree in place of the one held; 'remap' when it replaces the summary's line (other ids). */
  #replace(tree) {
    const remap = this.provisional;
    this.provisional = false;
    this.shared = tree;
    if (remap) this.alone = null;
    this.hooks.changed(remap ? 'remap' : 'tree');
    this.isReady();
  }

  /** The tree the page shows: the copy while exploring alone, else the shared one. */
  tree() {
    return this.alone ? this.alone.tree : this.shared;
  }

  /** Whether this page may change the shared board. */
  inControl() {
    return !!this.you && this.controller === this.you;
  }

  isOwner() {
    return !!this.you && this.owner === this.you;
  }

  /** Leaves the shared board with a copy of its tree, at `node`. */
  exploreAlone(node) {
    this.alone = { tree: this.shared.clone(), node };
    this.hooks.changed('tree');
  }

  /** Back to the shared board (its tree and the owner's cursor). */
  backToShared() {
    this.alone = null;
    this.hooks.changed('tree');
    this.hooks.changed('cursor');
  }

  /**
   * Makes one change: on the copy while alone (the same apply the room's deltas use), else on
   * the shared board (the controller only; the server answers the node a move made). Resolves
   * to the node the op touched; throws a TreeError or the server's ApiError.
   */
  async edit(op) {
    if (this.alone) {
      const r = this.alone.tree.apply(op);
      this.hooks.changed('tree');
      return r.node;
    }
    // Over the socket when it is open (its ack answers as the HTTP call does), else over HTTP.
    const ans = (await this.#send({ op })) ?? (await call('POST', `/api/reviews/${enc(this.id)}/ops`, { op }));
    // The socket may have brought the delta first; else this answer applies it.
    if (ans && ans.version > this.shared.version) this.#apply({ ...op, ...(ans.node !== undefined && op.op === 'move' ? { node: ans.node } : {}) }, ans.version);
    if (op.op === 'move') return ans?.node ?? this.shared.childWith(op.parent, op.color, op.point)?.id ?? null;
    return op.node;
  }

  /** Moves the shared cursor (the controller's page, whenever it goes to another node). */
  moveCursor(node) {
    if (!this.inControl() || this.alone || node === this.cursor) return;
    this.cursor = node;
    clearTimeout(this.cursorTimer);
    // A key held down sends the node it stops on, not every one it passes.
    this.cursorTimer = setTimeout(() => {
      if (this.ws?.send({ id: ++this.seq, cursor: node })) return;
      call('POST', `/api/reviews/${enc(this.id)}/cursor`, { node }).catch(() => {});
    }, 60);
  }

  /** A chat line (its echo comes back over the socket). */
  async say(text) {
    return call('POST', `/api/reviews/${enc(this.id)}/chat`, { text });
  }

  /** Gives control to `name` (the owner's name takes it back). */
  async give(name) {
    await call('POST', `/api/reviews/${enc(this.id)}/control`, { to: name });
    this.controller = name;
    this.hooks.changed('people');
  }

  async setMeta(meta) {
    const r = await call('PATCH', `/api/reviews/${enc(this.id)}`, meta);
    Object.assign(this, pick({ ...meta, ...(r || {}) }));
    this.hooks.changed('meta');
  }

  /** A copy of this review owned by this page's account; resolves to its id. */
  async fork() {
    return (await call('POST', `/api/reviews/${enc(this.id)}/fork`)).id;
  }

  /** Sends a change over the socket; its ack, or null when the socket is not open. */
  #send(body) {
    const id = ++this.seq;
    if (!this.live || !this.ws?.send({ id, ...body })) return Promise.resolve(null);
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        fail(new TreeError('network', {}, t('error.network')));
      }, 10000);
      this.waiting.set(id, { ok, fail, timer });
    });
  }

  #apply(op, v) {
    try {
      this.shared.apply(op);
      this.shared.version = v;
    } catch {
      // This copy and the room's differ: read the room's tree again.
      this.#resync();
      return;
    }
    this.hooks.changed('tree');
  }

  async #resync() {
    try {
      this.#replace(new ReviewTree(await call('GET', `/api/reviews/${enc(this.id)}/tree`)));
    } catch {
      // A server without trees keeps the record's main line (read-only); otherwise the next
      // delta or reconnection tries again.
      this.isReady();
    }
  }

  #status(s) {
    if (s === 'closed') this.live = false;
    // No socket gave the room's tree: read it over HTTP, once.
    if (s === 'closed' && this.provisional && !this.asked) {
      this.asked = true;
      this.#resync();
    }
    document.body.dataset.room = s;
  }

  #message(m) {
    switch (m.type) {
      case 'room':
        this.live = true;
        Object.assign(this, pick(m));
        this.cursor = m.cursor ?? 0;
        this.chat = m.chat || [];
        this.#replace(new ReviewTree({ ...m.tree, version: m.version ?? m.tree.version }));
        this.hooks.changed('people');
        this.hooks.changed('chat');
        this.hooks.changed('cursor');
        break;
      case 'op':
        if (m.v > this.shared.version) this.#apply(m.op, m.v);
        break;
      case 'cursor':
        // The controller's page moves the cursor itself: the echoes of its own moves are old news.
        if (this.inControl()) break;
        this.cursor = m.node;
        this.hooks.changed('cursor');
        break;
      case 'control':
        this.controller = m.controller;
        this.hooks.changed('people');
        break;
      case 'watchers':
        this.watchers = m.n;
        this.hooks.changed('people');
        break;
      case 'chat':
        this.chat = [...this.chat, m.line].slice(-200);
        this.hooks.changed('chat');
        break;
      case 'meta':
        Object.assign(this, pick(m));
        this.hooks.changed('meta');
        break;
      case 'ack':
      case 'error': {
        const w = this.waiting.get(m.id);
        if (!w) break; // a cursor move's answer: nothing to show
        this.waiting.delete(m.id);
        clearTimeout(w.timer);
        if (m.type === 'ack') w.ok(m);
        else w.fail(new TreeError(m.code, m.args || {}, m.message || m.code));
        break;
      }
      default:

    }
  }
}

/** The room's fields a message or summary carries (names as the server spells them). */
function pick(m) {
  const out = {};
  for (const [k, to] of [['owner', 'owner'], ['controller', 'controller'], ['you', 'you'], ['watchers', 'watchers'], ['public', 'public'], ['title', 'title'], ['source_game', 'sourceGame']]) {
    if (m[k] !== undefined) out[to] = m[k];
  }
  return out;
}
