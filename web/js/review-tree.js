// A review's game tree on the page (docs/api.md, "The tree"): the server's JSON, its ops applied
// with the server's own semantics (so an op the room sends and one made while exploring alone
// change a copy the same way), and each node's board replayed with captures and simple ko.

const COLUMNS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ';
const KINDS = ['TR', 'SQ', 'CR', 'MA'];
const LINES = ['AR', 'LN'];
const LIMITS = { comment: 4000, label: 8, name: 100 };

/** A refusal with the server's code, so the page says it in its language. */
export class TreeError extends Error {
  constructor(code, args = {}, message = code) {
    super(message);
    this.code = code;
    this.args = args;
  }
}

const emptyMarkup = () => ({ TR: [], SQ: [], CR: [], MA: [], LB: [], AR: [], LN: [] });

export class ReviewTree {
  /** @param {{version, size, root, next_id, nodes}} json the server's tree */
  constructor(json) {
    this.version = json.version ?? 0;
    this.size = json.size;
    this.root = json.root ?? 0;
    this.nextId = json.next_id;
    this.nodes = new Map();
    for (const n of json.nodes) {
      this.nodes.set(n.id, {
        ...n,
        children: [...n.children],
        setup: { AB: [], AW: [], AE: [], ...(n.setup || {}) },
        markup: { ...emptyMarkup(), ...(n.markup || {}) },
        comment: n.comment || '',
        name: n.name || '',
      });
    }
    if (this.nextId === undefined) this.nextId = Math.max(0, ...this.nodes.keys()) + 1;
    this.boards = new Map(); // id → {grid, ko}: a node's position never changes once made
  }

  /** The tree as the server writes it (what a copy starts from). */
  toJSON() {
    return { version: this.version, size: this.size, root: this.root, next_id: this.nextId, nodes: [...this.nodes.values()] };
  }

  /** An independent copy (exploring alone). */
  clone() {
    return new ReviewTree(JSON.parse(JSON.stringify(this.toJSON())));
  }

  get columns() {
    return COLUMNS.slice(0, this.size.cols);
  }

  node(id) {
    return this.nodes.get(id) ?? null;
  }

  /** The ids from the root to `id`. */
  path(id) {
    const out = [];
    for (let n = this.node(id); n; n = n.parent === null ? null : this.node(n.parent)) out.push(n.id);
    return out.reverse();
  }

  /** The node's line to its end along first children. */
  lineEnd(id) {
    let n = this.node(id);
    while (n && n.children.length) n = this.node(n.children[0]);
    return n ? n.id : id;
  }

  /** The child of `parent` that plays `color` at `point`, if any. */
  childWith(parent, color, point) {
    const p = this.node(parent);
    if (!p) return null;
    return p.children.map((c) => this.node(c)).find((c) => c?.move && c.move.color === color && c.move.point === point) ?? null;
  }

  /** Who plays after node `id`: the other colour than the last move on its path, else `first`. */
  toMove(id, first = 'B') {
    for (const k of this.path(id).reverse()) {
      const m = this.node(k).move;
      if (m) return m.color === 'B' ? 'W' : 'B';
    }
    return first;
  }

  /** {x, y} of a point name (row 1 at the bottom), or null when off the board or unreadable. */
  parse(name) {
    if (typeof name !== 'string' || name.length < 2) return null;
    const x = this.columns.indexOf(name[0].toUpperCase());
    const row = Number(name.slice(1));
    if (x < 0 || !Number.isInteger(row) || row < 1 || row > this.size.rows) return null;
    return { x, y: this.size.rows - row };
  }

  name(x, y) {
    return `${this.columns[x]}${this.size.rows - y}`;
  }

  /** The position after node `id`: rows top first ('.', 'B', 'W') and the simple-ko point. */
  board(id) {
    const hit = this.boards.get(id);
    if (hit) return hit;
    // The nodes above without a board yet, made from the top down (a long line is no deep recursion).
    const todo = [];
    for (let k = id; k !== null && !this.boards.has(k); k = this.node(k).parent) todo.push(k);
    for (const k of todo.reverse()) this.boards.set(k, this.#after(k));
    return this.boards.get(id);
  }

  /** The position after node `id`, its parent's known. */
  #after(id) {
    const n = this.node(id);
    const { cols, rows } = this.size;
    const before = n.parent === null ? { grid: Array.from({ length: rows }, () => '.'.repeat(cols)), ko: null } : this.boards.get(n.parent);
    const g = before.grid.map((r) => r.split(''));
    for (const [k, c] of [['AB', 'B'], ['AW', 'W'], ['AE', '.']]) {
      for (const p of n.setup[k] || []) {
        const q = this.parse(p);
        if (q) g[q.y][q.x] = c;
      }
    }
    let ko = null;
    if (n.move && n.move.point !== 'pass') {
      const q = this.parse(n.move.point);
      if (q) ko = play(g, q, n.move.color).ko;
    }
    return { grid: g.map((r) => r.join('')), ko: ko ? this.name(ko.x, ko.y) : null };
  }

  /** Why `color` may not play `point` after node `parent` (a TreeError), or null when it may. */
  illegal(parent, color, point) {
    if (point === 'pass') return null;
    const q = this.parse(point);
    if (!q) return new TreeError('review.off_board', { point });
    const b = this.board(parent);
    if (b.grid[q.y][q.x] !== '.') return new TreeError('review.illegal', { point }, 'occupied');
    if (b.ko === point && this.node(parent).move?.color !== color) return new TreeError('review.illegal', { point }, 'ko');
    const g = b.grid.map((r) => r.split(''));
    if (play(g, q, color).suicide) return new TreeError('review.illegal', { point }, 'suicide');
    return null;
  }

  /**
   * Applies one op as the server does; answers {node} (the move's node). Throws a TreeError
   * (nothing changed) when the server would refuse it. `version` goes up by one for a change.
   */
  apply(op) {
    if (!op || typeof op !== 'object') throw new TreeError('review.op');
    const n = op.op === 'move' ? this.node(op.parent) : this.node(op.node);
    if (!n) throw new TreeError('review.no_node', { node: op.op === 'move' ? op.parent : op.node });
    const point = (p) => {
      if (!this.parse(p)) throw new TreeError('review.off_board', { point: p });
      return p;
    };
    switch (op.op) {
      case 'move': {
        if (op.color !== 'B' && op.color !== 'W') throw new TreeError('review.op');
        if (op.point !== 'pass') point(op.point);
        const same = this.childWith(n.id, op.color, op.point);
        if (same) return { node: same.id, existing: true };
        const why = this.illegal(n.id, op.color, op.point);
        if (why) throw why;
        // The server names the node (a remote op carries it); a local one takes the next id.
        const id = Number.isInteger(op.node) && !this.nodes.has(op.node) ? op.node : this.nextId;
        this.nextId = Math.max(this.nextId, id + 1);
        this.nodes.set(id, { id, parent: n.id, children: [], number: n.number + 1, move: { color: op.color, point: op.point }, setup: { AB: [], AW: [], AE: [] }, comment: '', name: '', markup: emptyMarkup() });
        n.children.push(id);
        this.version++;
        return { node: id };
      }
      case 'delete': {
        if (n.parent === null) throw new TreeError('review.root');
        const p = this.node(n.parent);
        p.children = p.children.filter((c) => c !== n.id);
        const drop = [n.id];
        while (drop.length) {
          const k = drop.pop();
          drop.push(...this.node(k).children);
          this.nodes.delete(k);
          this.boards.delete(k);
        }
        break;
      }
      case 'promote': {
        if (n.parent === null) throw new TreeError('review.root');
        const p = this.node(n.parent);
        if (p.children[0] === n.id) return { node: n.id, unchanged: true };
        p.children = [n.id, ...p.children.filter((c) => c !== n.id)];
        break;
      }
      case 'comment':
        n.comment = text(op.text, LIMITS.comment, 'review.comment_too_long', true);
        break;
      case 'name':
        n.name = text(op.text, LIMITS.name, 'review.name', false);
        break;
      case 'mark': {
        if (!KINDS.includes(op.kind)) throw new TreeError('review.op');
        const p = point(op.point);
        const had = n.markup[op.kind].includes(p);
        if (had === (op.on !== false)) return { node: n.id, unchanged: true };
        n.markup[op.kind] = had ? n.markup[op.kind].filter((q) => q !== p) : [...n.markup[op.kind], p];
        break;
      }
      case 'label': {
        const p = point(op.point);
        const t = text(op.text, LIMITS.label, 'review.label', false);
        const list = n.markup.LB.filter(([q]) => q !== p);
        if (!t && list.length === n.markup.LB.length) return { node: n.id, unchanged: true };
        n.markup.LB = t ? [...list, [p, t]] : list;
        break;
      }
      case 'line': {
        if (!LINES.includes(op.kind)) throw new TreeError('review.op');
        const [a, b] = [point(op.from), point(op.to)];
        if (a === b) throw new TreeError('review.line', { point: a });
        const had = n.markup[op.kind].some(([p, q]) => p === a && q === b);
        if (had === (op.on !== false)) return { node: n.id, unchanged: true };
        n.markup[op.kind] = had ? n.markup[op.kind].filter(([p, q]) => !(p === a && q === b)) : [...n.markup[op.kind], [a, b]];
        break;
      }
      default:
        throw new TreeError('review.op');
    }
    this.version++;
    return { node: n.id };
  }

  /** A tree of one line from a review's summary (`GET /api/reviews/{id}`: its main line). */
  static fromSummary(d) {
    const nodes = [{ id: 0, parent: null, children: d.moves.length ? [1] : [], number: 0, move: null, setup: { AB: d.setup.black, AW: d.setup.white, AE: [] }, comment: d.comment || '' }];
    d.moves.forEach((m, i) => nodes.push({ id: i + 1, parent: i, children: i + 1 < d.moves.length ? [i + 2] : [], number: i + 1, move: { color: m.color, point: m.move }, comment: m.comment || '' }));
    return new ReviewTree({ version: 0, size: d.size, root: 0, next_id: nodes.length, nodes });
  }
}

/** A comment, name or label's text as the server takes it: capped, no control characters. */
function text(v, max, code, lines) {
  const s = String(v ?? '');
  if ([...s].length > max) throw new TreeError(code, { max });
  const bad = lines ? /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/ : /[\u0000-\u001f\u007f-\u009f]/;
  if (bad.test(s)) throw new TreeError('review.text');
  return s;
}

/** The chain through q on grid g and its liberties. */
function chain(g, q) {
  const c = g[q.y][q.x];
  const seen = new Set([`${q.x},${q.y}`]);
  const stones = [q];
  let libs = 0;
  const libSeen = new Set();
  for (let i = 0; i < stones.length; i++) {
    const { x, y } = stones[i];
    for (const [nx, ny] of [[x - 1, y], [x + 1, y], [x, y - 1], [x, y + 1]]) {
      if (ny < 0 || ny >= g.length || nx < 0 || nx >= g[0].length) continue;
      const k = `${nx},${ny}`;
      if (g[ny][nx] === '.') {
        if (!libSeen.has(k)) {
          libSeen.add(k);
          libs++;
        }
      } else if (g[ny][nx] === c && !seen.has(k)) {
        seen.add(k);
        stones.push({ x: nx, y: ny });
      }
    }
  }
  return { stones, libs };
}

/**
 * Plays `color` at q on grid g (changed in place): the other side's chains without liberties
 * go; then the own chain without liberties goes too (a record may hold a suicide). Answers the
 * simple-ko point (one stone taken by a lone stone left in atari) and whether it was a suicide.
 */
function play(g, q, color) {
  const other = color === 'B' ? 'W' : 'B';
  g[q.y][q.x] = color;
  const taken = [];
  for (const [nx, ny] of [[q.x - 1, q.y], [q.x + 1, q.y], [q.x, q.y - 1], [q.x, q.y + 1]]) {
    if (ny < 0 || ny >= g.length || nx < 0 || nx >= g[0].length || g[ny][nx] !== other) continue;
    const ch = chain(g, { x: nx, y: ny });
    if (ch.libs > 0) continue;
    for (const s of ch.stones) {
      taken.push(s);
      g[s.y][s.x] = '.';
    }
  }
  const own = chain(g, q);
  if (own.libs === 0) {
    for (const s of own.stones) g[s.y][s.x] = '.';
    return { ko: null, suicide: true };
  }
  const ko = taken.length === 1 && own.stones.length === 1 && own.libs === 1 ? taken[0] : null;
  return { ko, suicide: false };
}
