// The pages themselves: a game id that does not exist, first paint and page weight, joining an
// open seat from the lobby's list, the language switch, and a phone-sized screen with touch.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE, launch, person, shots, api, record, docShot } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('pages', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('the example game (examples/game-9x9.sgf) played over the API, seen mid-game and scored', async (t) => {
    // Its moves, in GTP coordinates (SGF "ee" is E5 on 9×9; an empty move is a pass).
    const sgf = fs.readFileSync(path.resolve(here, '..', '..', '..', 'examples', 'game-9x9.sgf'), 'utf8');
    const moves = [...sgf.matchAll(/;([BW])\[([a-s]{0,2})\]/g)].map(([, , m]) =>
      m ? `${'ABCDEFGHJ'[m.charCodeAt(0) - 97]}${9 - (m.charCodeAt(1) - 97)}` : 'pass',
    );
    const g = await api('POST', '/api/games', { game: 'go', size: 9, rules: 'chinese', komi: 7, clock: 'byo-yomi:600:5:30', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
    assert.equal(g.status, 201, JSON.stringify(g.data));
    const tok = [g.data.seats.black.token, g.data.seats.white.token];
    const play = async (from, to) => {
      for (let i = from; i < to; i++) {
        const r = await api('POST', `/api/games/${g.data.id}/actions`, { action: moves[i] }, tok[i % 2]);
        assert.equal(r.status, 200, `${moves[i]}: ${JSON.stringify(r.data)}`);
      }
    };
    await play(0, 22);
    const { page } = await person(browser, 'example');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}${g.data.seats.black.url}`);
      await page.waitForSelector('[data-action=pass]');
      // The board is drawn from the first state; the session and the socket come after it and
      // redraw it (the header fills in, the socket's state arrives): hover once they are in.
      await page.waitForSelector('body[data-account][data-ws=open]');
      // The hover stone on a legal point, as a player sees it before clicking.
      const box = await page.evaluate(() => {
        const svg = document.querySelector('svg.goban');
        const pt = svg.createSVGPoint();
        pt.x = 6; // G7
        pt.y = 2;
        const p = pt.matrixTransform(svg.getScreenCTM());
        return { x: p.x, y: p.y };
      });
      await page.mouse.move(box.x, box.y);
      await page.waitForSelector('circle.ghost[visibility=visible]');
      await docShot(page, 'go-midgame', { docs: true });
      await play(22, moves.length);
      await page.waitForSelector('body[data-phase=marking]');
      for (const tk of tok) assert.equal((await api('POST', `/api/games/${g.data.id}/actions`, { action: 'accept' }, tk)).status, 200);
      await page.waitForSelector('#score-table tbody tr');
      const rows = await page.$$eval('#score-table tbody tr', (trs) => trs.length);
      assert.ok(rows >= 9, `${rows} rows`);
      await docShot(page, 'go-score-table', { fullPage: true, docs: true });
    });
  });

  test('a dispute in the dead-stone phase asks first and follows the game’s rules (area: resume; japanese: art. 9 or art. 7)', async (t) => {
    const { page } = await person(browser, 'dispute');
    await shots(t, [page], async () => {
      for (const [rules, hintWord, ways, first] of [
        ['chinese', /resumes/, ['resume'], 'white'],
        ['japanese', /art\. 9.*art\. 7/, ['resume', 'confirm'], 'black'],
      ]) {
        const g = await api('POST', '/api/games', { game: 'go', size: 9, rules, seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
        assert.equal(g.status, 201, JSON.stringify(g.data));
        const [tb, tw] = [g.data.seats.black.token, g.data.seats.white.token];
        for (const [tok, mv] of [[tb, 'E5'], [tw, 'pass'], [tb, 'pass']]) {
          const r = await api('POST', `/api/games/${g.data.id}/actions`, { action: mv }, tok);
          assert.equal(r.status, 200, JSON.stringify(r.data));
        }
        await page.goto(`${BASE}${g.data.seats.white.url}`);
        await page.waitForSelector('body[data-phase=marking]');
        const hint = await page.textContent('#controls .hint');
        assert.match(hint, hintWord, hint);
        await page.click('[data-action=dispute]');
        await page.waitForSelector('.dispute-box');
        assert.deepEqual(await page.$$eval('.dispute-box [data-way]', (ws) => ws.map((w) => w.dataset.way)), ways);
        await page.click('[data-action=dispute-resume]');
        await page.waitForSelector('body[data-phase=play]');
        // Black passed last and White asked: under area rules White plays on; under art. 9
        // the opponent of the one who asked, Black, moves first.
        await page.waitForSelector(`.player.seat-${first}.to-move`);
      }
    });
  });

  test('a game id that does not exist shows a clear page', async (t) => {
    const { page } = await person(browser, 'notfound');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}/g/no-such-game`);
      await page.waitForSelector('#notfound:not([hidden])');
      assert.match(await page.textContent('#notfound h1'), /No such game/);
      assert.match(await page.textContent('#notfound p'), /no-such-game/);
      assert.equal(await page.getAttribute('#notfound a', 'href'), '/');
    });
  });

  test('first paint under 1 s and page weight under 300 KB (loopback)', async (t) => {
    const g = await api('POST', '/api/games', { game: 'go', size: 19, rules: 'japanese', clock: 'byo-yomi:600:5:30', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
    assert.equal(g.status, 201, JSON.stringify(g.data));
    const tb = g.data.seats.black.token;
    const tw = g.data.seats.white.token;
    for (const [tok, mv] of [[tb, 'Q16'], [tw, 'D4'], [tb, 'Q4'], [tw, 'D16']]) {
      const r = await api('POST', `/api/games/${g.data.id}/actions`, { action: mv }, tok);
      assert.equal(r.status, 200, JSON.stringify(r.data));
    }
    const { page } = await person(browser, 'speed');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}/g/${g.data.id}`);
      await page.waitForSelector('circle.stone');
      const m = await page.evaluate(() => {
        const paint = performance.getEntriesByName('first-contentful-paint')[0];
        const nav = performance.getEntriesByType('navigation')[0];
        const res = performance.getEntriesByType('resource');
        const bytes = res.reduce((a, r) => a + (r.encodedBodySize || r.transferSize || 0), nav.encodedBodySize || nav.transferSize || 0);
        const board = performance.getEntriesByName('baduk-board-drawn')[0];
        return { fcp: paint ? paint.startTime : null, board: board ? board.startTime : null, bytes, files: res.length + 1 };
      });
      record('game_page_first_contentful_paint_ms', m.fcp === null ? null : +m.fcp.toFixed(1));
      record('game_page_board_drawn_ms', m.board === null ? null : +m.board.toFixed(1));
      record('game_page_weight_bytes', m.bytes);
      record('game_page_files', m.files);
      assert.ok(m.fcp !== null && m.fcp < 1000, `first paint ${m.fcp} ms`);
      assert.ok(m.board !== null && m.board < 1000, `board drawn at ${m.board} ms`);
      assert.ok(m.bytes < 300 * 1024, `${m.bytes} bytes`);
    });
  });

  test('the lobby lists an open seat and joining it makes the player that seat', async (t) => {
    const g = await api('POST', '/api/games', { game: 'go', size: 9, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'open' } } });
    assert.equal(g.status, 201, JSON.stringify(g.data));
    const { page } = await person(browser, 'joiner');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}/`);
      await page.click('#list-tabs [data-status=open]');
      const join = `[data-join="${g.data.id}:white"]`;
      await page.waitForSelector(join);
      await Promise.all([page.waitForURL(/\/g\//), page.click(join)]);
      await page.waitForSelector('.player.seat-white .kind >> text=You');
      // The seat is taken: a second claim is refused with the server's message.
      const again = await api('POST', `/api/games/${g.data.id}/join`, { seat: 'white' });
      assert.equal(again.status, 409);
    });
  });

  test('an open seat is taken from the game page’s own link; the watcher becomes the player', async (t) => {
    const g = await api('POST', '/api/games', { game: 'wallgo', seats: { A: { kind: 'open' }, B: { kind: 'bot', bot: 'easy' } } });
    assert.equal(g.status, 201, JSON.stringify(g.data));
    const { page } = await person(browser, 'sitter');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}/g/${g.data.id}`);
      await page.waitForSelector('body[data-role=spectator]');
      assert.equal(await page.$('[data-dest]'), null, 'a spectator sees no lit cells');
      await page.click('[data-sit=A]');
      await page.waitForSelector('body[data-role=player]');
      await page.waitForSelector('.player.seat-A .kind >> text=You');
      await page.waitForSelector('[data-dest]'); // A places first: the free cells are lit
      await page.reload();
      await page.waitForSelector('.player.seat-A .kind >> text=You');
    });
  });

  test('Korean and English, switched in place; a phone-sized screen with touch', async (t) => {
    const g = await api('POST', '/api/games', { game: 'go', size: 9, rules: 'korean', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
    assert.equal(g.status, 201, JSON.stringify(g.data));
    const { page } = await person(browser, 'phone', { viewport: { width: 390, height: 844 }, touch: true, locale: 'ko-KR' });
    await shots(t, [page], async () => {
      await page.goto(`${BASE}${g.data.seats.black.url}`);
      await page.waitForSelector('[data-action=pass]');
      assert.match(await page.textContent('[data-action=pass]'), /착수포기/);
      // A tap shows the stone to be played (the move-confirm step is on for touch); a second tap
      // on it plays.
      const box = await page.evaluate(() => {
        const svg = document.querySelector('svg.goban');
        const pt = svg.createSVGPoint();
        pt.x = 4;
        pt.y = 4;
        const p = pt.matrixTransform(svg.getScreenCTM());
        return { x: p.x, y: p.y };
      });
      await page.touchscreen.tap(box.x, box.y);
      await page.waitForSelector('circle.ghost.pending[data-point=E5][visibility=visible]');
      await page.touchscreen.tap(box.x, box.y);
      await page.waitForSelector('circle.stone.black[data-point=E5]');
      // The board fits the screen's width.
      const w = await page.evaluate(() => document.querySelector('svg.goban').getBoundingClientRect().width);
      assert.ok(w <= 390 && w > 300, `board ${w}px`);
      // The keyboard: the board takes the focus, arrows move its cursor, Enter plays. This
      // browser now holds White's link too (one device, both seats): it plays for the side to move.
      await page.goto(`${BASE}${g.data.seats.white.url}`);
      await page.waitForSelector('.player.seat-white.to-move .kind >> text=나');
      await page.focus('svg.goban');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter'); // the confirm step: Enter again on the same point
      await page.waitForSelector('circle.stone.white[data-point=E7]');
      await page.click('#lang');
      assert.match(await page.textContent('[data-action=pass]'), /Pass/);
      await page.click('#lang');
      assert.match(await page.textContent('#title'), /바둑/);
    });
  });
});
