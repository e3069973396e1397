// The review's markup on the board and the tools that make it: a node's TR SQ CR MA LB AR LN
// drawn over the goban, the next moves of the tree as lettered rings, and the tool bar whose
// clicks on the board turn into ops (a stone, a mark, a label, or a line from one point to another).

import { t } from './i18n.js';
import { h, put } from './ui.js';
import { branchLetter } from './review-branches.js';

const NS = 'http://www.w3.org/2000/svg';
export const TOOLS = ['play', 'TR', 'SQ', 'CR', 'MA', 'LB', 'AR', 'LN'];
const ICONS = { play: '●', TR: '△', SQ: '□', CR: '○', MA: '✕', AR: '→', LN: '—' };

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.appendChild(e);
  return e;
}

/** The class that keeps a mark readable on what lies under it (a black stone, a white one, wood). */
function on(grid, q) {
  const c = grid[q.y][q.x];
  return c === 'B' ? 'on-black' : c === 'W' ? 'on-white' : 'on-wood';
}

/**
 * Draws node `id`'s markup and its children's moves (lettered when the position branches) on
 * `svg`; `pending` is the first end of a line being drawn.
 */
export function drawMarkup(svg, tree, id, pending = null) {
  const n = tree.node(id);
  if (!n) return;
  const grid = tree.board(id).grid;
  const at = (p) => tree.parse(p);
  // The moves that follow: a ring at each, lettered A, B, … when there are several.
  const next = el('g', { class: 'markup next-moves' }, svg);
  const kids = n.children.map((c) => tree.node(c)).filter((c) => c?.move && c.move.point !== 'pass');
  kids.forEach((c, i) => {
    const q = at(c.move.point);
    if (!q || grid[q.y][q.x] !== '.') return;
    const v = el('g', { class: `next-move ${c.move.color === 'B' ? 'black' : 'white'}${i ? ' branch' : ''}`, 'data-next': c.move.point, 'data-node': c.id }, next);
    el('circle', { cx: q.x, cy: q.y, r: 0.3 }, v);
    if (kids.length > 1) el('text', { x: q.x, y: q.y }, v).textContent = branchLetter(i);
  });
  // The node's own marks are the record's (its labels as written).
  const g = el('g', { class: 'markup', translate: 'no' }, svg);
  const m = n.markup;
  for (const p of m.TR) {
    const q = at(p);
    if (q) el('path', { d: `M${q.x} ${q.y - 0.3}L${q.x + 0.27} ${q.y + 0.17}L${q.x - 0.27} ${q.y + 0.17}Z`, class: `mk ${on(grid, q)}`, 'data-mark': `TR:${p}` }, g);
  }
  for (const p of m.SQ) {
    const q = at(p);
    if (q) el('rect', { x: q.x - 0.22, y: q.y - 0.22, width: 0.44, height: 0.44, class: `mk ${on(grid, q)}`, 'data-mark': `SQ:${p}` }, g);
  }
  for (const p of m.CR) {
    const q = at(p);
    if (q) el('circle', { cx: q.x, cy: q.y, r: 0.25, class: `mk ${on(grid, q)}`, 'data-mark': `CR:${p}` }, g);
  }
  for (const p of m.MA) {
    const q = at(p);
    const d = 0.22;
    if (q) el('path', { d: `M${q.x - d} ${q.y - d}L${q.x + d} ${q.y + d}M${q.x + d} ${q.y - d}L${q.x - d} ${q.y + d}`, class: `mk ${on(grid, q)}`, 'data-mark': `MA:${p}` }, g);
  }
  for (const [p, text] of m.LB) {
    const q = at(p);
    if (!q) continue;
    const lb = el('g', { class: `lb ${on(grid, q)}`, 'data-mark': `LB:${p}` }, g);
    if (grid[q.y][q.x] === '.') el('circle', { cx: q.x, cy: q.y, r: 0.36, class: 'lb-bg' }, lb);
    el('text', { x: q.x, y: q.y }, lb).textContent = text;
  }
  for (const kind of ['LN', 'AR']) {
    for (const [a, b] of m[kind]) {
      const [p, q] = [at(a), at(b)];
      if (!p || !q) continue;
      const ln = el('g', { class: `ln ${kind.toLowerCase()}`, 'data-mark': `${kind}:${a}:${b}` }, g);
      el('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y }, ln);
      if (kind === 'AR') {
        // The head: two short strokes back from the end, at ±25° of the shaft.
        const ang = Math.atan2(q.y - p.y, q.x - p.x);
        const tip = (da) => `${(q.x - 0.35 * Math.cos(ang + da)).toFixed(3)} ${(q.y - 0.35 * Math.sin(ang + da)).toFixed(3)}`;
        el('path', { d: `M${tip(0.45)}L${q.x} ${q.y}L${tip(-0.45)}` }, ln);
      }
    }
  }
  if (pending) {
    const q = at(pending);
    if (q) el('circle', { cx: q.x, cy: q.y, r: 0.42, class: 'line-start', 'data-line-start': pending }, g);
  }
}

/** The next label for a node: the first capital letter its labels do not use yet. */
function nextLabel(markup) {
  const used = new Set(markup.LB.map(([, text]) => text));
  for (let i = 0; i < 26; i++) {
    const c = String.fromCharCode(65 + i);
    if (!used.has(c)) return c;
  }
  return String(markup.LB.length + 1);
}

/** The markup tool bar: which tool a click on the board uses, and the op it makes. */
export class Tools {
  constructor(box, onChange) {
    this.box = box;
    this.onChange = onChange;
    this.tool = 'play';
    this.from = null; // the first point of a line being drawn
  }

  render(enabled) {
    const buttons = TOOLS.map((k) => {
      const b = h('button', { type: 'button', class: `small tool${k === this.tool ? ' on' : ''}`, 'data-tool': k, 'aria-pressed': String(k === this.tool), title: t(`rv.tool.${k}`), 'aria-label': t(`rv.tool.${k}`), disabled: !enabled }, ICONS[k] ?? t('rv.tool_icon_LB'));
      b.onclick = () => {
        this.tool = k;
        this.from = null;
        this.onChange();
      };
      return b;
    });
    const hint = this.from ? t('rv.line_to', this.from) : t(`rv.hint.${this.tool}`);
    put(this.box, h('div', { class: 'tools-row', role: 'toolbar', 'aria-label': t('rv.tools') }, ...buttons), h('p', { class: 'hint', id: 'tool-hint' }, hint));
  }

  /**
   * The op a click at `point` makes on node `id` of `tree` with the current tool, or null (a
   * line's first point, or a click that makes nothing). `color`: who plays there.
   */
  opFor(tree, id, point, color) {
    const n = tree.node(id);
    const m = n.markup;
    switch (this.tool) {
      case 'play':
        return { op: 'move', parent: id, color, point };
      case 'LB': {
        const had = m.LB.find(([p]) => p === point);
        return { op: 'label', node: id, point, text: had ? '' : nextLabel(m) };
      }
      case 'AR':
      case 'LN': {
        if (!this.from) {
          this.from = point;
          return null;
        }
        const from = this.from;
        this.from = null;
        if (from === point) return null;
        const had = m[this.tool].some(([a, b]) => a === from && b === point);
        return { op: 'line', node: id, kind: this.tool, from, to: point, on: !had };
      }
      default:
        return { op: 'mark', node: id, kind: this.tool, point, on: !m[this.tool].includes(point) };
    }
  }
}
