// The Wall Go (벽바둑) board, drawn as seed 003's figures are: A red pieces, B blue pieces, walls dark
// grey, the newest wall orange, the start of the last move a dashed ring, destinations green dots,
// candidate walls orange dashes. A turn is picked in three clicks (piece, destination, wall side)
// from the state's `legal` list; the server judges the action.

const NS = 'http://www.w3.org/2000/svg';
const COLS = 'ABCDEFG';
const N = 7;

function el(name, attrs = {}, parent) {
  const e = document.createElementNS(NS, name);
  // A style goes through the CSSOM: the Content-Security-Policy refuses style attributes.
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'style') e.style.cssText = v;
    else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}

export function cellXY(name) {
  return { x: COLS.indexOf(name[0].toUpperCase()), y: parseInt(name.slice(1), 10) - 1 };
}

export function cellName(x, y) {
  return `${COLS[x]}${y + 1}`;
}

/** The segment of a cell side, e.g. D4/S, in board units. */
function sideSegment(cell, side) {
  const { x, y } = cellXY(cell);
  switch (side) {
    case 'N':
      return [x, y, x + 1, y];
    case 'S':
      return [x, y + 1, x + 1, y + 1];
    case 'W':
      return [x, y, x, y + 1];
    default:
      return [x + 1, y, x + 1, y + 1];
  }
}

/** Parses the legal list into placements, turns and passes. */
export function parseLegal(legal) {
  const place = new Set();
  const turns = [];
  const passes = new Set();
  for (const a of legal || []) {
    let m;
    if ((m = /^(?:place\s+)?([A-G][1-7])$/i.exec(a))) place.add(m[1].toUpperCase());
    else if ((m = /^([A-G][1-7])-([A-G][1-7])\/([NESW])$/i.exec(a)))
      turns.push({ from: m[1].toUpperCase(), to: m[2].toUpperCase(), side: m[3].toUpperCase(), action: a });
    else if ((m = /^([A-G][1-7])\s+pass$/i.exec(a))) passes.add(m[1].toUpperCase());
  }
  return { place, turns, passes };
}

/** The last turn in the record lines: {from, to, side} or null. */
export function lastTurn(moves) {
  for (let i = (moves || []).length - 1; i >= 0; i--) {
    const m = /([A-G][1-7])-([A-G][1-7])\/([NESW])/.exec(moves[i]);
    if (m) return { from: m[1], to: m[2], side: m[3] };
    const p = /place\s+(?:[AB]\s+)?([A-G][1-7])|^([A-G][1-7])$/.exec(moves[i]);
    if (p) return { placed: p[1] || p[2] };
    if (/pass/.test(moves[i])) return null;
  }
  return null;
}

export class WallBoard {
  /**
   * @param {HTMLElement} host
   * @param {{onAction: (a: string) => void, onStage: (stage: string, info: object) => void}} handlers
   */
  constructor(host, handlers) {
    this.host = host;
    this.handlers = handlers;
    this.sel = { from: null, to: null };
    this.cursor = null;
    this.svg = el('svg', { class: 'wallboard', viewBox: '-0.65 -0.65 7.95 7.95', tabindex: '0', role: 'grid' });
    host.appendChild(this.svg);
    this.svg.addEventListener('click', (e) => {
      const w = e.target.closest('[data-wall]');
      if (w) return this.#pickWall(w.dataset.wall);
      const c = this.#cellAt(e);
      if (c) this.#pickCell(cellName(c.x, c.y));
    });
    this.svg.addEventListener('keydown', (e) => this.#key(e));
    // The keyboard cursor appears with the first arrow key (redrawing on focus would swallow the
    // click that gave the focus).
    this.svg.addEventListener('blur', () => this.svg.querySelector('.cursor')?.remove());
  }

  /**
   * opts: {interactive, seat ('A'|'B'), showRegions, suggest}; suggest: a turn to draw as a
   * proposal (the review's engine: "B2-C3/E", "place C3", "B2 pass"), violet and dashed so it
   * reads apart from the played move's orange wall and dashed ring.
   */
  render(state, opts = {}) {
    const changed = !this.state || this.state.version !== state.version || this.state.id !== state.id;
    this.state = state;
    this.opts = opts;
    this.legal = parseLegal(opts.interactive ? state.legal : []);
    if (changed || !opts.interactive) this.sel = { from: null, to: null };
    this.#draw();
  }

  /** Drops the current selection (Escape, Cancel). */
  reset() {
    this.sel = { from: null, to: null };
    this.#draw();
  }

  /** The stage of the turn picker and what it offers, for the side panel. */
  stage() {
    const st = this.state;
    if (!st || !this.opts.interactive) return { stage: 'idle' };
    if (this.legal.place.size) return { stage: 'place' };
    if (!this.sel.from) return { stage: 'piece' };
    if (!this.sel.to) {
      const from = this.sel.from;
      // `stay`: the piece may end its turn on its own cell (the ring around it, or a button).
      const stay = this.legal.turns.some((t) => t.from === from && t.to === from);
      return { stage: 'dest', pass: this.legal.passes.has(from), stay, from };
    }
    const sides = this.legal.turns.filter((t) => t.from === this.sel.from && t.to === this.sel.to).map((t) => t.side);
    return { stage: 'wall', from: this.sel.from, to: this.sel.to, sides };
  }

  /** Plays one of the offered wall sides (the side panel's buttons). */
  chooseSide(side) {
    if (this.sel.from && this.sel.to) this.#pickWall(`${this.sel.to}/${side}`);
  }

  /** Keeps the chosen piece on its own cell: the wall choice comes next. */
  staySelected() {
    const from = this.sel.from;
    if (!from || this.sel.to || !this.legal.turns.some((t) => t.from === from && t.to === from)) return;
    this.sel.to = from;
    this.#draw();
  }

  passSelected() {
    if (this.sel.from && this.legal.passes.has(this.sel.from)) this.handlers.onAction(`${this.sel.from} pass`);
  }

  #movable() {
    const s = new Set(this.legal.turns.map((t) => t.from));
    for (const p of this.legal.passes) s.add(p);
    return s;
  }

  #pickCell(name) {
    if (!this.opts?.interactive) return;
    const L = this.legal;
    if (L.place.size) {
      // Placement: the server judges; an unlit cell still goes there and its message is shown.
      this.handlers.onAction(`place ${name}`);
      return;
    }
    const movable = this.#movable();
    if (this.sel.from && !this.sel.to && L.turns.some((t) => t.from === this.sel.from && t.to === name)) {
      this.sel.to = name;
    } else if (movable.has(name)) {
      this.sel = { from: name, to: null };
      // A piece whose only turn is to stay in place goes straight to the wall choice.
      const dests = new Set(L.turns.filter((t) => t.from === name).map((t) => t.to));
      if (dests.size === 1 && dests.has(name) && !L.passes.has(name)) this.sel.to = name;
    } else {
      this.sel = { from: null, to: null };
    }
    this.#draw();
  }

  #pickWall(wall) {
    const [to, side] = wall.split('/');
    if (!this.sel.from || to !== this.sel.to) return;
    this.handlers.onAction(`${this.sel.from}-${to}/${side}`);
  }

  #cellAt(e) {
    const pt = this.svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const m = this.svg.getScreenCTM();
    if (!m) return null;
    const p = pt.matrixTransform(m.inverse());
    const x = Math.floor(p.x);
    const y = Math.floor(p.y);
    if (x < 0 || y < 0 || x >= N || y >= N) return null;
    return { x, y };
  }

  #key(e) {
    if (!this.state) return;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (!this.opts?.interactive) return;
    if (moves[e.key] && !this.cursor) {
      this.cursor = { x: 3, y: 3 };
      this.#draw();
      e.preventDefault();
      return;
    }
    if (!this.cursor) return;
    if (moves[e.key]) {
      const [dx, dy] = moves[e.key];
      this.cursor = { x: Math.max(0, Math.min(N - 1, this.cursor.x + dx)), y: Math.max(0, Math.min(N - 1, this.cursor.y + dy)) };
      this.#draw();
      e.preventDefault();
      e.stopPropagation();
    } else if (e.key === 'Enter' || e.key === ' ') {
      this.#pickCell(cellName(this.cursor.x, this.cursor.y));
      e.preventDefault();
    } else if (e.key === 'Escape') {
      this.reset();
    } else if (/^[neswNESW]$/.test(e.key) && this.sel.to) {
      this.chooseSide(e.key.toUpperCase());
    }
  }

  #draw() {
    const st = this.state;
    if (!st) return;
    const svg = this.svg;
    svg.replaceChildren();
    const defs = el('defs', {}, svg);
    const pat = (id, bg, draw) => {
      const p = el('pattern', { id, width: 0.25, height: 0.25, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(0)' }, defs);
      el('rect', { width: 0.25, height: 0.25, fill: bg }, p);
      draw(p);
    };
    pat('rA', '#f6b3ad', (p) => el('path', { d: 'M0 0.25L0.25 0', stroke: '#c0392b', 'stroke-width': 0.035 }, p));
    pat('rB', '#a9c8f5', (p) => el('path', { d: 'M0 0L0.25 0.25', stroke: '#1f5fbf', 'stroke-width': 0.035 }, p));
    pat('rM', '#f7e08a', (p) => el('circle', { cx: 0.125, cy: 0.125, r: 0.035, fill: '#9a7b00' }, p));

    // Cells (and, at the end, the regions' colours).
    const kindOf = new Map();
    if (this.opts.showRegions && st.regions) for (const r of st.regions) for (const c of r.cells) kindOf.set(c, r.kind);
    const cells = el('g', { class: 'cells' }, svg);
    for (let y = 0; y < N; y++) {
      for (let x = 0; x < N; x++) {
        const name = cellName(x, y);
        const kind = kindOf.get(name);
        const fill = kind === 'A' ? 'url(#rA)' : kind === 'B' ? 'url(#rB)' : kind === 'mixed' ? 'url(#rM)' : kind === 'neutral' ? '#c9c9c9' : null;
        el('rect', { x: x + 0.02, y: y + 0.02, width: 0.96, height: 0.96, rx: 0.06, class: `cell${kind ? ` region-${kind}` : ''}`, 'data-cell': name, ...(fill ? { style: `fill:${fill}` } : {}) }, cells);
        if (kind) {
          // The kind as a letter too (colour-blind readers): A, B, M (mixed), N (neutral).
          const tx = el('text', { x: x + 0.1, y: y + 0.2, class: 'region-letter' }, cells);
          tx.textContent = { A: 'A', B: 'B', mixed: 'M', neutral: 'N' }[kind] || '?';
        }
      }
    }
    const labels = el('g', { class: 'coords', 'aria-hidden': 'true' }, svg);
    for (let i = 0; i < N; i++) {
      el('text', { x: i + 0.5, y: -0.32 }, labels).textContent = COLS[i];
      el('text', { x: -0.32, y: i + 0.5 }, labels).textContent = String(i + 1);
    }
    el('rect', { x: 0, y: 0, width: N, height: N, class: 'frame' }, svg);

    // Walls; the newest one orange.
    const last = lastTurn(st.last_move ? [st.last_move] : st.moves);
    const lastWall = last && last.to ? wallKey(last.to, last.side) : null;
    const walls = el('g', { class: 'walls' }, svg);
    for (const w of st.walls || []) {
      const [c, s] = w.split('/');
      const [x1, y1, x2, y2] = sideSegment(c, s);
      const isLast = wallKey(c, s) === lastWall;
      el('line', { x1, y1, x2, y2, class: `wall${isLast ? ' last' : ''}`, 'data-wall-set': w }, walls);
    }

    // Where the last move started: a dashed ring.
    if (last && last.from && last.from !== last.to) {
      const { x, y } = cellXY(last.from);
      el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.3, class: 'from-ring' }, svg);
    }

    const interactive = this.opts.interactive;
    const movable = interactive ? this.#movable() : new Set();
    const sel = this.sel;
    // Pieces.
    const pieces = el('g', { class: 'pieces' }, svg);
    for (const side of ['A', 'B']) {
      for (const c of st.pieces?.[side] || []) {
        if (sel.from === c && sel.to && sel.to !== c) continue; // drawn at its destination below
        drawPiece(pieces, c, side, {
          movable: movable.has(c) && !sel.from,
          selected: sel.from === c,
          last: last && (last.to === c || last.placed === c),
        });
      }
    }

    const lit = el('g', { class: 'lit' }, svg);
    if (interactive && this.legal.place.size) {
      for (const c of this.legal.place) {
        const { x, y } = cellXY(c);
        el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.13, class: 'dest', 'data-dest': c }, lit);
      }
    }
    if (interactive && sel.from && !sel.to) {
      const dests = new Set(this.legal.turns.filter((t) => t.from === sel.from).map((t) => t.to));
      for (const c of dests) {
        const { x, y } = cellXY(c);
        if (c === sel.from) el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.42, class: 'dest-ring', 'data-dest': c }, lit);
        else el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.13, class: 'dest', 'data-dest': c }, lit);
      }
    }
    if (interactive && sel.from && sel.to) {
      const side = (st.pieces?.A || []).includes(sel.from) ? 'A' : 'B';
      if (sel.to !== sel.from) {
        const { x, y } = cellXY(sel.from);
        el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.3, class: `from-ring ${side}` }, svg);
        drawPiece(pieces, sel.to, side, { selected: true });
      }
      const sides = this.legal.turns.filter((t) => t.from === sel.from && t.to === sel.to).map((t) => t.side);
      for (const s of sides) {
        const [x1, y1, x2, y2] = sideSegment(sel.to, s);
        const g = el('g', { class: 'cand', 'data-wall': `${sel.to}/${s}`, role: 'button', 'aria-label': `${sel.to}/${s}` }, svg);
        el('line', { x1, y1, x2, y2, class: 'cand-line' }, g);
        // A generous hit area (fingers), inside the destination cell.
        const { x, y } = cellXY(sel.to);
        const hit = { N: [x + 0.1, y - 0.12, 0.8, 0.34], S: [x + 0.1, y + 0.78, 0.8, 0.34], W: [x - 0.12, y + 0.1, 0.34, 0.8], E: [x + 0.78, y + 0.1, 0.34, 0.8] }[s];
        el('rect', { x: hit[0], y: hit[1], width: hit[2], height: hit[3], class: 'cand-hit' }, g);
      }
    }
    if (this.opts.suggest) drawSuggestion(svg, defs, st, this.opts.suggest);
    if (interactive && this.cursor && document.activeElement === svg) {
      el('rect', { x: this.cursor.x + 0.04, y: this.cursor.y + 0.04, width: 0.92, height: 0.92, rx: 0.08, class: 'cursor' }, svg);
    }
    this.handlers.onStage?.(this.stage());
  }
}

function wallKey(cell, side) {
  // One name per edge: the N and W sides are written as the neighbour's S and E.
  const { x, y } = cellXY(cell);
  if (side === 'N') return `${cellName(x, y - 1)}/S`;
  if (side === 'W') return `${cellName(x - 1, y)}/E`;
  return `${cell}/${side}`;
}

function drawPiece(parent, cell, side, { movable, selected, last } = {}) {
  const { x, y } = cellXY(cell);
  const g = el('g', { class: `piece ${side}${movable ? ' movable' : ''}${selected ? ' selected' : ''}${last ? ' last' : ''}`, 'data-piece': cell, 'data-side': side }, parent);
  el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.33 }, g);
  const tx = el('text', { x: x + 0.5, y: y + 0.52 }, g);
  tx.textContent = side;
  return g;
}

/** Parses one action ("B2-C3/E", "place C3", "C3", "B2 pass") into {from, to, side} / {placed} / {pass}. */
export function parseTurn(a) {
  let m;
  if ((m = /^([A-G][1-7])-([A-G][1-7])\/([NESW])$/i.exec(a || ''))) return { from: m[1].toUpperCase(), to: m[2].toUpperCase(), side: m[3].toUpperCase() };
  if ((m = /^(?:place\s+)?(?:[AB]\s+)?([A-G][1-7])$/i.exec(a || ''))) return { placed: m[1].toUpperCase() };
  if ((m = /^([A-G][1-7])\s+pass$/i.exec(a || ''))) return { pass: m[1].toUpperCase() };
  return null;
}

/** A proposed turn: an arrow from the piece to its destination, a hollow ring there, the wall. */
function drawSuggestion(svg, defs, st, action) {
  const t = parseTurn(action);
  if (!t) return;
  const g = el('g', { class: 'suggest', 'data-suggest': action }, svg);
  const centre = (c) => {
    const { x, y } = cellXY(c);
    return { x: x + 0.5, y: y + 0.5 };
  };
  const ring = (c, cls) => {
    const p = centre(c);
    el('circle', { cx: p.x, cy: p.y, r: 0.4, class: cls, 'data-suggest-cell': c }, g);
  };
  if (t.placed) return ring(t.placed, 'suggest-ring');
  if (t.pass) return ring(t.pass, 'suggest-ring');
  if (t.from !== t.to) {
    const marker = el('marker', { id: 'suggest-head', viewBox: '0 0 10 10', refX: 6, refY: 5, markerWidth: 3.2, markerHeight: 3.2, orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M0 0L10 5L0 10Z', class: 'suggest-head' }, marker);
    const a = centre(t.from);
    const b = centre(t.to);
    // Stops short of both centres: the arrow runs between the piece and the hollow ring.
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    const ux = (b.x - a.x) / len;
    const uy = (b.y - a.y) / len;
    el('line', { x1: a.x + ux * 0.36, y1: a.y + uy * 0.36, x2: b.x - ux * 0.5, y2: b.y - uy * 0.5, class: 'suggest-arrow', 'marker-end': 'url(#suggest-head)' }, g);
  }
  ring(t.to, 'suggest-ring');
  const [x1, y1, x2, y2] = sideSegment(t.to, t.side);
  el('line', { x1, y1, x2, y2, class: 'suggest-wall', 'data-suggest-wall': `${t.to}/${t.side}` }, g);
}
