// The review page's tree model (web/js/review-tree.js) without a browser: ops applied as the
// server applies them (a move onto an existing child adds none, delete takes the subtree,
// promote reorders), refusals by the server's codes with nothing changed, and boards replayed
// with captures and the simple ko.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ReviewTree } from '../../../web/js/review-tree.js';

/** A 9×9 tree: root → B E5 → W C3, and a branch W G7 after E5. */
function small() {
  return new ReviewTree({
    version: 3,
    size: { cols: 9, rows: 9 },
    root: 0,
    next_id: 4,
    nodes: [
      { id: 0, parent: null, children: [1], number: 0, move: null, setup: { AB: [], AW: [], AE: [] }, comment: 'start', name: '', markup: {} },
      { id: 1, parent: 0, children: [2, 3], number: 1, move: { color: 'B', point: 'E5' }, comment: '', name: '', markup: {} },
      { id: 2, parent: 1, children: [], number: 2, move: { color: 'W', point: 'C3' }, comment: '', name: '', markup: {} },
      { id: 3, parent: 1, children: [], number: 2, move: { color: 'W', point: 'G7' }, comment: '', name: '', markup: {} },
    ],
  });
}

const refused = (tree, op, code) => {
  const before = JSON.stringify(tree.toJSON());
  assert.throws(() => tree.apply(op), (e) => e.code === code, `${JSON.stringify(op)} → ${code}`);
  assert.equal(JSON.stringify(tree.toJSON()), before, 'a refused op changes nothing');
};

describe('the review tree model', () => {
  test('moves: a new last child, the existing child for the same move, ids never reused', () => {
    const t = small();
    assert.deepEqual(t.apply({ op: 'move', parent: 1, color: 'W', point: 'D4' }), { node: 4 });
    assert.deepEqual(t.node(1).children, [2, 3, 4]);
    assert.equal(t.node(4).number, 2);
    assert.equal(t.version, 4);
    assert.deepEqual(t.apply({ op: 'move', parent: 1, color: 'W', point: 'C3' }), { node: 2, existing: true });
    assert.equal(t.version, 4, 'no change, no version');
    t.apply({ op: 'delete', node: 4 });
    assert.equal(t.apply({ op: 'move', parent: 1, color: 'W', point: 'D5' }).node, 5);
    // A remote op names its node: the copy takes that id.
    assert.equal(t.apply({ op: 'move', parent: 5, color: 'B', point: 'A1', node: 9 }).node, 9);
    assert.equal(t.nextId, 10);
  });

  test('delete takes the subtree, promote makes the main line, the root stays', () => {
    const t = small();
    t.apply({ op: 'move', parent: 3, color: 'B', point: 'A1' });
    t.apply({ op: 'promote', node: 3 });
    assert.deepEqual(t.node(1).children, [3, 2]);
    assert.equal(t.lineEnd(0), 4);
    t.apply({ op: 'delete', node: 3 });
    assert.deepEqual(t.node(1).children, [2]);
    assert.equal(t.node(4), null);
    refused(t, { op: 'delete', node: 0 }, 'review.root');
    refused(t, { op: 'delete', node: 3 }, 'review.no_node');
  });

  test('markup, labels, lines, comments and their refusals', () => {
    const t = small();
    t.apply({ op: 'mark', node: 2, kind: 'TR', point: 'C3', on: true });
    t.apply({ op: 'mark', node: 2, kind: 'TR', point: 'C3', on: true });
    assert.deepEqual(t.node(2).markup.TR, ['C3']);
    t.apply({ op: 'mark', node: 2, kind: 'TR', point: 'C3', on: false });
    assert.deepEqual(t.node(2).markup.TR, []);
    t.apply({ op: 'label', node: 2, point: 'D4', text: 'A' });
    t.apply({ op: 'label', node: 2, point: 'D4', text: 'B' });
    assert.deepEqual(t.node(2).markup.LB, [['D4', 'B']]);
    t.apply({ op: 'line', node: 2, kind: 'AR', from: 'A1', to: 'J9', on: true });
    assert.deepEqual(t.node(2).markup.AR, [['A1', 'J9']]);
    t.apply({ op: 'comment', node: 2, text: 'a line\nand another' });
    assert.equal(t.node(2).comment, 'a line\nand another');
    refused(t, { op: 'mark', node: 2, kind: 'TR', point: 'K10', on: true }, 'review.off_board');
    refused(t, { op: 'mark', node: 2, kind: 'TR', point: 'I5', on: true }, 'review.off_board');
    refused(t, { op: 'label', node: 2, point: 'D4', text: 'ABCDEFGHI' }, 'review.label');
    refused(t, { op: 'line', node: 2, kind: 'LN', from: 'A1', to: 'A1', on: true }, 'review.line');
    refused(t, { op: 'name', node: 2, text: 'n'.repeat(101) }, 'review.name');
    // A change that changes nothing leaves the version: the server sends no delta for it.
    const v = t.version;
    t.apply({ op: 'mark', node: 2, kind: 'SQ', point: 'E5', on: false });
    t.apply({ op: 'line', node: 2, kind: 'AR', from: 'A1', to: 'J9', on: true });
    t.apply({ op: 'promote', node: 2 });
    assert.equal(t.version, v);
    refused(t, { op: 'comment', node: 2, text: 'x'.repeat(4001) }, 'review.comment_too_long');
    refused(t, { op: 'comment', node: 2, text: 'bell\u0007' }, 'review.text');
    refused(t, { op: 'shout', node: 2 }, 'review.op');
  });

  test('boards: captures, occupied points, suicide and the simple ko refused', () => {
    // Black's C4 B3 C2 around White's C3; White's D4 E3 D2 around D3; White's A2 B1 round A1.
    const setup = { AB: ['C4', 'B3', 'C2'], AW: ['C3', 'E3', 'D4', 'D2', 'A2', 'B1'], AE: [] };
    const t = new ReviewTree({ version: 0, size: { cols: 5, rows: 5 }, root: 0, next_id: 1, nodes: [{ id: 0, parent: null, children: [], number: 0, move: null, setup, comment: '' }] });
    const ko = t.apply({ op: 'move', parent: 0, color: 'B', point: 'D3' }).node;
    assert.equal(t.board(ko).grid[2], '.B.BW', 'C3 taken');
    assert.equal(t.board(ko).ko, 'C3');
    refused(t, { op: 'move', parent: ko, color: 'W', point: 'C3' }, 'review.illegal');
    refused(t, { op: 'move', parent: ko, color: 'W', point: 'C4' }, 'review.illegal');
    refused(t, { op: 'move', parent: 0, color: 'B', point: 'A1' }, 'review.illegal');
    const away = t.apply({ op: 'move', parent: ko, color: 'W', point: 'E5' }).node;
    const back = t.apply({ op: 'move', parent: away, color: 'B', point: 'E1' }).node;
    const retake = t.apply({ op: 'move', parent: back, color: 'W', point: 'C3' }).node;
    assert.equal(t.board(retake).grid[2], '.BW.W', 'D3 taken back once the ko waited a move');
    assert.equal(t.toMove(retake), 'B');
    assert.deepEqual(t.path(retake), [0, ko, away, back, retake]);
  });

  test('a line of 20000 moves replays without a deep recursion', () => {
    const nodes = [{ id: 0, parent: null, children: [1], number: 0, move: null, comment: '' }];
    for (let i = 1; i <= 20000; i++) nodes.push({ id: i, parent: i - 1, children: i < 20000 ? [i + 1] : [], number: i, move: { color: i % 2 ? 'B' : 'W', point: 'pass' }, comment: '' });
    const t = new ReviewTree({ version: 0, size: { cols: 9, rows: 9 }, root: 0, next_id: 20001, nodes });
    assert.equal(t.board(20000).grid.join(''), '.'.repeat(81));
  });

  test('a copy explored alone changes apart from the shared tree', () => {
    const t = small();
    const c = t.clone();
    c.apply({ op: 'move', parent: 2, color: 'B', point: 'D4' });
    assert.equal(t.node(2).children.length, 0);
    assert.equal(c.node(2).children.length, 1);
  });
});
