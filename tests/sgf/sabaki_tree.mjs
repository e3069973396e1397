// Reads the first game of an SGF file (the path given) with @sabaki/sgf, Sabaki's own parser
// (a devDependency of tests/e2e, resolved from tests/e2e/node_modules), and prints its whole
// tree as canonical JSON, as sgfmill_tree.py does: per node its move, comment, name, set-up and
// markup (points as `D4`, lists sorted), then its children in order.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(new URL('../e2e/package.json', import.meta.url));
const sgf = require('@sabaki/sgf');

const COLUMNS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ';
const [root] = sgf.parse(readFileSync(process.argv[2], 'utf8'));
const size = Number((root.data.SZ || ['19'])[0]);

const name = ([x, y]) => `${COLUMNS[x]}${size - y}`;
const point = (v) => name(sgf.parseVertex(v));
const points = (values) => (values || []).flatMap((v) => sgf.parseCompressedVertices(v)).map(name).sort();
const split = (v) => [v.slice(0, v.indexOf(':')), v.slice(v.indexOf(':') + 1)];

function canonical(node) {
  const d = node.data;
  let move = null;
  for (const c of ['B', 'W']) {
    if (d[c]) {
      const v = d[c][0];
      const pass = v === '' || (v === 'tt' && size <= 19);
      move = `${c} ${pass ? 'pass' : point(v)}`;
    }
  }
  const out = { move, C: (d.C || [''])[0], N: (d.N || [''])[0] };
  for (const k of ['AB', 'AW', 'AE', 'TR', 'SQ', 'CR', 'MA']) out[k] = points(d[k]);
  out.LB = (d.LB || []).map((v) => { const [p, t] = split(v); return `${point(p)}:${t}`; }).sort();
  for (const k of ['AR', 'LN']) {
    out[k] = (d[k] || []).map((v) => { const [a, b] = split(v); return `${point(a)}-${point(b)}`; }).sort();
  }
  out.children = node.children.map(canonical);
  return out;
}

// Keys sorted, as Python's json.dump(sort_keys=True) writes them.
const sorted = (v) => Array.isArray(v) ? v.map(sorted)
  : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])]))
  : v;
process.stdout.write(JSON.stringify(sorted(canonical(root))));
