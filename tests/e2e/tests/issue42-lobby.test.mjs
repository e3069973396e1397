// What a player still trips over (issue 42), the lobby: a seek cancelled on one page leaves
// every other lobby at once (pushed over the lobby's socket) and its Cancel asks nothing that
// answers 404; "1 guest" / "2 guests" online in both languages; a bot's seat card names its
// level and rating.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, api } from './lib.mjs';

describe('issue 42: lobby and profile', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('4. a seek cancelled on one page is gone from a second page within 1 s, and its Cancel asks for nothing gone (no 404)', async (t) => {
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

  test('4. "Players online" counts guests as "1 guest" / "N guests" (손님 N명 in Korean)', async (t) => {
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

  test("4. a bot's seat card names its level and rating, in both languages", async (t) => {
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
});
