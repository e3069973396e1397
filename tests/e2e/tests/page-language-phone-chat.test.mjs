// What a player still trips over, the page's side: the Korean review page says
// everything in Korean (names, coordinates and SGF properties aside) and a language switch
// redraws the move list; on a phone held sideways the board and the panel sit side by side with
// Pass and Resign in view; a Wall Go piece's "stay here" is a button; a chat line typed while the
// socket is down is sent when it is back.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, api, docShot } from './lib.mjs';

/** A 9×9 game by Kim and Lee: Black walls off the left side around a dead white stone, both pass. */
function walled() {
  const b = ['cc', 'cd', 'ce', 'cf', 'cg', 'dg', 'eg', 'fg', 'gg', 'gf', 'ge', 'gd', 'gc', 'fc', 'ec', 'dc'];
  const w = ['ee', 'hh', 'hg', 'hf', 'he', 'hd', 'hc', 'hb', 'gb', 'fb', 'eb', 'db', 'cb', 'bb', 'bc', 'bd'];
  const moves = b.flatMap((p, i) => [`B[${p}]`, `W[${w[i]}]`]);
  return `(;GM[1]FF[4]SZ[9]KM[6.5]RU[Japanese]PB[Kim]PW[Lee]RE[B+3.5]${moves.map((m) => `;${m}`).join('')};B[];W[])`;
}

/** A short game whose fifth move is a one-stone suicide: illegal under most rule sets. */
function suicide() {
  return '(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]PB[Park]PW[Choi];B[ee];W[ba];B[ec];W[ab];B[aa];W[gg])';
}

async function openReview(sgf) {
  const r = await fetch(`${BASE}/api/reviews`, { method: 'POST', headers: { 'content-type': 'application/x-go-sgf' }, body: sgf });
  assert.equal(r.status, 201);
  return (await r.json()).url;
}

/**
 * The Latin words a reader of the page meets (its text, its options, its titles, labels and
 * placeholders, the tab's title), less what is allowed in any language: the players' names
 * (`names`, and what the page marks as a user's text), coordinates (D4, and the board's own
 * labels), SGF properties with their values as the file has them (RU[Japanese]), the site's
 * name and the switch to the other language.
 */
async function latinWords(page, names) {
  const texts = await page.evaluate(() => {
    const out = [document.title];
    const skip = (el) => !el || el.closest('[data-user], [translate=no], #lang, script, style, svg .coords');
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (skip(el)) continue;
      if (!el.closest('select') && !el.checkVisibility()) continue;
      out.push(n.textContent);
    }
    for (const el of document.body.querySelectorAll('[title], [aria-label], [placeholder]')) {
      if (skip(el) || !el.checkVisibility()) continue;
      for (const a of ['title', 'aria-label', 'placeholder']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
    }
    return out;
  });
  const words = [];
  for (let s of texts) {
    for (const n of names) s = s.split(n).join(' ');
    s = s
      .replace(/\b[A-Z]{1,2}\[[^\]]*\]/g, ' ')
      .replace(/\b[A-HJ-T](?:1\d|\d)\b/g, ' ')
      .replace(/\bbaduk\b/g, ' ');
    for (const m of s.matchAll(/[A-Za-z]+/g)) words.push(`${m[0]} (in “${s.trim().slice(0, 90)}”)`);
  }
  return [...new Set(words)];
}

describe('the page: the Korean review page, a phone held sideways, Wall Go stay, chat while offline', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('the Korean review page has no Latin words outside names, coordinates and SGF properties; a language switch redraws the move list', async (t) => {
    const walledUrl = await openReview(walled());
    const suicideUrl = await openReview(suicide());
    const { page } = await person(browser, 'review-reader', { locale: 'ko-KR' });
    await shots(t, [page], async () => {
      const check = async (where, names) => assert.deepEqual(await latinWords(page, names), [], `${where}: Latin words on the Korean page`);
      await page.goto(`${BASE}${walledUrl}`);
      await page.waitForSelector('body[data-ready="1"]');
      assert.equal(await page.getAttribute('html', 'lang'), 'ko');
      // The end: how the game ended, the table of every rule set and why they differ.
      await page.waitForSelector('#scores');
      assert.match(await page.textContent('#why'), /대국 종료: 연속 착수포기로 끝남/);
      await page.check('#overlay');
      await check('the end, Benson on', ['Kim', 'Lee']);
      // An earlier position, scored as it stands.
      for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowLeft');
      await page.click('#score-here');
      await page.waitForSelector('#scores caption >> text=28수');
      await check('move 28, scored', ['Kim', 'Lee']);
      // The engine's review: its budget, its view of each position, the biggest drops.
      await page.click('#run-engine');
      await page.waitForSelector('#engine-status[data-status="done"]', { timeout: 200000 });
      await page.keyboard.press('Home');
      await page.waitForSelector('#engine-here');
      await check('the engine reviewed', ['Kim', 'Lee']);
      // The language switch redraws the move list (its passes) and every line.
      assert.match(await page.textContent('#moves'), /패스/);
      await page.click('#lang');
      await page.waitForSelector('html[lang=en]');
      assert.match(await page.textContent('#moves'), /● pass/);
      assert.doesNotMatch(await page.textContent('#moves'), /패스/);
      assert.match(await page.textContent('#info'), /rules RU\[Japanese\] · komi KM\[6\.5\]/);
      await page.click('#lang');
      await page.waitForSelector('html[lang=ko]');
      assert.match(await page.textContent('#moves'), /● 패스/);
      assert.match(await page.textContent('#info'), /규칙 RU\[Japanese\] · 덤 KM\[6\.5\]/);
      // A record some rule sets refuse: the illegal move said in Korean.
      await page.goto(`${BASE}${suicideUrl}`);
      await page.waitForSelector('body[data-ready="1"]');
      await page.waitForSelector('#rejected');
      await check('a refused record', ['Park', 'Choi']);
      await page.keyboard.press('Home');
      for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
      assert.match(await page.textContent('#why'), /다음 수는 .*반칙입니다: 5수 흑 A9: .*자충수/);
      await check('before the suicide', ['Park', 'Choi']);
      assert.deepEqual(page.errors, []);
    });
  });

  test('a phone held sideways (844×390): the whole board and Pass and Resign in view without scrolling', async (t) => {
    const { page } = await person(browser, 'sideways', { viewport: { width: 844, height: 390 }, touch: true });
    await shots(t, [page], async () => {
      const g = await api('POST', '/api/games', { game: 'go', size: 19, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      assert.equal(g.status, 201, JSON.stringify(g.data));
      await page.goto(`${BASE}${g.data.seats.black.url}`);
      await page.waitForSelector('body[data-myturn="1"]');
      await page.waitForSelector('[data-action=pass]');
      await docShot(page, 'phone-landscape');
      const seen = await page.evaluate(() => {
        const box = (sel) => {
          const r = document.querySelector(sel).getBoundingClientRect();
          return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
        };
        // Each button is the element at its own centre: in view and not covered.
        const onTop = (sel) => {
          const e = document.querySelector(sel);
          const r = e.getBoundingClientRect();
          return e.contains(document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2));
        };
        return { board: box('svg.goban'), pass: box('[data-action=pass]'), resign: box('[data-action=resign]'), passOnTop: onTop('[data-action=pass]'), resignOnTop: onTop('[data-action=resign]'), scrollY: window.scrollY, w: innerWidth, h: innerHeight };
      });
      const inside = (b, what) => assert.ok(b.left >= 0 && b.top >= 0 && b.right <= seen.w + 0.5 && b.bottom <= seen.h + 0.5, `${what} ${JSON.stringify(b)} inside ${seen.w}×${seen.h}`);
      assert.equal(seen.scrollY, 0);
      inside(seen.board, 'the board');
      inside(seen.pass, 'Pass');
      inside(seen.resign, 'Resign');
      assert.ok(seen.passOnTop && seen.resignOnTop, 'Pass and Resign are not covered');
      // Side by side: the panel's buttons are right of the board, not under it.
      assert.ok(seen.pass.left >= seen.board.right, `Pass ${JSON.stringify(seen.pass)} beside the board ${JSON.stringify(seen.board)}`);
      // The board as tall as the screen allows: most of the height under the header.
      assert.ok(seen.board.bottom - seen.board.top > seen.h * 0.8, `board ${JSON.stringify(seen.board)}`);
      // A tap on the board still offers the move.
      const p = await page.evaluate(() => {
        const r = document.querySelector('svg.goban').getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      });
      await page.touchscreen.tap(p.x, p.y);
      await page.waitForSelector('[data-action=confirm-move]');
      assert.deepEqual(page.errors, []);
    });
  });

  test('a Wall Go piece\'s stay is a button ("Stay on B2"), explained in the how-to, in both languages', async (t) => {
    const { page } = await person(browser, 'stayer');
    await shots(t, [page], async () => {
      const w = await api('POST', '/api/games', { game: 'wallgo', variant: 'placement=ABAB stay=out-and-back tiebreak=none', seats: { A: { kind: 'human' }, B: { kind: 'human' } } });
      assert.equal(w.status, 201, JSON.stringify(w.data));
      const { id, seats } = w.data;
      const act = async (seat, action) => {
        const r = await api('POST', `/api/games/${id}/actions`, { action }, seats[seat].token);
        assert.equal(r.status, 200, `${seat} ${action}: ${JSON.stringify(r.data)}`);
      };
      for (const [seat, cell] of [['A', 'D4'], ['B', 'E3'], ['A', 'D5'], ['B', 'C6']]) await act(seat, `place ${cell}`);
      // B moves first: a turn far from A's piece on B2.
      const st = await api('GET', `/api/games/${id}`, undefined, seats.B.token);
      await act('B', st.data.legal.find((a) => a.startsWith('F2-')));
      await page.goto(`${BASE}${seats.A.url}`);
      await page.waitForSelector('body[data-myturn="1"]');
      // The how-to says where the stay is.
      assert.match(await page.textContent('li[data-howto-buttons]'), /“Stay on …”/);
      await page.click('g.piece[data-piece=B2]');
      await page.waitForSelector('[data-action=wallstay]');
      assert.equal((await page.textContent('[data-action=wallstay]')).trim(), 'Stay on B2');
      await page.click('#lang');
      assert.equal((await page.textContent('[data-action=wallstay]')).trim(), 'B2 제자리에 머물기');
      assert.match(await page.textContent('li[data-howto-buttons]'), /제자리에 머물기/);
      assert.doesNotMatch(await page.textContent('#controls'), /pass/i);
      await page.click('#lang');
      // The button keeps the piece on B2: the wall sides around B2 come next, and the turn is B2-B2.
      await page.click('[data-action=wallstay]');
      await page.waitForSelector('g.cand[data-wall^="B2/"]');
      const v = Number(await page.getAttribute('body', 'data-version'));
      await page.click('g.cand[data-wall^="B2/"] .cand-hit');
      await page.waitForFunction((v) => Number(document.body.dataset.version) > v, v);
      const after = await api('GET', `/api/games/${id}`);
      assert.match(after.data.moves[after.data.moves.length - 1], /B2-B2\/[NESW]/);
      assert.deepEqual(page.errors, []);
    });
  });

  test('a chat line typed while the socket is down shows as pending and reaches the other player when it is back', async (t) => {
    const black = await person(browser, 'chat-black');
    const white = await person(browser, 'chat-white');
    await shots(t, [black.page, white.page], async () => {
      const g = await api('POST', '/api/games', { game: 'go', size: 9, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      assert.equal(g.status, 201, JSON.stringify(g.data));
      for (const [p, seat] of [[black.page, 'black'], [white.page, 'white']]) {
        await p.goto(`${BASE}${g.data.seats[seat].url}`);
        await p.waitForSelector('#chat[data-role=player][data-channel=players]');
        await p.waitForSelector('body[data-ws=open]');
      }
      const line = `typed while offline ${Date.now().toString(36)}`;
      // The network goes: the socket closes and cannot come back until it returns.
      await black.context.setOffline(true);
      await black.page.evaluate(() => window.__baduk.ws.drop());
      await black.page.waitForSelector('body[data-ws=closed]');
      await black.page.fill('#chat input[name=chat]', line);
      await black.page.press('#chat input[name=chat]', 'Enter');
      // Kept and said: the line waits in the log, marked as not sent yet.
      await black.page.waitForSelector('#chat li.pending[data-state=queued]');
      assert.equal(await black.page.textContent('#chat li.pending [data-chat-text]'), line);
      assert.match(await black.page.textContent('#chat li.pending'), /not sent yet/);
      assert.equal(await black.page.inputValue('#chat input[name=chat]'), '');
      assert.equal(await black.page.getAttribute('body', 'data-ws'), 'closed', 'the socket stayed down while the line was written');
      // The network is back: the socket reopens, the line goes out once and reaches White.
      await black.context.setOffline(false);
      await white.page.waitForSelector(`#chat li[data-channel=players] [data-chat-text] >> text=${line}`, { timeout: 20000 });
      await black.page.waitForSelector(`#chat li[data-seq] [data-chat-text] >> text=${line}`);
      await black.page.waitForSelector('#chat li.pending', { state: 'detached' });
      const seen = await white.page.$$eval('#chat li[data-channel=players] [data-chat-text]', (es, line) => es.filter((e) => e.textContent === line).length, line);
      assert.equal(seen, 1, 'the line arrived once');
      assert.deepEqual(black.page.errors, []);
      assert.deepEqual(white.page.errors, []);
    });
  });
});
