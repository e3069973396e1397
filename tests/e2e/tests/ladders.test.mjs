// The ladder page: from the lobby's header to /ladders; two players join the 9×9 ladder (one on a
// phone, in Korean); the lower challenges the upper from the page and the game opens; leaving
// with the game open is refused in words; the upper resigns; a watcher's page, never reloaded,
// sees the open game and then the order swap (the lobby socket's `ladder` message); the Challenge
// button of the loser is disabled by the cooldown; an unknown ladder says so.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, signUp, resign } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const PASSWORD = 'correct horse battery staple';

/** The names in the ladder's order as `page` shows it, top first. */
const order = (page) => page.$$eval('#order tbody tr[data-ladder-row]', (trs) => trs.map((tr) => tr.dataset.ladderRow));

describe('the ladder page', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('join, challenge from the page, play, and the order swaps live; Korean on a phone', async (t) => {
    const A = await person(browser, 'ladder-top');
    const B = await person(browser, 'ladder-phone', { viewport: { width: 390, height: 844 }, touch: true });
    const W = await person(browser, 'ladder-watcher');
    await shots(t, [A.page, B.page, W.page], async () => {
      const top = `lad${stamp}a`;
      const low = `lad${stamp}b`;
      await signUp(A.page, top, PASSWORD);
      await signUp(B.page, low, PASSWORD);
      // The lobby's header, signed in on a phone, links both pages and fits the screen.
      await B.page.waitForSelector('header.top a[href="/ladders"]');
      const lobbyWide = await B.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(lobbyWide <= 390, `the lobby is ${lobbyWide} px wide on a 390 px screen`);
      const a = A.page;
      const b = B.page;
      const w = W.page;

      // From the lobby's header; a guest watcher sees the order and is invited to sign up.
      await w.goto(`${BASE}/`);
      await Promise.all([w.waitForURL(`${BASE}/ladders`), w.click('header.top a[href="/ladders"]')]);
      await w.waitForSelector('#lguest:not([hidden])');
      assert.equal(await w.textContent('#lname'), 'Go 9×9');
      assert.equal(await w.isVisible('#ljoin'), false);

      // The first joins at the top.
      await a.goto(`${BASE}/ladders/go9`);
      await a.click('#ljoin');
      await a.waitForSelector(`#order tr.this[data-ladder-row="${top}"][data-place="1"]`);
      assert.equal(await a.textContent('#lyou'), 'You are number 1.');
      // The second, on a phone and in Korean, joins below.
      await b.goto(`${BASE}/ladders/go9`);
      await b.waitForSelector('#ljoin:not([hidden])');
      const ladderWide = await b.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(ladderWide <= 390, `the ladder page is ${ladderWide} px wide on a 390 px screen (English)`);
      await b.click('#lang');
      assert.equal(await b.textContent('#ljoin'), '이 래더에 참가');
      assert.equal(await b.textContent('#lo-h'), '순위');
      await b.click('#ljoin');
      await b.waitForSelector(`#order tr.this[data-ladder-row="${low}"][data-place="2"]`);
      assert.equal(await b.textContent('#lyou'), '현재 2위입니다.');
      const wide = await b.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= 390, `the ladder page is ${wide} px wide on a 390 px screen`);
      // The watcher's page, never reloaded, shows both.
      await w.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('#order tbody tr[data-ladder-row]')].map((tr) => tr.dataset.ladderRow)) === want, JSON.stringify([top, low]), { timeout: 20000 });
      // The top player has nobody above to challenge.
      await a.waitForSelector(`#order tr[data-ladder-row="${low}"]`, { timeout: 20000 });
      assert.equal(await a.$('[data-challenge]'), null);

      // The second challenges the first from its row: the game opens.
      const btn = b.locator(`[data-challenge="${top}"]`);
      assert.equal(await btn.textContent(), '도전');
      assert.equal(await btn.isDisabled(), false);
      await Promise.all([b.waitForURL(/\/g\/[^/]+$/), btn.click()]);
      const game = decodeURIComponent(new URL(b.url()).pathname.slice(3));
      // The watcher sees the open game, linked.
      await w.waitForSelector(`#lgames li[data-open-game="${game}"] a[href="/g/${encodeURIComponent(game)}"]`, { timeout: 20000 });
      assert.equal(await w.textContent(`#lgames li[data-open-game="${game}"]`), `${low} challenges ${top}`);

      // The first may not leave while the game is open; it opens the game from its row.
      await a.reload();
      await a.waitForSelector(`#order tr[data-ladder-row="${top}"] a[data-game="${game}"]`);
      await a.click('#lleave');
      await a.waitForSelector('#lerr[data-code="tournament.ladder_busy"]');
      assert.equal(await a.textContent('#lerr'), 'Finish or resign your open ladder game first.');
      await Promise.all([a.waitForURL(`${BASE}/g/${game}`), a.click(`#order tr[data-ladder-row="${top}"] a[data-game="${game}"]`)]);
      await resign(a);

      // The challenger won: the watcher's page swaps the two by itself.
      await w.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('#order tbody tr[data-ladder-row]')].map((tr) => tr.dataset.ladderRow)) === want, JSON.stringify([low, top]), { timeout: 30000 });
      assert.equal(await w.$(`#lgames li[data-open-game]`), null);
      assert.deepEqual(await order(w), [low, top]);
      // The loser may not challenge the winner again yet: disabled, with the reason.
      await a.goto(`${BASE}/ladders/go9`);
      const again = a.locator(`[data-challenge="${low}"]`);
      await again.waitFor();
      assert.equal(await again.isDisabled(), true);
      assert.match(await a.textContent(`#order tr[data-ladder-row="${low}"] td.lact`), /again/);
      // Each row names its last game.
      assert.match(await a.textContent(`#order tr[data-ladder-row="${top}"]`), new RegExp(`vs ${low}`));

      // Leaving now works: the winner leaves, the other is alone at the top.
      await b.goto(`${BASE}/ladders/go9`);
      await b.click('#lleave');
      await b.waitForSelector('#ljoin:not([hidden])');
      assert.equal(await b.textContent('#lyou'), '이 래더에 참가하지 않았습니다.');
      await w.waitForFunction((want) => JSON.stringify([...document.querySelectorAll('#order tbody tr[data-ladder-row]')].map((tr) => tr.dataset.ladderRow)) === want, JSON.stringify([top]), { timeout: 20000 });
      await b.click('#lang');
      assert.deepEqual([...a.errors, ...b.errors, ...w.errors], []);
      await B.context.close();
    });
  });

  test('a ladder that does not exist says so', async (t) => {
    const V = await person(browser, 'ladder-visitor');
    await shots(t, [V.page], async () => {
      await V.page.goto(`${BASE}/ladders/chess`);
      await V.page.waitForSelector('body[data-status=notfound]');
      assert.match(await V.page.textContent('#notfound h1'), /No such ladder/);
    });
  });
});
