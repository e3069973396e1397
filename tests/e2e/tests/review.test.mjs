// Reviews: a 19×19 record pasted in the lobby, stepped through, a dead group marked
// and the table recounted, the engine's review with its graph and a mistake and its line; a Wall
// Go record likewise; a finished game's "Review this game" button; Korean and a phone's screen;
// the page's weight and time to the first board.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sgf from '@sabaki/sgf';
import { BASE, launch, person, shots, api, record } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const examples = path.resolve(here, '..', '..', '..', 'examples');

/** A 19×19 record: Black takes the 4-4 and 3-4 points, White crawls on the first line. */
const LOP_B = ['pd', 'dp', 'pp', 'dd', 'jj', 'pj', 'jd', 'jp', 'dj', 'nc', 'cn', 'qn', 'nq', 'fc', 'cf', 'qf'];
const LOP_W = ['aa', 'ba', 'ca', 'ab', 'sa', 'ra', 'sb', 'as', 'bs', 'ar', 'ss', 'rs', 'sr', 'da', 'ea', 'fa'];

function lopsided() {
  const [b, w] = [LOP_B, LOP_W];
  let s = '(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[6.5]RU[Japanese]PB[흑돌]PW[White]C[a lopsided game]';
  for (let i = 0; i < b.length; i++) s += `;B[${b[i]}];W[${w[i]}]${i === 3 ? 'C[the corner is small]' : ''}`;
  return `${s})`;
}

describe('reviews', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('a pasted 19×19 record: steps, a dead group marked, the engine review and a mistake', async (t) => {
    const { page } = await person(browser, 'reviewer');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}/`);
      await page.fill('#review-text', lopsided());
      await page.click('#review-open');
      await page.waitForURL(/\/r\/[a-z0-9]+$/i);
      await page.waitForSelector('body[data-ready="1"]');
      assert.match(await page.textContent('#title'), /흑돌/);
      assert.match(await page.textContent('#rv-pos'), /Move 32 \/ 32/);
      // Keys, buttons and the slider.
      await page.keyboard.press('Home');
      assert.match(await page.textContent('#rv-pos'), /Start/);
      for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowRight');
      assert.match(await page.textContent('#rv-pos'), /Move 8 \/ 32/);
      assert.match(await page.textContent('#comment'), /the corner is small/);
      await page.click('#rv-prev');
      assert.match(await page.textContent('#rv-pos'), /Move 7 \/ 32/);
      await page.$eval('#rv-slider', (s) => {
        s.value = '20';
        s.dispatchEvent(new Event('input'));
      });
      assert.match(await page.textContent('#rv-pos'), /Move 20 \/ 32/);
      await page.keyboard.press('End');
      // Every rule set accepts it; the table at the end has nine rows.
      assert.match(await page.textContent('#accepted'), /Japanese/);
      await page.waitForSelector('#scores tbody tr');
      assert.equal(await page.$$eval('#scores tbody tr', (r) => r.length), 9);
      const before = await page.textContent('#scores tbody');
      // Mark White's A19 group dead by clicking it: the table is recounted. (The board's top in
      // sight first: the page below the board is long enough to keep the nav's click scrolled.)
      await page.evaluate(() => window.scrollTo(0, 0));
      const box = await page.evaluate(() => {
        const svg = document.querySelector('svg.goban');
        const pt = svg.createSVGPoint();
        pt.x = 0;
        pt.y = 0;
        const p = pt.matrixTransform(svg.getScreenCTM());
        return { x: p.x, y: p.y };
      });
      const t0 = Date.now();
      await page.mouse.click(box.x, box.y);
      await page.waitForFunction(() => /A19/.test(document.querySelector('#dead-line')?.textContent || '') && !document.querySelector('#busy'));
      record('review_toggle_round_trip_ms', Date.now() - t0);
      assert.notEqual(await page.textContent('#scores tbody'), before);
      assert.ok(await page.$('path.cross[data-dead="A19"]'));
      // The unconditional-status overlay (an opening has little that is unconditional: the
      // legend says what the marks would be).
      await page.check('#overlay');
      await page.waitForSelector('#legend');
      // The engine's review: progress, the graph, a mistake and its line on the board.
      const t1 = Date.now();
      await page.click('#run-engine');
      await page.waitForSelector('#engine-status[data-status="done"]', { timeout: 240000 });
      record('review_engine_32_moves_19x19_ms', Date.now() - t1);
      assert.equal(await page.getAttribute('#engine-progress', 'value'), await page.getAttribute('#engine-progress', 'max'));
      await page.waitForSelector('#graph polyline.g-line');
      await page.waitForSelector('#mistakes li button');
      await page.click('#mistakes li button');
      await page.waitForSelector('svg.goban g.pv[data-pv="1"]');
      assert.match(await page.textContent('#engine-here'), /prefers/);
      assert.match(await page.getAttribute('#export', 'href'), /analysis=1/);
      // Korean.
      await page.click('#lang');
      assert.match(await page.textContent('#title'), /복기/);
      assert.match(await page.textContent('#engine h2'), /엔진 복기/);
      await page.click('#lang');
      assert.deepEqual(page.errors, []);
    });
  });

  test('a Wall Go record: replayed with its regions and reviewed by expert', async (t) => {
    const r = await fetch(`${BASE}/api/reviews`, { method: 'POST', body: fs.readFileSync(path.join(examples, 'game.wallgo')) });
    assert.equal(r.status, 201);
    const { url } = await r.json();
    const { page } = await person(browser, 'wall');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}${url}`);
      await page.waitForSelector('body[data-ready="1"]');
      await page.waitForSelector('svg.wallboard');
      const end = await page.textContent('[data-score]');
      await page.keyboard.press('Home');
      assert.notEqual(await page.textContent('[data-score]'), end);
      await page.keyboard.press('End');
      await page.click('#run-engine');
      await page.waitForSelector('#engine-status[data-status="done"]', { timeout: 240000 });
      await page.waitForSelector('#graph polyline.g-line');
      await page.keyboard.press('Home');
      assert.match(await page.textContent('#engine-here'), /best turn/);
      // The engine's best turn on the board too: a violet proposal apart from the played move,
      // with its legend; at the end of the game there is none; the switch hides it.
      const best = (await page.textContent('#engine-here')).match(/best turn (.+)$/)[1];
      await page.waitForSelector(`svg.wallboard g.suggest[data-suggest="${best}"]`);
      assert.match(await page.textContent('#suggest-legend'), /engine’s best turn/);
      await page.keyboard.press('ArrowRight');
      const next = (await page.textContent('#engine-here')).match(/best turn (.+)$/)[1];
      await page.waitForSelector(`svg.wallboard g.suggest[data-suggest="${next}"]`);
      const m = /^([A-G][1-7])-([A-G][1-7])\/([NESW])$/.exec(next);
      if (m) {
        assert.ok(await page.$(`svg.wallboard g.suggest line[data-suggest-wall="${m[2]}/${m[3]}"]`));
        assert.ok(await page.$(`svg.wallboard g.suggest circle[data-suggest-cell="${m[2]}"]`));
        assert.equal(!!(await page.$('svg.wallboard g.suggest line.suggest-arrow')), m[1] !== m[2]);
      }
      await page.click('#lang');
      assert.match(await page.textContent('#suggest-legend'), /엔진의 추천 수/);
      await page.click('#lang');
      await page.uncheck('#show-pv');
      assert.equal(await page.$('svg.wallboard g.suggest'), null);
      assert.equal(await page.$('#suggest-legend'), null);
      await page.check('#show-pv');
      await page.keyboard.press('End');
      assert.equal(await page.$('svg.wallboard g.suggest'), null);
      assert.deepEqual(page.errors, []);
    });
  });

  test('the export with the engine review is read by Sabaki\'s SGF parser and by sgfmill', async () => {
    const r = await fetch(`${BASE}/api/reviews`, { method: 'POST', body: lopsided() });
    assert.equal(r.status, 201);
    const { id } = await r.json();
    assert.equal((await api('POST', `/api/reviews/${id}/analysis`)).status, 200);
    const end = Date.now() + 240000;
    for (;;) {
      const a = await api('GET', `/api/reviews/${id}/analysis`);
      if (a.data.status === 'done') break;
      assert.ok(Date.now() < end, JSON.stringify(a.data).slice(0, 300));
      await new Promise((ok) => setTimeout(ok, 300));
    }
    const res = await fetch(`${BASE}/api/reviews/${id}/record?analysis=1`);
    assert.equal(res.status, 200);
    const text = await res.text();
    const trees = sgf.parse(text);
    assert.equal(trees.length, 1);
    const root = trees[0];
    assert.deepEqual(root.data.PB, ['흑돌']);
    assert.deepEqual(root.data.SZ, ['19']);
    assert.match(root.data.C[0], /a lopsided game/);
    assert.match(root.data.C[0], /Engine review \(baduk\): 33 of 33 positions, \d+ playouts each/);
    const line = [];
    for (let n = root.children[0]; n; n = n.children[0]) line.push(n);
    assert.deepEqual(
      line.map((n) => (n.data.B ? `B${n.data.B[0]}` : `W${n.data.W[0]}`)),
      LOP_B.flatMap((b, i) => [`B${b}`, `W${LOP_W[i]}`]),
    );
    for (const n of line) assert.match(n.data.C?.[0] ?? '', /Engine: Black \d+(\.\d)?%, [BW]\+[\d.]+ after this move\./);
    assert.match(line[7].data.C[0], /^the corner is small\n\nEngine: Black/);
    // The same file read by sgfmill (Python; run.sh installs it): same players, moves and comments.
    const mill = JSON.parse(execFileSync('python3', [path.join(here, '..', 'sgfmill_read.py')], { input: text, encoding: 'utf8' }));
    assert.equal(mill.size, 19);
    assert.equal(mill.black, '흑돌');
    assert.equal(mill.white, 'White');
    assert.match(mill.comment, /Engine review \(baduk\): 33 of 33 positions/);
    assert.deepEqual(mill.moves.map((m) => m.move), LOP_B.flatMap((b, i) => [`B${b}`, `W${LOP_W[i]}`]));
    mill.moves.forEach((m, i) => assert.equal(m.comment, line[i].data.C[0]));
  });

  test('a finished game has a review button; a bad file is refused with its line', async (t) => {
    const g = await api('POST', '/api/games', { game: 'go', size: 9, rules: 'chinese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
    assert.equal(g.status, 201);
    const tb = g.data.seats.black.token;
    const tw = g.data.seats.white.token;
    for (const [tok, mv] of [[tb, 'E5'], [tw, 'C3'], [tb, 'resign']]) {
      assert.equal((await api('POST', `/api/games/${g.data.id}/actions`, { action: mv }, tok)).status, 200);
    }
    const { page } = await person(browser, 'finished');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}/g/${g.data.id}`);
      await page.click('#review-game-btn');
      await page.waitForURL(/\/r\/[a-z0-9]+$/i);
      await page.waitForSelector('body[data-ready="1"]');
      assert.match(await page.textContent('#rv-pos'), /Move 2 \/ 2/);
      await page.goto(`${BASE}/`);
      await page.fill('#review-text', '(;GM[1]SZ[9]\n;B[ee]\n;W[zz])');
      await page.click('#review-open');
      await page.waitForFunction(() => /line 3, property W\[zz\]/.test(document.querySelector('#review-error').textContent));
      assert.match(page.url(), /\/$/);
    });
  });

  test('a phone-sized review page, its weight and time to the first board', async (t) => {
    const r = await fetch(`${BASE}/api/reviews`, { method: 'POST', body: lopsided() });
    const { url } = await r.json();
    const { page } = await person(browser, 'phone', { viewport: { width: 390, height: 844 }, touch: true });
    await shots(t, [page], async () => {
      await page.goto(`${BASE}${url}`);
      await page.waitForSelector('body[data-ready="1"]');
      const m = await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const res = performance.getEntriesByType('resource');
        const bytes = res.reduce((a, r) => a + (r.encodedBodySize || r.transferSize || 0), nav.encodedBodySize || nav.transferSize || 0);
        const board = performance.getEntriesByName('baduk-review-board-drawn')[0];
        return { bytes, files: res.length + 1, board: board ? board.startTime : null, wide: document.documentElement.scrollWidth };
      });
      record('review_page_weight_bytes', m.bytes);
      record('review_page_files', m.files);
      record('review_page_board_drawn_ms', m.board === null ? null : +m.board.toFixed(1));
      assert.ok(m.wide <= 390, `the page is ${m.wide} px wide`);
      assert.ok(m.bytes < 300 * 1024, `${m.bytes} bytes`);
      assert.ok(await page.isVisible('#rv-next'));
    });
  });
});
