// Phones (390×844 upright, 844×390 sideways): the lobby starts with Play now and New game, the
// "Review a record" card after them; the nine-row table after a game keeps its notes readable
// and its headers on one line, scrolling sideways in its own box instead of growing the page;
// a tap does not tint the board; the zoomed 19×19 quadrant keeps grid lines off its coordinate
// labels; the review page opens at its top, header in sight. Screenshots of the phone lobby,
// the result table and the zoomed board go to artifacts/ (and to $SHOTS_DIR when set).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BASE, ARTIFACTS, launch, person, shots, docShot, act, createGo, pointAt } from './lib.mjs';

const PHONE = { width: 390, height: 844 };
const SIDEWAYS = { width: 844, height: 390 };

/** A screenshot in artifacts/, copied to $SHOTS_DIR where one is named. */
async function keep(page, name, opts = {}) {
  await docShot(page, name, opts);
  const dir = process.env.SHOTS_DIR;
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(ARTIFACTS, `${name}.png`), path.join(dir, `${name}.png`));
  }
}

/** A 19×19 game of two seats played a few moves, passed twice and accepted: finished, counted. */
async function finishedGame() {
  const g = await createGo({ size: 19, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
  const tok = [g.seats.black.token, g.seats.white.token];
  const moves = ['D4', 'Q16', 'Q4', 'D16', 'R10', 'C10', 'K3', 'K17', 'pass', 'pass'];
  for (let i = 0; i < moves.length; i++) assert.equal((await act(g.id, tok[i % 2], moves[i])).status, 200, moves[i]);
  for (const tk of tok) assert.equal((await act(g.id, tk, 'accept')).status, 200, 'accept');
  return g.id;
}

describe('phones', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  for (const locale of ['en-US', 'ko-KR']) {
    test(`the phone lobby starts with Play now and New game, the review card after them (${locale})`, async (t) => {
      const { page: p } = await person(browser, `lobby-${locale}`, { viewport: PHONE, locale, touch: true });
      await shots(t, [p], async () => {
        await p.goto(`${BASE}/`);
        await p.waitForSelector('#review-card');
        await p.waitForSelector('body[data-account]');
        const top = await p.evaluate(() => Object.fromEntries(['.playnow', '.new-card', '#review-card', '.games-card'].map((s) => [s, document.querySelector(s).getBoundingClientRect().top + window.scrollY])));
        assert.ok(top['.playnow'] < top['#review-card'], `Play now above the review card: ${JSON.stringify(top)}`);
        assert.ok(top['.new-card'] < top['#review-card'], `New game above the review card: ${JSON.stringify(top)}`);
        assert.ok(top['.playnow'] < 200, `Play now is the first card: ${JSON.stringify(top)}`);
        assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), 'nothing wider than the phone');
        await keep(p, `phone-lobby-${locale.slice(0, 2)}`);
      });
    });
  }

  for (const [label, viewport] of [['upright', PHONE], ['sideways', SIDEWAYS]]) {
    for (const locale of ['en-US', 'ko-KR']) {
      test(`the result table on a phone ${label} (${locale}): notes readable, headers on one line, the page not grown`, async (t) => {
        const id = await finishedGame();
        const { page: p } = await person(browser, `table-${label}-${locale}`, { viewport, locale, touch: true });
        await shots(t, [p], async () => {
          await p.goto(`${BASE}/g/${id}`);
          await p.waitForSelector('#score-table tbody tr');
          const m = await p.evaluate(() => {
            const table = document.querySelector('#score-table');
            const notes = [...table.querySelectorAll('td.notes')].map((td) => td.getBoundingClientRect().width);
            // One line: every box of a cell's text on the same top.
            const lineCount = (el) => {
              const r = document.createRange();
              r.selectNodeContents(el);
              return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
            };
            const lines = [...table.querySelectorAll('thead th')].map(lineCount);
            // A rule set's name (its "← this game" mark may go under it) and every number and result.
            const cells = [...table.querySelectorAll('tbody th'), ...table.querySelectorAll('tbody td:not(.notes)')].filter((c) => lineCount(c.tagName === 'TH' ? c.firstChild : c) > 1).map((c) => c.textContent);
            return {
              notes: Math.min(...notes),
              heads: lines,
              cells,
              height: document.documentElement.scrollHeight,
              width: document.documentElement.scrollWidth,
              inner: window.innerWidth,
              tableHeight: table.getBoundingClientRect().height,
            };
          });
          console.log(`# ${label} ${locale}: ${JSON.stringify(m)}`);
          assert.ok(m.notes >= 200, `the notes column is ${m.notes}px wide`);
          assert.ok(m.heads.every((n) => n === 1), `every header on one line: ${m.heads}`);
          assert.deepEqual(m.cells, [], 'every cell but the notes on one line (a result, a rule set’s name)');
          assert.ok(m.width <= m.inner + 1, `the page is not wider than the phone (${m.width} > ${m.inner})`);
          // Nine rows of notes at a readable width keep the table short: on this game it is about
          // 400 px tall (it was 1,000–1,200 px upright with the notes squeezed to a few
          // characters a line, and the whole page was 2,300–2,500 px).
          assert.ok(m.tableHeight < 700, `the table is ${m.tableHeight}px tall`);
          if (label === 'upright') {
            await p.evaluate(() => document.querySelector('#score-table').scrollIntoView());
            await keep(p, `phone-result-table-${locale.slice(0, 2)}`);
            // Scrolled sideways in its box: the results and the notes.
            await p.evaluate(() => {
              document.querySelector('#score-table').closest('.table-wrap').scrollLeft = 10000;
            });
            await keep(p, `phone-result-table-notes-${locale.slice(0, 2)}`);
          }
        });
      });
    }
  }

  test('a tap does not tint the board, and the zoomed 19×19 quadrant keeps grid lines off its labels', async (t) => {
    const g = await createGo({ size: 19, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
    const { page: p } = await person(browser, 'zoom', { viewport: PHONE, touch: true });
    await shots(t, [p], async () => {
      await p.goto(`${BASE}${g.seats.black.url}`);
      await p.waitForSelector('body[data-myturn="1"]');
      const tint = await p.evaluate(() => getComputedStyle(document.querySelector('svg.goban')).webkitTapHighlightColor);
      assert.equal(tint, 'rgba(0, 0, 0, 0)', 'no tap highlight on the board');
      // A tap on D16 zooms to the upper-left quadrant (the move waits for its confirmation).
      const at = await pointAt(p, 'D16');
      await p.touchscreen.tap(at.x, at.y);
      await p.waitForSelector('svg.goban.zoomed');
      const bad = await p.evaluate(() => {
        const svg = document.querySelector('svg.goban');
        const { cols, rows } = window.__baduk.page.state.size;
        const bands = [...svg.querySelectorAll('.coords.zoomed rect.zoom-band')].map((r) => r.getBBox());
        const labels = [...svg.querySelectorAll('.coords.zoomed text')];
        const onTop = (el) => svg.querySelector('g.grid').compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING;
        const covered = (x1, y1, x2, y2) => bands.some((r) => r.x <= x1 + 1e-6 && x2 <= r.x + r.width + 1e-6 && r.y <= y1 + 1e-6 && y2 <= r.y + r.height + 1e-6);
        // Every grid line through the middle of a label's box (its glyphs; the box's outer fifth
        // each way is the font's spacing) runs under a band there.
        const crossed = (l) => {
          const b = l.getBBox();
          const [x1, x2, y1, y2] = [b.x + b.width * 0.2, b.x + b.width * 0.8, b.y + b.height * 0.2, b.y + b.height * 0.8];
          for (let k = 0; k < rows; k++) if (k >= y1 && k <= y2 && Math.max(x1, 0) <= Math.min(x2, cols - 1) && !covered(Math.max(x1, 0), k, Math.min(x2, cols - 1), k)) return true;
          for (let k = 0; k < cols; k++) if (k >= x1 && k <= x2 && Math.max(y1, 0) <= Math.min(y2, rows - 1) && !covered(k, Math.max(y1, 0), k, Math.min(y2, rows - 1))) return true;
          return false;
        };
        const out = labels.filter((l) => !onTop(l) || crossed(l)).map((l) => l.textContent);
        return { labels: labels.length, bands: bands.length, out };
      });
      assert.ok(bad.labels > 0, 'the zoomed view has labels on its inner edges');
      assert.ok(bad.bands > 0, 'and bands of wood under them');
      assert.deepEqual(bad.out, [], 'no grid line crosses an inner-edge label');
      // Inside the view: no label is cut by its edge.
      const clipped = await p.evaluate(() => {
        const svg = document.querySelector('svg.goban');
        const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
        return [...svg.querySelectorAll('.coords.zoomed text')].filter((l) => {
          const b = l.getBBox();
          return b.x < x || b.y < y || b.x + b.width > x + w || b.y + b.height > y + h;
        }).map((l) => l.textContent);
      });
      assert.deepEqual(clipped, []);
      await keep(p, 'phone-zoomed-19x19');
    });
  });

  test('the review page on a phone opens at its top, the header in sight', async (t) => {
    // 60 moves on rows 1, 3 and 5 (no captures): a move list long enough to scroll on its own;
    // showing its last move once scrolled the whole page down 51–61 px.
    let s = '(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[6.5]PB[Kim]PW[Lee]';
    const L = 'abcdefghijklmnopqrs';
    for (let i = 0; i < 60; i++) s += `;${i % 2 ? 'W' : 'B'}[${L[i % 19]}${L[2 * Math.floor(i / 19)]}]`;
    const r = await fetch(`${BASE}/api/reviews`, { method: 'POST', body: `${s})` });
    assert.equal(r.status, 201);
    const { id } = await r.json();
    for (const locale of ['en-US', 'ko-KR']) {
      const { page: p } = await person(browser, `review-phone-${locale}`, { viewport: PHONE, locale, touch: true });
      await shots(t, [p], async () => {
        await p.goto(`${BASE}/r/${id}`);
        await p.waitForSelector('body[data-ready="1"]');
        await p.waitForSelector('#scores tbody tr');
        await new Promise((ok) => setTimeout(ok, 1000));
        assert.equal(await p.evaluate(() => window.scrollY), 0, `opened at the top (${locale})`);
        const head = await p.evaluate(() => document.querySelector('header.top').getBoundingClientRect().top);
        assert.ok(head >= 0, `the header is in sight (${head})`);
        // The list itself shows the last move.
        const seen = await p.evaluate(() => {
          const list = document.querySelector('#moves');
          const cur = list.querySelector('li.current');
          const a = list.getBoundingClientRect();
          const b = cur.getBoundingClientRect();
          return b.top >= a.top - 1 && b.bottom <= a.bottom + 1;
        });
        assert.ok(seen, 'the move list shows the current move');
      });
    }
  });
});
