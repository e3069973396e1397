// The Go board: an SVG goban drawn from the server's state. It knows how to draw and where a
// click or a key landed; what is legal comes from the state's `legal` list, what happens from the
// server's answer.

const NS = 'http://www.w3.org/2000/svg';

function el(name, attrs = {}, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** Star points (0-based x, y) as on real boards: corners, the centre, and the sides from 15 lines. */
function stars(cols, rows) {
  if (cols < 7 || rows < 7) return [];
  const line = (n) => (n >= 13 ? 3 : 2);
  const xs = [line(cols), cols - 1 - line(cols)];
  const ys = [line(rows), rows - 1 - line(rows)];
  const pts = [];
  for (const x of xs) for (const y of ys) pts.push([x, y]);
  const cx = cols % 2 ? (cols - 1) / 2 : null;
  const cy = rows % 2 ? (rows - 1) / 2 : null;
  if (cx !== null && cy !== null) pts.push([cx, cy]);
  if (cols >= 15 && rows >= 15 && cx !== null && cy !== null) {
    for (const x of xs) pts.push([x, cy]);
    for (const y of ys) pts.push([cx, y]);
  }
  return pts;
}

export class GoBoard {
  /**
   * @param {HTMLElement} host where the SVG goes
   * @param {{onPoint: (name: string) => void}} handlers
   */
  constructor(host, handlers) {
    this.host = host;
    this.handlers = handlers;
    this.state = null;
    this.interactive = false;
    this.mode = 'play';
    this.legal = new Set();
    this.hoverColor = 'black';
    this.cursor = null;
    // The move-confirm step (phones): a first tap shows a ghost stone (and, on 13×13 and up,
    // zooms to the tapped quadrant); a second tap on it, or the page's button, plays it.
    this.confirm = false;
    this.pending = null; // {x, y} of the ghost waiting for confirmation
    this.zoom = null; // {x0, y0, w, h} in board lines, or null for the whole board
    this.svg = el('svg', { class: 'goban', role: 'grid', tabindex: '0' });
    host.appendChild(this.svg);
    this.svg.addEventListener('pointermove', (e) => this.#hover(e));
    this.svg.addEventListener('pointerleave', () => this.#setGhost(null));
    this.svg.addEventListener('click', (e) => {
      const p = this.#pointAt(e);
      if (p) this.#activate(p);
    });
    this.svg.addEventListener('keydown', (e) => this.#key(e));
    this.svg.addEventListener('focus', () => {
      if (!this.state) return;
      if (!this.cursor) this.cursor = { x: Math.floor(this.cols / 2), y: Math.floor(this.rows / 2) };
      this.#drawCursor();
    });
    this.svg.addEventListener('blur', () => this.cursorEl?.setAttribute('visibility', 'hidden'));
  }

  get cols() {
    return this.state.size.cols;
  }

  get rows() {
    return this.state.size.rows;
  }

  name(x, y) {
    return `${this.state.columns[x]}${this.rows - y}`;
  }

  parse(name) {
    if (!name || name === 'pass') return null;
    const x = this.state.columns.indexOf(name[0].toUpperCase());
    const row = parseInt(name.slice(1), 10);
    if (x < 0 || !(row >= 1)) return null;
    return { x, y: this.rows - row };
  }

  /**
   * Draws a state. opts: {interactive, mode: 'play'|'marking', hoverColor, legal: Set, plan:
   * [{name, color, label}] (planned stones)}.
   */
  render(state, opts = {}) {
    if (this.state && (state.version !== this.state.version || !opts.interactive)) {
      this.pending = null; // the position changed: what was waiting is stale
      this.zoom = null;
    }
    this.state = state;
    this.confirm = !!opts.confirm;
    this.interactive = !!opts.interactive;
    this.mode = opts.mode || 'play';
    this.legal = opts.legal || new Set();
    this.hoverColor = opts.hoverColor || 'black';
    const { cols, rows } = state.size;
    const svg = this.svg;
    svg.replaceChildren();
    this.#setViewBox();
    svg.setAttribute('aria-label', `${cols}×${rows}`);
    svg.classList.toggle('interactive', this.interactive);
    const defs = el('defs', {}, svg);
    const gb = el('radialGradient', { id: 'gb', cx: '35%', cy: '30%', r: '70%' }, defs);
    el('stop', { offset: '0%', 'stop-color': '#5a5a5a' }, gb);
    el('stop', { offset: '100%', 'stop-color': '#0b0b0b' }, gb);
    const gw = el('radialGradient', { id: 'gw', cx: '35%', cy: '30%', r: '75%' }, defs);
    el('stop', { offset: '0%', 'stop-color': '#ffffff' }, gw);
    el('stop', { offset: '100%', 'stop-color': '#d4d0c8' }, gw);

    el('rect', { x: -1.1, y: -1.1, width: cols + 1.2, height: rows + 1.2, class: 'wood', rx: 0.15 }, svg);
    const grid = el('g', { class: 'grid' }, svg);
    for (let x = 0; x < cols; x++) el('line', { x1: x, y1: 0, x2: x, y2: rows - 1 }, grid);
    for (let y = 0; y < rows; y++) el('line', { x1: 0, y1: y, x2: cols - 1, y2: y }, grid);
    el('rect', { x: 0, y: 0, width: cols - 1, height: rows - 1, class: 'edge' }, grid);
    for (const [sx, sy] of stars(cols, rows)) el('circle', { cx: sx, cy: sy, r: 0.09, class: 'star' }, grid);

    const labels = el('g', { class: 'coords', 'aria-hidden': 'true' }, svg);
    for (let x = 0; x < cols; x++) {
      for (const y of [-0.72, rows - 0.28]) {
        const tx = el('text', { x, y }, labels);
        tx.textContent = state.columns[x];
      }
    }
    for (let y = 0; y < rows; y++) {
      for (const x of [-0.72, cols - 0.28]) {
        const tx = el('text', { x, y }, labels);
        tx.textContent = String(rows - y);
      }
    }

    const marking = state.marking;
    const dead = new Set(marking ? marking.dead ?? marking.proposed ?? [] : []);
    const terr = { black: new Set(marking?.territory?.black ?? []), white: new Set(marking?.territory?.white ?? []) };
    const seki = new Set(marking?.seki ?? []);
    const showMarks = !!marking && (state.phase === 'marking' || state.phase === 'finished');

    const stones = el('g', { class: 'stones' }, svg);
    const marks = el('g', { class: 'marks' }, svg);
    for (let y = 0; y < rows; y++) {
      const line = state.board[y];
      for (let x = 0; x < cols; x++) {
        const c = line[x];
        const name = this.name(x, y);
        if (c === 'B' || c === 'W') {
          const isDead = showMarks && dead.has(name);
          el(
            'circle',
            {
              cx: x,
              cy: y,
              r: 0.47,
              class: `stone ${c === 'B' ? 'black' : 'white'}${isDead ? ' dead' : ''}`,
              'data-point': name,
              fill: c === 'B' ? 'url(#gb)' : 'url(#gw)',
            },
            stones,
          );
          if (isDead) {
            const d = 0.22;
            el('path', { d: `M${x - d} ${y - d}L${x + d} ${y + d}M${x + d} ${y - d}L${x - d} ${y + d}`, class: 'cross', 'data-dead': name }, marks);
          }
        }
        if (showMarks) {
          const owner = terr.black.has(name) ? 'black' : terr.white.has(name) ? 'white' : null;
          if (owner) el('rect', { x: x - 0.15, y: y - 0.15, width: 0.3, height: 0.3, class: `terr ${owner}`, 'data-terr': name }, marks);
          else if (seki.has(name) && c === '.') el('path', { d: `M${x} ${y - 0.16}L${x + 0.16} ${y}L${x} ${y + 0.16}L${x - 0.16} ${y}Z`, class: 'seki' }, marks);
        }
      }
    }
    // The ko point just taken: a square on it until a move elsewhere lifts the ban.
    const ko = this.parse(state.ko);
    if (ko && state.board[ko.y][ko.x] === '.') el('rect', { x: ko.x - 0.22, y: ko.y - 0.22, width: 0.44, height: 0.44, class: 'ko', 'data-ko': state.ko }, marks);
    const last = this.parse(state.last_move);
    if (last && state.board[last.y][last.x] !== '.') {
      const c = state.board[last.y][last.x];
      el('circle', { cx: last.x, cy: last.y, r: 0.2, class: `last ${c === 'B' ? 'on-black' : 'on-white'}`, 'data-last': state.last_move }, marks);
    }
    // A player's plan (conditional moves), shown to that player alone: numbered see-through stones.
    for (const m of opts.plan || []) {
      const p = this.parse(m.name);
      if (!p) continue;
      const g = el('g', { class: `plan-stone ${m.color}`, 'data-plan': m.name }, svg);
      el('circle', { cx: p.x, cy: p.y, r: 0.4 }, g);
      el('text', { x: p.x, y: p.y }, g).textContent = m.label;
    }
    this.ghost = el('circle', { r: 0.47, class: `ghost ${this.hoverColor}`, visibility: 'hidden' }, svg);
    this.pendingEl = el('circle', { r: 0.47, class: `ghost pending ${this.hoverColor}`, visibility: 'hidden' }, svg);
    this.zoomLabels = el('g', { class: 'coords zoomed', 'aria-hidden': 'true' }, svg);
    this.cursorEl = el('rect', { width: 0.9, height: 0.9, rx: 0.12, class: 'cursor', visibility: 'hidden' }, svg);
    if (this.cursor) this.#drawCursor();
    this.#drawPending();
  }

  /** The point waiting for confirmation (its name), or null. */
  pendingName() {
    return this.pending ? this.name(this.pending.x, this.pending.y) : null;
  }

  /** Plays the point waiting for confirmation. */
  confirmPending() {
    const p = this.pending;
    if (!p) return;
    this.cancelPending();
    this.handlers.onPoint(this.name(p.x, p.y), p);
  }

  /** Drops the point waiting for confirmation and shows the whole board again. */
  cancelPending() {
    this.pending = null;
    this.zoom = null;
    this.#setViewBox();
    this.#drawPending();
    this.handlers.onPending?.(null);
  }

  #setViewBox() {
    const { cols, rows } = this.state.size;
    const z = this.zoom;
    if (z) this.svg.setAttribute('viewBox', `${z.x0 - 1.1} ${z.y0 - 1.1} ${z.w + 1.2} ${z.h + 1.2}`);
    else this.svg.setAttribute('viewBox', `-1.1 -1.1 ${cols + 1.2} ${rows + 1.2}`);
    this.svg.classList.toggle('zoomed', !!z);
    this.svg.dataset.zoom = z ? `${z.x0},${z.y0},${z.w},${z.h}` : '';
  }

  /** The quadrant (with two lines of overlap) around p, on boards of 13 lines and more. */
  #quadrant(p) {
    const { cols, rows } = this.state.size;
    if (Math.max(cols, rows) < 13) return null;
    const w = Math.min(cols, Math.ceil(cols / 2) + 2);
    const h = Math.min(rows, Math.ceil(rows / 2) + 2);
    const x0 = p.x < cols / 2 ? 0 : cols - w;
    const y0 = p.y < rows / 2 ? 0 : rows - h;
    return { x0, y0, w, h };
  }

  #drawPending() {
    if (!this.pendingEl) return;
    const p = this.pending;
    this.pendingEl.setAttribute('visibility', p ? 'visible' : 'hidden');
    if (p) {
      this.pendingEl.setAttribute('cx', p.x);
      this.pendingEl.setAttribute('cy', p.y);
      this.pendingEl.dataset.point = this.name(p.x, p.y);
    }
    // A zoomed view keeps its coordinates in sight: labels along its inner edges.
    const g = this.zoomLabels;
    g.replaceChildren();
    const z = this.zoom;
    if (!z) return;
    const { cols, rows } = this.state.size;
    // Each inner edge's labels sit on a band of wood that hides the grid running on beyond the
    // quadrant, so no line crosses a label ("12" would read "−12"). The bands start half a line
    // past the quadrant's last points (a stone reaches 0.47 from its point).
    const band = (x, y, width, height) => el('rect', { x, y, width, height, class: 'zoom-band' }, g);
    const [left, top, right, bottom] = [z.x0 - 1.1, z.y0 - 1.1, z.x0 + z.w + 0.1, z.y0 + z.h + 0.1];
    const [inLeft, inTop, inRight, inBottom] = [z.x0 - 0.5, z.y0 - 0.5, z.x0 + z.w - 0.5, z.y0 + z.h - 0.5];
    if (z.y0 > 0) band(left, top, right - left, inTop - top);
    if (z.y0 + z.h < rows) band(left, inBottom, right - left, bottom - inBottom);
    if (z.x0 > 0) band(left, top, inLeft - left, bottom - top);
    if (z.x0 + z.w < cols) band(inRight, top, right - inRight, bottom - top);
    // The labels in the middle of their bands.
    if (z.y0 > 0) for (let x = z.x0; x < z.x0 + z.w; x++) el('text', { x, y: (top + inTop) / 2 }, g).textContent = this.state.columns[x];
    if (z.y0 + z.h < rows) for (let x = z.x0; x < z.x0 + z.w; x++) el('text', { x, y: (inBottom + bottom) / 2 }, g).textContent = this.state.columns[x];
    if (z.x0 > 0) for (let y = z.y0; y < z.y0 + z.h; y++) el('text', { x: (left + inLeft) / 2, y }, g).textContent = String(rows - y);
    if (z.x0 + z.w < cols) for (let y = z.y0; y < z.y0 + z.h; y++) el('text', { x: (inRight + right) / 2, y }, g).textContent = String(rows - y);
  }

  #pointAt(e) {
    if (!this.state) return null;
    const pt = this.svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const m = this.svg.getScreenCTM();
    if (!m) return null;
    const p = pt.matrixTransform(m.inverse());
    const x = Math.round(p.x);
    const y = Math.round(p.y);
    if (x < 0 || y < 0 || x >= this.cols || y >= this.rows) return null;
    return { x, y };
  }

  #hover(e) {
    if (!this.interactive || this.mode !== 'play' || e.pointerType === 'touch') return this.#setGhost(null);
    this.#setGhost(this.#pointAt(e));
  }

  #setGhost(p) {
    if (!this.ghost) return;
    // Why a point under the pointer cannot be played (the page says it near the board).
    if (this.interactive && this.mode === 'play') this.handlers.onHover?.(p ? this.name(p.x, p.y) : null, !!p && this.legal.has(this.name(p.x, p.y)));
    if (p && this.interactive && this.mode === 'play' && this.legal.has(this.name(p.x, p.y))) {
      this.ghost.setAttribute('cx', p.x);
      this.ghost.setAttribute('cy', p.y);
      this.ghost.setAttribute('visibility', 'visible');
    } else {
      this.ghost.setAttribute('visibility', 'hidden');
    }
  }

  #activate(p) {
    if (!this.interactive) return;
    this.cursor = p;
    if (this.confirm && this.mode === 'play') {
      if (this.pending && this.pending.x === p.x && this.pending.y === p.y) return this.confirmPending();
      if (!this.zoom) this.zoom = this.#quadrant(p);
      if (!this.legal.has(this.name(p.x, p.y))) {
        // A point that cannot be played is refused at the tap, with the reason: no "Play" offer.
        this.pending = null;
        this.#setViewBox();
        this.#drawPending();
        this.handlers.onPending?.(null);
        this.handlers.onHover?.(this.name(p.x, p.y), false);
        return;
      }
      this.pending = p;
      this.#setViewBox();
      this.#drawPending();
      this.handlers.onPending?.(this.name(p.x, p.y));
      // A tap has no hover: say at once why the waiting point cannot be played, if it cannot.
      this.handlers.onHover?.(this.name(p.x, p.y), this.legal.has(this.name(p.x, p.y)));
      return;
    }
    this.handlers.onPoint(this.name(p.x, p.y), p);
  }

  #drawCursor() {
    if (!this.cursorEl || !this.cursor) return;
    this.cursorEl.setAttribute('x', this.cursor.x - 0.45);
    this.cursorEl.setAttribute('y', this.cursor.y - 0.45);
    this.cursorEl.setAttribute('visibility', this.interactive && this.svg.matches(':focus-visible') ? 'visible' : 'hidden');
    this.svg.setAttribute('aria-activedescendant', '');
    this.svg.setAttribute('aria-label', this.name(this.cursor.x, this.cursor.y));
    // The keyboard's cursor shows its stone; a tap's focus does not (the tap has its own).
    if (this.svg.matches(':focus-visible')) this.#setGhost(this.cursor);
  }

  #key(e) {
    if (!this.state || !this.interactive) return;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (!this.cursor) this.cursor = { x: Math.floor(this.cols / 2), y: Math.floor(this.rows / 2) };
    if (moves[e.key]) {
      const [dx, dy] = moves[e.key];
      this.cursor = {
        x: Math.max(0, Math.min(this.cols - 1, this.cursor.x + dx)),
        y: Math.max(0, Math.min(this.rows - 1, this.cursor.y + dy)),
      };
      this.#drawCursor();
      e.preventDefault();
      e.stopPropagation();
    } else if (e.key === 'Enter' || e.key === ' ') {
      this.#activate(this.cursor);
      e.preventDefault();
    }
  }
}
