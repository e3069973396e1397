// What a player still trips over, the lobby and the profile: a seek cancelled on one
// page leaves every other lobby at once (pushed over the lobby's socket) and its Cancel asks
// nothing that answers 404; "1 guest" / "2 guests" online in both languages; a bot's seat card
// names its level and rating; a game played as a guest and kept at sign-up names its real
// opponent on the profile, the rating graph starts at the initial rating, and the SGF collection
// has each game's date and ranks (read by sgfmill).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { BASE, launch, person, shots, api, playPoint, resign, mySeat } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const PASSWORD = 'correct horse battery staple';

/** Every game of an SGF collection as sgfmill reads it: each root's DT, BR, WR, PB, PW. */
function millRoots(text) {
  const code = [
    'import json, sys',
    'from sgfmill import sgf_grammar',
    'out = []',
    'for g in sgf_grammar.parse_sgf_collection(sys.stdin.buffer.read()):',
    '    root = g.sequence[0]',
    '    out.append({k: (root[k][0].decode("utf-8") if k in root else None) for k in ("DT", "BR", "WR", "PB", "PW")})',
    'json.dump(out, sys.stdout, ensure_ascii=False)',
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-c', code], { input: text, encoding: 'utf8' }));
}

describe('the lobby and the profile', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('a seek cancelled on one page is gone from a second page within 1 s, and its Cancel asks for nothing gone (no 404)', async (t) => {
    const A = await person(browser, 'seeker');
    const B = await person(browser, 'onlooker');
    await shots(t, [A.page, B.page], async () => {
      const gone = [];
      A.page.on('response', (r) => {
        if (r.status() === 404 && r.url().includes('/api/seeks')) gone.push(r.url());
      });
      await B.page.goto(`${BASE}/`);
      await B.page.waitForSelector('body[data-account=guest]');
      await A.page.goto(`${BASE}/`);
      await A.page.waitForSelector('body[data-account=guest]');
      // 13×13 unrated: nobody else seeks it, so it stays open until cancelled.
      await A.page.selectOption('#seek select[name=seek-kind]', 'go:13');
      await A.page.uncheck('#seek input[name=seek-rated]');
      await A.page.click('#seek-btn');
      await A.page.waitForSelector('body[data-seek=searching]');
      // The onlooker sees it (the lobby's socket, or the polling of before), with "Play".
      const li = await B.page.waitForSelector('#seeks li[data-seek]:has([data-accept-seek])', { timeout: 15000 });
      const id = await li.getAttribute('data-seek');
      await A.page.waitForSelector(`#seeks li[data-seek="${id}"] .badge`);
      // Cancelled right after the onlooker's list showed it: gone there within 1 s.
      await A.page.click('#seek-cancel');
      await A.page.waitForSelector('body:not([data-seek=searching])');
      const t0 = Date.now();
      let still = true;
      while (Date.now() - t0 < 1000) {
        still = (await B.page.$(`#seeks li[data-seek="${id}"]`)) !== null;
        if (!still) break;
        await B.page.waitForTimeout(25);
      }
      assert.equal(still, false, `the cancelled seek ${id} is still listed on the second page after 1 s`);
      await B.page.waitForSelector('#seeks li.empty');
      assert.match(await B.page.textContent('#seeks'), /Nobody is looking for a game right now/);
      // Seeking again and cancelling again: still no 404 from the seeker's page.
      await A.page.click('#seek-btn');
      await A.page.waitForSelector('body[data-seek=searching]');
      await B.page.waitForSelector('#seeks li[data-seek]:has([data-accept-seek])');
      await A.page.click('#seek-cancel');
      await B.page.waitForSelector('#seeks li.empty', { timeout: 1000 });
      await A.page.waitForTimeout(300);
      assert.deepEqual(gone, [], 'Cancel asked for a seek already gone');
      assert.deepEqual(A.page.errors, []);
      assert.deepEqual(B.page.errors, []);
    });
    await A.context.close();
    await B.context.close();
  });

  test('"Players online" counts guests as "1 guest" / "N guests" (손님 N명 in Korean)', async (t) => {
    const P = await person(browser, 'counter');
    await shots(t, [P.page], async () => {
      const p = P.page;
      await p.goto(`${BASE}/`);
      await p.waitForSelector('body[data-account=guest]');
      const words = async () => {
        const el = await p.waitForSelector('#online li.guests');
        return { n: Number(await el.getAttribute('data-guests')), text: (await el.textContent()).trim() };
      };
      let w = await words();
      assert.equal(w.text, w.n === 1 ? '1 guest' : `${w.n} guests`);
      // A second guest comes: the count and its word follow (on the next refresh).
      const Q = await person(browser, 'second-guest');
      await Q.page.goto(`${BASE}/`);
      await Q.page.waitForSelector('body[data-account=guest]');
      await p.reload();
      w = await words();
      assert.ok(w.n >= 2, `${w.n} guests`);
      assert.equal(w.text, `${w.n} guests`);
      await p.click('#lang');
      // The list is asked for again in the new language.
      await p.waitForSelector('#online li.guests >> text=/^손님/');
      w = await words();
      assert.equal(w.text, `손님 ${w.n}명`);
      await p.click('#lang');
      await Q.context.close();
      assert.deepEqual(p.errors, []);
    });
    await P.context.close();
  });

  test("a bot's seat card names its level and rating, in both languages", async (t) => {
    const P = await person(browser, 'bot-watcher');
    await shots(t, [P.page], async () => {
      const p = P.page;
      const g = await api('POST', '/api/games', { game: 'go', size: 9, seats: { black: { kind: 'human' }, white: { kind: 'bot', bot: 'baduk', options: 'level=3' } } });
      assert.equal(g.status, 201, JSON.stringify(g.data));
      await p.goto(`${BASE}${g.data.seats.black.url}`);
      await p.waitForSelector('.player.seat-white .kind');
      assert.equal((await p.textContent('.player.seat-white .kind')).trim(), 'Bot · level 3');
      // Level 3 is rated 640 on 9×9 (docs/api.md, "Ratings").
      const r = await p.waitForSelector('.player.seat-white [data-bot-rating="640"]');
      assert.match(await r.textContent(), /^rated \d+k \(640\)$/);
      await p.click('#lang');
      await p.waitForSelector('.player.seat-white .kind >> text=봇 · 3단계');
      assert.match(await p.textContent('.player.seat-white [data-bot-rating]'), /^기력 \d+급 \(640\)$/);
      await p.click('#lang');
      assert.deepEqual(p.errors, []);
    });
    await P.context.close();
  });

  test('a guest game kept at sign-up names the bot as the opponent on the profile; the graph starts at the initial rating; the SGF collection has DT, BR and WR', async (t) => {
    const P = await person(browser, 'guest-then-member');
    await shots(t, [P.page], async () => {
      const p = P.page;
      await p.goto(`${BASE}/`);
      await p.waitForSelector('body[data-account=guest]');
      const guestName = await p.getAttribute('#account', 'data-name');
      // As a guest: play now, nobody comes, take the bot offered, resign.
      await p.selectOption('#seek select[name=seek-kind]', 'go:9');
      await p.selectOption('#seek select[name=seek-clock]', 'none');
      await p.uncheck('#seek input[name=seek-rated]');
      await p.selectOption('#seek select[name=seek-range]', 'any');
      await p.click('#seek-btn');
      await p.waitForSelector('#bot-offer:not([hidden])', { timeout: 30000 });
      await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#accept-bot')]);
      const guestGame = new URL(p.url()).pathname.split('/')[2];
      const seat = await mySeat(p);
      if (seat === 'black') await playPoint(p, 'E5');
      await p.waitForSelector(`.player.seat-${seat}.to-move`);
      await resign(p);
      await p.waitForSelector('body[data-status=finished] .result-line');
      // Sign up from the header: the game is kept.
      const name = `mem${stamp}`;
      await Promise.all([p.waitForURL(/\/login/), p.click('#account [data-auth=signup]')]);
      await p.fill('input[name=username]', name);
      await p.fill('input[name=password]', PASSWORD);
      await Promise.all([p.waitForURL(`${BASE}/g/${guestGame}`), p.click('#auth-btn')]);
      await p.waitForSelector(`#account [data-me="${name}"]`);
      // A rated 9×9 game against the level-1 bot from the lobby: two moves each, then resign.
      await p.goto(`${BASE}/`);
      await p.selectOption('#create select[name=size]', '9');
      await p.selectOption('select[name=seat-black]', 'me');
      await p.selectOption('select[name=seat-white]', 'bot');
      await p.selectOption('select[name=level-white]', 'level=1,time=1');
      await p.check('#create input[name=rated]');
      await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#create-btn')]);
      const rated = new URL(p.url()).pathname.split('/')[2];
      await p.waitForSelector('.player.seat-black .kind >> text=You');
      for (const mv of ['C3', 'C7']) {
        await p.waitForSelector('.player.seat-black.to-move');
        await playPoint(p, mv);
      }
      await p.waitForSelector('.player.seat-black.to-move');
      await resign(p);
      await p.waitForSelector('[data-rating-change] li', { timeout: 15000 });
      // The profile.
      await p.goto(`${BASE}/@/${name}`);
      await p.waitForSelector('body[data-loaded]');
      const li = p.locator(`#pgames li[data-game="${guestGame}"]`);
      await li.waitFor();
      assert.equal(await li.getAttribute('data-outcome'), 'loss');
      const meta = await li.locator('.gmeta').textContent();
      assert.ok(!meta.includes(guestName) && !/guest-/.test(meta), `the guest game names the player's own old name: ${meta}`);
      assert.match(meta, /against Bot · level \d+/);
      assert.match(await p.locator(`#pgames li[data-game="${rated}"] .gmeta`).textContent(), /against Bot · level 1/);
      // One rated game: a line from the initial rating (1500) to the rating after it.
      const pts = await p.$$eval('svg.rgraph[data-graph=go-small] circle.pt', (cs) => cs.map((c) => c.getAttribute('data-rating')));
      assert.ok(pts.length >= 2, `the graph has ${pts.length} point(s)`);
      assert.equal(pts[0], '1500');
      const now = Number(await p.getAttribute('#ratings tr[data-kind=go-small] [data-rating]', 'data-rating'));
      assert.equal(Number(pts[pts.length - 1]), now);
      assert.equal(await p.locator('svg.rgraph[data-graph=go-small] polyline.line').count(), 1);
      await p.click('#lang');
      await p.waitForSelector(`#pgames li[data-game="${guestGame}"] .gmeta >> text=/상대 봇 · \\d+단계/`);
      await p.click('#lang');
      // The SGF collection: both games, each with its date and both ranks, read by sgfmill.
      const href = await p.getAttribute('#sgf-all', 'href');
      const text = await (await fetch(`${BASE}${href}`)).text();
      const roots = millRoots(text);
      assert.equal(roots.length, 2, text);
      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - 86400000).toISOString().slice(0, 10);
      for (const r of roots) {
        assert.ok([today, yesterday].includes(r.DT), `DT: ${JSON.stringify(r)}`);
        assert.match(r.BR ?? '', /^\d+[kd]\??$/, `BR: ${JSON.stringify(r)}`);
        assert.match(r.WR ?? '', /^\d+[kd]\??$/, `WR: ${JSON.stringify(r)}`);
      }
      assert.deepEqual(p.errors, []);
    });
    await P.context.close();
  });
});
