// The review's tree at a glance: a compact graph of every line (a column per move number, a row
// per branch, as Sabaki and OGS draw it) and the list of the branches at the current node, each
// named by its first move. Clicks go to a node; the page does the rest.

import { t, lang } from './i18n.js';
import { h, put } from './ui.js';

const NS = 'http://www.w3.org/2000/svg';
const STEP = 22; // pixels between two columns or rows

/**
 * Where each node sits: x its move number, y its row. A line takes the first row free over its
 * whole length at or below its parent's, so branches never overlap.
 */
export function layout(tree) {
  const at = new Map();
  const free = []; // per column: the first free row
  let rows = 1;
  const place = (start, minRow) => {
    const line = [];
    for (let n = tree.node(start); n; n = n.children.length ? tree.node(n.children[0]) : null) line.push(n);
    let row = minRow;
    for (const n of line) row = Math.max(row, free[n.number] ?? 0);
    // The diagonal from the parent passes the column before the branch: keep it clear too.
    const before = line[0].number - 1;
    if (line[0].parent !== null) row = Math.max(row, free[before] ?? 0);
    for (const n of line) {
      at.set(n.id, { x: n.number, y: row });
      free[n.number] = row + 1;
    }
    if (line[0].parent !== null) free[before] = Math.max(free[before] ?? 0, row + 1);
    rows = Math.max(rows, row + 1);
    for (const n of line) for (const c of n.children.slice(1)) place(c, row + 1);
  };
  place(tree.root, 0);
  return { at, rows, cols: free.length };
}

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.appendChild(e);
  return e;
}

/** Draws the graph in `box` (scrolled to keep `current` in sight); `go(id)` on a click. */
export function drawGraph(box, tree, current, go) {
  const { at, rows, cols } = layout(tree);
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('class', 'tree-graph');
  svg.setAttribute('id', 'tree-graph');
  svg.setAttribute('width', String(cols * STEP + STEP));
  svg.setAttribute('height', String(rows * STEP + 4));
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('rv.graph'));
  const px = (p) => ({ x: p.x * STEP + STEP / 2 + 2, y: p.y * STEP + STEP / 2 + 2 });
  const edges = el('g', { class: 'edges' }, svg);
  const dots = el('g', { class: 'dots' }, svg);
  const onPath = new Set(tree.path(current));
  for (const n of tree.nodes.values()) {
    const p = at.get(n.id);
    if (!p) continue;
    const q = px(p);
    if (n.parent !== null) {
      const pp = px(at.get(n.parent));
      const path = pp.y === q.y ? `M${pp.x} ${pp.y}L${q.x} ${q.y}` : `M${pp.x} ${pp.y}L${q.x - STEP} ${q.y}L${q.x} ${q.y}`;
      el('path', { d: path, class: onPath.has(n.id) ? 'edge on' : 'edge' }, edges);
    }
    const cls = ['node', n.move ? (n.move.color === 'B' ? 'black' : 'white') : 'setup'];
    if (n.comment) cls.push('commented');
    if (n.id === current) cls.push('current');
    const c = n.move ? el('circle', { cx: q.x, cy: q.y, r: 6, class: cls.join(' '), 'data-node': n.id }, dots) : el('rect', { x: q.x - 6, y: q.y - 6, width: 12, height: 12, class: cls.join(' '), 'data-node': n.id }, dots);
    el('title', {}, c).textContent = nodeWords(n);
  }
  svg.addEventListener('click', (e) => {
    const k = e.target.closest?.('[data-node]')?.dataset.node;
    if (k !== undefined) go(Number(k));
  });
  put(box, svg);
  // The current node in sight, inside the box only.
  const p = at.get(current);
  if (p) {
    const q = px(p);
    if (q.x < box.scrollLeft + STEP || q.x > box.scrollLeft + box.clientWidth - STEP) box.scrollLeft = Math.max(0, q.x - box.clientWidth / 2);
    if (q.y < box.scrollTop + STEP || q.y > box.scrollTop + box.clientHeight - STEP) box.scrollTop = Math.max(0, q.y - box.clientHeight / 2);
  }
}

/** The letter of a position's `i`th branch: A, B, … (가, 나, … on the Korean page). */
export function branchLetter(i) {
  const ko = '가나다라마바사아자차카타파하';
  return lang() === 'ko' && i < ko.length ? ko[i] : String.fromCharCode(65 + (i % 26));
}

/** A node in words: "12 ● D4" (its number, colour and point), or the start. */
export function nodeWords(n) {
  if (!n.move) return n.number ? `${n.number}` : t('rv.start');
  return `${n.number} ${n.move.color === 'B' ? '●' : '○'} ${n.move.point === 'pass' ? t('rv.pass') : n.move.point}`;
}

/**
 * The branches at node `id` (when it has more than one child) and where `id` sits among its
 * siblings, as buttons that go there.
 */
export function drawBranches(box, tree, id, go) {
  const n = tree.node(id);
  const kids = n.children.map((c) => tree.node(c));
  const parts = [];
  if (kids.length > 1) {
    parts.push(
      h('span', { class: 'label' }, t('rv.branches', kids.length)),
      ...kids.map((c, i) => {
        const b = h('button', { type: 'button', class: 'small quiet', 'data-branch': c.id }, `${branchLetter(i)}: ${nodeWords(c)}${c.name ? ` · ${c.name}` : ''}`);
        b.onclick = () => go(c.id);
        return b;
      }),
    );
  }
  const p = n.parent === null ? null : tree.node(n.parent);
  if (p && p.children.length > 1) {
    const k = p.children.indexOf(id);
    parts.push(h('span', { class: 'hint', id: 'sibling' }, t('rv.sibling', k + 1, p.children.length)));
  }
  put(box, ...parts);
  box.hidden = !parts.length;
}
