// What a player trips over in the browser: the dead-stone phase as a negotiation with
// the bot, a Japanese dispute left without a result, undo against the bot, the time charged on a
// resignation, the seat token kept out of the address bar, a replay whose panel follows the
// replayed move, and the Korean page saying the server's messages in Korean.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, api, clickPoint, playPoint, pointAt, version, newerThan, record } from './lib.mjs';

/** An action over the API; a 429 (the server's per-client budget) is waited out and retried. */
async function act(id, tok, action) {
  for (;;) {
    const r = await api('POST', `/api/games/${id}/actions`, { action }, tok);
    if (r.status !== 429) return r;
    await new Promise((ok) => setTimeout(ok, 1000 * (r.data?.retry_after || 1)));
  }
}

async function create(spec) {
  const g = await api('POST', '/api/games', { game: 'go', ...spec });
  assert.equal(g.status, 201, JSON.stringify(g.data));
  return g.data;
}

/** Black passes whenever it is to move until the bot's passes open the dead-stone phase. */
async function passToMarking(id, tok) {
  for (let i = 0; i < 200; i++) {
    const st = (await api('GET', `/api/games/${id}`)).data;
    if (st.phase === 'marking') return st;
    if (st.to_move === 'black') assert.equal((await act(id, tok, 'pass')).status, 200);
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error('the bot never passed');
}

/** A stone whose chain the estimator settled (no unsettled anchor in it), or null. */
function settledStone(st) {
  const name = (x, y) => `${st.columns[x]}${st.size.rows - y}`;
  const at = (x, y) => st.board[y]?.[x];
  const unsettled = new Set(st.marking.unsettled);
  for (let y = 0; y < st.size.rows; y++) {
    for (let x = 0; x < st.size.cols; x++) {
      const c = at(x, y);
      if (c !== 'B' && c !== 'W') continue;
      const chain = [[x, y]];
      const seen = new Set([name(x, y)]);
      for (let i = 0; i < chain.length; i++) {
        const [cx, cy] = chain[i];
        for (const [nx, ny] of [[cx + 1, cy], [cx - 1, cy], [cx, cy + 1], [cx, cy - 1]]) {
          if (at(nx, ny) === c && !seen.has(name(nx, ny))) {
            seen.add(name(nx, ny));
            chain.push([nx, ny]);
          }
        }
      }
      if (![...seen].some((p) => unsettled.has(p))) return name(x, y);
    }
  }
  return null;
}

/** A 9×9 semeai the art. 7 confirmation cannot settle (as crates/server/tests/games.rs). */
const SEMEAI = ['D5', 'E5', 'D4', 'E4', 'C6', 'F6', 'C3', 'F3', 'D6', 'E6', 'D3', 'E3', 'pass', 'pass'];

describe('the game page: dead stones, undo, seat tokens, replay, Korean, phone taps, sound', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('against the bot one click changes the proposal: the bot puts its marks back with a reason and the game goes on; dispute asks first', async (t) => {
    const { page } = await person(browser, 'negotiate');
    await shots(t, [page], async () => {
      // The bot's moves follow the game's random id: a game whose end leaves no chain the
      // estimator settled is set aside and another one played (a few at most).
      let g;
      let st;
      let target = null;
      for (let tries = 0; tries < 5 && !target; tries++) {
        g = await create({ size: 5, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'bot', bot: 'baduk', options: 'level=1,time=0.2' } } });
        assert.equal((await act(g.id, g.seats.black.token, 'C3')).status, 200);
        st = await passToMarking(g.id, g.seats.black.token);
        // One click on a chain: it toggles the proposal (today the bot disputed and the game
        // ended). A chain the bot's analysis settled (one it left unsettled is the players' call).
        target = settledStone(st);
      }
      assert.ok(target, 'a settled stone to mark');
      await page.goto(`${BASE}${g.seats.black.url}`);
      await page.waitForSelector('body[data-phase=marking]');
      const v = await version(page);
      await clickPoint(page, target);
      await newerThan(page, v);
      await page.waitForSelector('[data-restored=white]', { timeout: 15000 });
      const after = (await api('GET', `/api/games/${g.id}`)).data;
      assert.equal(after.phase, 'marking', 'the game goes on');
      assert.deepEqual(after.marking.dead, after.marking.proposed, 'the bot put its marks back');
      assert.ok(after.actions.every((a) => !/^dispute/.test(a.action)), 'the bot never disputes');
      assert.match(await page.textContent('[data-restored=white]'), new RegExp(target));
      // Dispute is a button with a confirmation naming the 1989 rules' two ways.
      await page.click('[data-action=dispute]');
      await page.waitForSelector('.dispute-box');
      assert.match(await page.textContent('[data-way=resume]'), /Art\. 9.*opponent moves first/);
      assert.match(await page.textContent('[data-way=confirm]'), /Art\. 7/);
      await page.click('[data-action=dispute-cancel]');
      await page.waitForSelector('.dispute-box', { state: 'detached' });
      assert.equal((await api('GET', `/api/games/${g.id}`)).data.phase, 'marking', 'cancel changes nothing');
      await page.click('[data-action=dispute]');
      await page.click('[data-action=dispute-resume]');
      // Art. 9: play resumes and the opponent (the bot) moves first (it may pass at once, and
      // the dead-stone phase opens again).
      let acts = [];
      for (let k = 0; k < 100; k++) {
        acts = (await api('GET', `/api/games/${g.id}`)).data.actions;
        const i = acts.findIndex((a) => a.action === 'dispute resume');
        if (i >= 0 && acts.length > i + 1) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const i = acts.findIndex((a) => a.action === 'dispute resume');
      assert.ok(i >= 0, 'the resumption is stored');
      assert.equal(acts[i].seat, 'black');
      assert.equal(acts[i + 1]?.seat, 'white', 'the bot moves first after the resumption');
    });
  });

  test('a Japanese dispute the art. 7 confirmation does not settle is “no result (disputed)”, the chain named, no row is this game’s', async (t) => {
    const { page } = await person(browser, 'jp-dispute');
    await shots(t, [page], async () => {
      const g = await create({ size: 9, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      const tok = [g.seats.black.token, g.seats.white.token];
      for (let i = 0; i < SEMEAI.length; i++) assert.equal((await act(g.id, tok[i % 2], SEMEAI[i])).status, 200);
      await page.goto(`${BASE}${g.seats.white.url}`);
      await page.waitForSelector('body[data-phase=marking]');
      // Nothing in dispute yet: the page says so and nothing changes.
      await page.click('[data-action=dispute]');
      await page.click('[data-action=dispute-confirm]');
      await page.waitForSelector('#message.error');
      assert.match(await page.textContent('#message'), /Nothing is in dispute/);
      assert.equal((await api('GET', `/api/games/${g.id}`)).data.phase, 'marking');
      const v = await version(page);
      await clickPoint(page, 'D5');
      await newerThan(page, v);
      await page.click('[data-action=dispute]');
      await page.click('[data-action=dispute-confirm]');
      await page.waitForSelector('body[data-status=finished]');
      const line = await page.textContent('.result-line');
      assert.match(line, /No result \(disputed\)/);
      assert.doesNotMatch(line, /Draw/);
      assert.match(await page.textContent('#result .detail'), /D5/);
      const check = await page.textContent('[data-check=D5]');
      assert.match(check, /White first: ○[A-J]\d/);
      assert.equal(await page.$$eval('#score-table tr.this', (r) => r.length), 0, 'no row is this game’s result');
      const sgf = await fetch(`${BASE}/api/games/${g.id}/record`).then((r) => r.text());
      assert.match(sgf, /RE\[Void\]/);
      assert.match(sgf, /C\[no result \(disputed\)/);
    });
  });

  test('undo against the bot takes back my move and its reply', async (t) => {
    const { page } = await person(browser, 'undo-bot');
    await shots(t, [page], async () => {
      const g = await create({ size: 9, rules: 'chinese', seats: { black: { kind: 'human' }, white: { kind: 'bot', bot: 'baduk', options: 'level=1,time=0.2' } } });
      // Nothing to undo yet: a 409 with its code, nothing stored.
      const none = await act(g.id, g.seats.black.token, 'undo');
      assert.equal(none.status, 409);
      assert.equal(none.data.code, 'undo.nothing');
      // A mark or a dispute out of the dead-stone phase: a 400 with its code, nothing stored.
      for (const a of ['dead E5', 'dispute']) {
        const bad = await act(g.id, g.seats.black.token, a);
        assert.equal(bad.status, 400, a);
        assert.equal(bad.data.code, 'marking.not_now');
      }
      assert.equal((await api('GET', `/api/games/${g.id}`)).data.version, 0, 'nothing stored');
      await page.goto(`${BASE}${g.seats.black.url}`);
      await page.waitForSelector('body[data-myturn="1"]');
      assert.equal(await page.isDisabled('[data-action=undo]'), true);
      await playPoint(page, 'E5');
      await page.waitForFunction(() => window.__baduk.page.state.moves.length === 2 && document.body.dataset.myturn === '1', null, { timeout: 20000 });
      assert.equal(await page.isDisabled('[data-action=undo]'), false, 'undo is possible on my turn');
      await page.click('[data-action=undo]');
      await page.waitForFunction(() => window.__baduk.page.state.moves.length === 0, null, { timeout: 20000 });
      await page.waitForSelector('circle.stone', { state: 'detached' });
      const st = (await api('GET', `/api/games/${g.id}`)).data;
      assert.equal(st.to_move, 'black');
      assert.equal(st.undo_request, null);
    });
  });

  test('a resignation is charged the time since the last move', async (t) => {
    const { page } = await person(browser, 'resign-time');
    await shots(t, [page], async () => {
      const g = await create({ size: 9, rules: 'chinese', clock: 'absolute:300', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      assert.equal((await act(g.id, g.seats.black.token, 'E5')).status, 200);
      await page.goto(`${BASE}${g.seats.white.url}`);
      await page.waitForSelector('body[data-myturn="1"]');
      await page.waitForTimeout(3200);
      await page.click('[data-action=resign]');
      await page.click('[data-action=resign]');
      await page.waitForSelector('body[data-status=finished]');
      const st = (await api('GET', `/api/games/${g.id}`)).data;
      assert.ok(st.clocks.white.main_ms <= 297000, `white's clock ${st.clocks.white.main_ms} ms`);
      const shown = await page.textContent('[data-clock=white] .main');
      record('resign_clock_shown', shown);
      assert.notEqual(shown, '5:00');
    });
  });

  test('the seat token leaves the address bar at once and a later visit resumes the seat', async (t) => {
    const A = await person(browser, 'token');
    const B = await person(browser, 'token-other');
    await shots(t, [A.page, B.page], async () => {
      const g = await create({ size: 9, rules: 'chinese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      assert.match(g.seats.black.url, /#token=/);
      await A.page.goto(`${BASE}${g.seats.black.url}`);
      await A.page.waitForSelector('body[data-role=player]');
      assert.equal(A.page.url(), `${BASE}/g/${g.id}`, 'the address bar holds the spectator URL');
      assert.equal(await A.page.getAttribute('[data-copy=watch]', 'data-url'), `${BASE}/g/${g.id}`, '“copy link” gives the spectator URL');
      const held = await A.page.evaluate((id) => localStorage.getItem(`baduk.seats.${id}`), g.id);
      assert.match(held, new RegExp(g.seats.black.token));
      await A.page.goto(`${BASE}/g/${g.id}`);
      await A.page.waitForSelector('.player.seat-black .kind >> text=You');
      // The address bar's URL, in another browser, is a spectator's.
      await B.page.goto(A.page.url());
      await B.page.waitForSelector('body[data-role=spectator]');
      // A seat-token link handed out (by an API client, or by the lobby before invitations were
      // "join as yourself") and sent to the wrong person: "New link" makes a new one, the old
      // one stops working.
      const g2 = await create({ size: 9, rules: 'chinese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      await A.page.goto(`${BASE}${g2.seats.black.url}`);
      await A.page.waitForSelector('body[data-role=player]');
      await A.page.evaluate(([id, url]) => localStorage.setItem(`baduk.invites.${id}`, JSON.stringify({ white: url })), [g2.id, `${BASE}${g2.seats.white.url}`]);
      await A.page.reload();
      await A.page.waitForSelector('[data-rotate=white]');
      const old = await A.page.inputValue('input[data-invite=white]');
      assert.match(old, /#token=/);
      await A.page.click('[data-rotate=white]');
      await A.page.waitForFunction((o) => document.querySelector('input[data-invite=white]')?.value !== o, old);
      const fresh = await A.page.inputValue('input[data-invite=white]');
      const gid = new URL(A.page.url()).pathname.split('/')[2];
      const tokenOf = (u) => new URLSearchParams(new URL(u).hash.slice(1)).get('token');
      assert.equal((await act(gid, tokenOf(old), 'pass')).status, 403, 'the old link is refused');
      await B.page.goto(fresh);
      await B.page.waitForSelector('.player.seat-white .kind >> text=You');
    });
  });

  test('a replay’s panel follows the replayed move, and the move list of a 90-move game wraps, scrolls and jumps', async (t) => {
    const { page } = await person(browser, 'replay', { viewport: { width: 1280, height: 860 } });
    await shots(t, [page], async () => {
      const g = await create({ size: 9, rules: 'chinese', clock: 'byo-yomi:600:3:30', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      const tok = [g.seats.black.token, g.seats.white.token];
      let caps = null;
      for (let i = 0; i < 90; i++) {
        const st = (await api('GET', `/api/games/${g.id}`)).data;
        const legal = st.legal.filter((m) => m !== 'pass');
        const mv = legal[(i * 7919 + 13) % legal.length];
        const r = await act(g.id, tok[i % 2], mv);
        assert.equal(r.status, 200, JSON.stringify(r.data));
        caps = r.data.captures;
      }
      assert.equal((await act(g.id, tok[0], 'resign')).status, 200);
      const at20 = (await api('GET', `/api/games/${g.id}?move=20`)).data;
      assert.notDeepEqual(at20.captures, caps, 'captures at move 20 differ from the final ones');
      await page.goto(`${BASE}/g/${g.id}`);
      await page.waitForSelector('body[data-status=finished]');
      await page.click('details.moves summary');
      const ol = await page.$eval('#moves', (e) => ({ sw: e.scrollWidth, cw: e.clientWidth }));
      assert.ok(ol.sw <= ol.cw + 1, `the list is not clipped at the right (${ol.sw} px in ${ol.cw} px)`);
      record('replay_moves_box', ol);
      await page.$eval('#moves li[data-move="90"]', (e) => e.scrollIntoView());
      assert.ok(await page.isVisible('#moves li[data-move="90"]'));
      await page.click('#moves li[data-move="20"] button');
      await page.waitForFunction(() => window.__baduk.page.replay?.n === 20);
      await page.waitForFunction((c) => document.querySelector('[data-caps=black]')?.textContent.endsWith(` ${c}`), at20.captures.black);
      assert.match(await page.textContent('[data-caps=white]'), new RegExp(` ${at20.captures.white}$`));
      assert.match(await page.textContent('#replay-pos'), /20/);
      const stones = await page.$$eval('circle.stone', (s) => s.length);
      const want = at20.board.join('').replace(/\./g, '').length;
      assert.equal(stones, want);
      // The clocks are those after move 20 (more main time left than at the end).
      const main20 = at20.clocks.black.main_ms;
      const fin = (await api('GET', `/api/games/${g.id}`)).data.clocks.black.main_ms;
      assert.ok(main20 >= fin);
    });
  });

  test('the Korean page says server messages, results and rules in Korean', async (t) => {
    const { page } = await person(browser, 'korean', { locale: 'ko-KR' });
    await shots(t, [page], async () => {
      const g = await create({ size: 9, rules: 'chinese', clock: 'byo-yomi:180:3:10', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      const tok = [g.seats.black.token, g.seats.white.token];
      assert.equal((await act(g.id, tok[0], 'E5')).status, 200);
      await page.goto(`${BASE}${g.seats.white.url}`);
      await page.waitForSelector('body[data-myturn="1"]');
      const info = await page.textContent('#info');
      assert.match(info, /중국 규칙/);
      assert.match(info, /초읽기: 3분 \+ 10초 3회/);
      assert.doesNotMatch(info, /chinese|time=/);
      await clickPoint(page, 'E5');
      await page.waitForSelector('#message.error');
      const msg = await page.textContent('#message');
      record('korean_error', msg);
      assert.match(msg, /이미 돌이 있는 자리/);
      assert.doesNotMatch(msg, /occupied/);
      for (let i = 1; i < 3; i++) assert.equal((await act(g.id, tok[i % 2], 'pass')).status, 200, `pass ${i}`);
      for (const tk of tok) assert.equal((await act(g.id, tk, 'accept')).status, 200);
      await page.waitForSelector('body[data-status=finished]');
      const detail = await page.textContent('#result .detail');
      assert.match(detail, /중국 규칙으로 계가: 흑 \d+, 백 [\d.]+/);
      const legend = await page.textContent('#result .legend');
      assert.doesNotMatch(legend, /사석 \(사석\)/);
      const head = await page.textContent('#score-table thead');
      assert.doesNotMatch(head, /[A-Za-z]{2,}/);
      const names = await page.$$eval('#score-table tbody th', (ths) => ths.map((th) => th.textContent));
      assert.ok(names.some((n) => /일본 규칙 \(1989\)/.test(n)), names.join(' | '));
      // No Latin word on the page outside names (baduk, the bot's, the language switch, SGF) and
      // coordinates. What people typed — player names (named players are online whatever ran
      // before), chat messages — is marked `data-user` and left out; every named player's name
      // shown must carry that mark.
      const latin = (text) => (text.match(/[A-Za-z][A-Za-z0-9.+=\-]*/g) || []).filter((w) => !/^(baduk|English|SGF|[A-HJ-T]\d{0,2})$/.test(w));
      const pageText = () =>
        page.evaluate(() => {
          const unmarked = [...document.querySelectorAll('[data-player]')].filter((e) => !/^guest-/.test(e.dataset.player) && !e.closest('[data-user]') && !e.querySelector('[data-user]'));
          // Hidden one by one (the CSP refuses an injected <style>, so a sheet would hide nothing).
          const users = [...document.querySelectorAll('[data-user]')];
          for (const e of users) e.style.setProperty('display', 'none', 'important');
          const text = document.body.innerText;
          for (const e of users) e.style.removeProperty('display');
          return { text, unmarked: unmarked.map((e) => e.textContent) };
        });
      const seen = await pageText();
      assert.deepEqual(seen.unmarked, [], 'player names are marked as user text');
      const words = latin(seen.text);
      assert.deepEqual(words, [], `Latin words on the Korean game page: ${words.join(' ')}`);
      // The lobby's finished list: Korean result, date by Intl, rules, komi and the clock in words.
      await page.goto(`${BASE}/`);
      await page.click('#list-tabs button[data-status=finished]');
      const li = await page.waitForSelector(`li[data-game="${g.id}"]`);
      const text = await li.textContent();
      assert.match(text, /바둑 9×9 · 중국 규칙 · 덤 [\d.]+ · 초읽기: 3분 \+ 10초 3회/);
      assert.match(text, /(흑|백) [\d.]+집 승/);
      assert.match(text, /\d+월 \d+일/);
      const lobby = await pageText();
      assert.deepEqual(lobby.unmarked, [], 'player names in the lobby are marked as user text');
      const lobbyWords = latin(lobby.text);
      assert.deepEqual(lobbyWords, [], `Latin words in the Korean lobby: ${lobbyWords.join(' ')}`);
    });
  });

  test('19×19 on a 390 px phone: a tap zooms to its quadrant and shows the stone, a second tap or the button plays; switchable', async (t) => {
    const { page } = await person(browser, 'phone19', { viewport: { width: 390, height: 844 }, touch: true });
    await shots(t, [page], async () => {
      const g = await create({ size: 19, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      await page.goto(`${BASE}${g.seats.black.url}`);
      await page.waitForSelector('body[data-myturn="1"]');
      const at = (name) => pointAt(page, name);
      const spacing = () => page.evaluate(() => document.querySelector('svg.goban').getScreenCTM().a);
      const full = await spacing();
      const v0 = await version(page);
      let p = await at('D4');
      await page.touchscreen.tap(p.x, p.y);
      await page.waitForSelector('circle.ghost.pending[data-point=D4][visibility=visible]');
      assert.notEqual(await page.getAttribute('svg.goban', 'data-zoom'), '', 'zoomed to the quadrant');
      const zoomed = await spacing();
      record('phone19_line_spacing_px', { full: +full.toFixed(1), zoomed: +zoomed.toFixed(1) });
      assert.ok(zoomed > full * 1.5, `lines ${full} px → ${zoomed} px apart`);
      assert.equal(await version(page), v0, 'the first tap sends nothing');
      p = await at('D4'); // where D4 is in the zoomed view
      await page.touchscreen.tap(p.x, p.y);
      await page.waitForSelector('circle.stone.black[data-point=D4]');
      assert.equal(await page.getAttribute('svg.goban', 'data-zoom'), '', 'the whole board again');
      assert.equal((await act(g.id, g.seats.white.token, 'Q16')).status, 200);
      await page.waitForSelector('body[data-myturn="1"]');
      // A tap elsewhere moves the waiting stone; the button plays it.
      p = await at('Q4');
      await page.touchscreen.tap(p.x, p.y);
      await page.waitForSelector('circle.ghost.pending[data-point=Q4][visibility=visible]');
      p = await at('R3');
      await page.touchscreen.tap(p.x, p.y);
      await page.waitForSelector('circle.ghost.pending[data-point=R3][visibility=visible]');
      assert.match(await page.textContent('[data-action=confirm-move]'), /R3/);
      await page.click('[data-action=confirm-move]');
      await page.waitForSelector('circle.stone.black[data-point=R3]');
      // Switched off (remembered by the browser): one tap plays.
      assert.equal((await act(g.id, g.seats.white.token, 'C16')).status, 200);
      await page.waitForSelector('body[data-myturn="1"]');
      await page.uncheck('input[data-setting=confirm]');
      assert.equal(await page.evaluate(() => localStorage.getItem('baduk.confirm')), 'off');
      p = await at('K10');
      await page.touchscreen.tap(p.x, p.y);
      await page.waitForSelector('circle.stone.black[data-point=K10]');
    });
  });

  test('small things: the ko point marked, why a point is illegal, an opponent’s arrival, the lobby’s lists and selects, bot strength, Wall Go’s how-to', async (t) => {
    const A = await person(browser, 'small');
    const B = await person(browser, 'small-friend');
    await shots(t, [A.page, B.page], async () => {
      const g = await create({ size: 9, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      await A.page.goto(`${BASE}${g.seats.black.url}`);
      await A.page.waitForSelector('body[data-myturn="1"]');
      // White joins: black is told.
      await B.page.goto(`${BASE}${g.seats.white.url}`);
      await A.page.waitForSelector('#message.info');
      assert.match(await A.page.textContent('#message'), /White has joined/);
      // A ko capture: the ko point is marked, and hovering it says why it cannot be played.
      const tok = [g.seats.black.token, g.seats.white.token];
      const ko = ['B3', 'C3', 'A2', 'D2', 'B1', 'C1', 'C2', 'B2'];
      for (let i = 0; i < ko.length; i++) assert.equal((await act(g.id, tok[i % 2], ko[i])).status, 200, ko[i]);
      await A.page.waitForSelector('[data-ko=C2]');
      const box = await pointAt(A.page, 'C2');
      await A.page.mouse.move(box.x, box.y);
      await A.page.waitForSelector('#why:not([hidden])');
      assert.match(await A.page.textContent('#why'), /C2: ko/);
      await A.page.mouse.move(box.x + 1, box.y + 1);
      // The lobby: the rules select shows its whole label; each bot says how strong it is.
      await A.page.goto(`${BASE}/`);
      const sel = await A.page.$eval('select[name=preset]', (e) => ({ sw: e.scrollWidth, cw: e.clientWidth, text: e.selectedOptions[0].textContent }));
      assert.equal(sel.text, 'Japanese (1989)');
      const fits = await A.page.$eval('select[name=preset]', (e) => {
        const c = document.createElement('canvas').getContext('2d');
        c.font = getComputedStyle(e).font;
        return c.measureText(e.selectedOptions[0].textContent).width + 24 <= e.clientWidth;
      });
      assert.ok(fits, 'the rules select is wide enough for "Japanese (1989)"');
      await A.page.selectOption('select[name=seat-white]', 'bot');
      assert.match(await A.page.textContent('[data-botnote=white]'), /playouts/);
      await A.page.selectOption('select[name=level-white]', 'level=10,time=1');
      assert.match(await A.page.textContent('[data-botnote=white]'), /Full strength/);
      // The finished list: the most recently finished first (the older game finishes last).
      const fin = [];
      for (let i = 0; i < 2; i++) fin.push(await create({ size: 9, rules: 'chinese', komi: 6.5, clock: 'fischer:300:5', seats: { black: { kind: 'human' }, white: { kind: 'human' } } }));
      assert.equal((await act(fin[1].id, fin[1].seats.black.token, 'resign')).status, 200);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal((await act(fin[0].id, fin[0].seats.white.token, 'resign')).status, 200);
      await A.page.click('#list-tabs button[data-status=finished]');
      await A.page.waitForSelector(`li[data-game="${fin[1].id}"]`);
      const order = await A.page.$$eval('#games li[data-game]', (lis) => lis.map((li) => li.dataset.game));
      assert.ok(order.indexOf(fin[0].id) < order.indexOf(fin[1].id), 'newest finished first');
      const entry = await A.page.textContent(`li[data-game="${fin[0].id}"]`);
      assert.match(entry, /Go \(바둑\) 9×9 · Chinese · Komi \(덤\) 6\.5 · Fischer: 5 min \+ 5 s a move/);
      assert.match(entry, /Black: Player · White: Player/);
      assert.match(entry, /B\+R/);
      // Wall Go: a short how-to, open before the first turn.
      const w = await api('POST', '/api/games', { game: 'wallgo', seats: { A: { kind: 'human' }, B: { kind: 'bot', bot: 'easy' } } });
      assert.equal(w.status, 201);
      await A.page.goto(`${BASE}${w.data.seats.A.url}`);
      await A.page.waitForSelector('details[data-howto=wallgo][open]');
      assert.match(await A.page.textContent('details[data-howto=wallgo]'), /How to play Wall Go.*1 or 2 steps.*wall/s);
    });
  });

  test('with sound on (remembered), a stone clicks and the last 10 s of a byo-yomi period tick', async (t) => {
    const { page } = await person(browser, 'sound');
    await shots(t, [page], async () => {
      const g = await create({ size: 9, rules: 'chinese', clock: 'byo-yomi:0:3:12', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      await page.goto(`${BASE}${g.seats.black.url}`);
      await page.waitForSelector('body[data-myturn="1"]');
      assert.equal(await page.evaluate(() => localStorage.getItem('baduk.sound')), null, 'off by default');
      await page.click('#sound');
      await page.reload();
      await page.waitForSelector('body[data-myturn="1"]');
      assert.equal(await page.getAttribute('#sound', 'aria-pressed'), 'true', 'remembered by the browser');
      await page.waitForFunction(() => window.__baduk.sounds.filter((s) => s === 'tick').length >= 2, null, { timeout: 8000 });
      await playPoint(page, 'E5');
      assert.ok((await page.evaluate(() => window.__baduk.sounds)).includes('move'));
    });
  });
});
