// What a player still trips over: the review page never prints `null`, `undefined`
// or `NaN`, in either language, whatever is clicked; Wall Go's "Staying in place" is explained
// where it is chosen and in the game's how-to; on a phone, a tap on an occupied point is refused
// at the tap with its reason.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, api, pointAt } from './lib.mjs';

/** A 9×9 record that ends by two passes with a dead white stone inside Black's area. */
function settled() {
  const b = ['cc', 'cd', 'ce', 'cf', 'cg', 'dg', 'eg', 'fg', 'gg', 'gf', 'ge', 'gd', 'gc', 'fc', 'ec', 'dc'];
  const w = ['ee', 'hh', 'hg', 'hf', 'he', 'hd', 'hc', 'hb', 'gb', 'fb', 'eb', 'db', 'cb', 'bb', 'bc', 'bd'];
  let s = '(;GM[1]FF[4]SZ[9]KM[6.5]RU[Japanese]PB[Black]PW[White]';
  for (let i = 0; i < b.length; i++) s += `;B[${b[i]}];W[${w[i]}]`;
  return `${s};B[];W[])`;
}

/** The words of the page that must never show: what a template prints for a missing value. */
async function noMissing(page, where) {
  const text = await page.evaluate(() => document.body.innerText);
  const bad = text.match(/\b(null|undefined|NaN)\b/g);
  assert.equal(bad, null, `${where}: the page prints ${bad}: …${text.slice(Math.max(0, text.search(/\b(null|undefined|NaN)\b/) - 80)).slice(0, 160)}…`);
}

describe('no null on the review page, Wall Go stay explained, refused phone taps', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('the review page prints no null, undefined or NaN after keys, rule changes and the Benson switch, in both languages', async (t) => {
    const r = await fetch(`${BASE}/api/reviews`, { method: 'POST', headers: { 'content-type': 'application/x-go-sgf' }, body: settled() });
    assert.equal(r.status, 201);
    const { url } = await r.json();
    const { page } = await person(browser, 'null-hunter');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}${url}`);
      await page.waitForSelector('body[data-ready="1"]');
      for (const lang of ['en', 'ko']) {
        await noMissing(page, `${lang}: opened`);
        await page.keyboard.press('End');
        // The rules lab at the end: the estimator's dead stones and the table.
        if (await page.$('#score-here')) await page.click('#score-here');
        await page.waitForSelector('#scores');
        await noMissing(page, `${lang}: scored`);
        await page.check('#overlay');
        await noMissing(page, `${lang}: Benson on`);
        const options = await page.$$eval('#rules option', (os) => os.map((o) => o.value));
        for (const v of options.slice(0, 4)) {
          await page.selectOption('#rules', v);
          await noMissing(page, `${lang}: rules ${v}`);
        }
        for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowLeft');
        await noMissing(page, `${lang}: stepped back`);
        await page.keyboard.press('Home');
        await page.keyboard.press('End');
        await page.uncheck('#overlay');
        await noMissing(page, `${lang}: Benson off`);
        if (lang === 'en') await page.click('#lang');
      }
      await page.click('#lang');
      assert.deepEqual(page.errors, []);
    });
  });

  test('"Staying in place" is explained beside its field and in the game\'s how-to, in both languages', async (t) => {
    const { page } = await person(browser, 'stay-reader');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}/`);
      await page.click('#tab-wallgo');
      assert.match(await page.textContent('#stay-hint'), /stepping out one cell and back/);
      await page.selectOption('select[name=stay]', 'stuck-only');
      assert.match(await page.textContent('#stay-hint'), /only when it cannot step at all/);
      await page.click('#lang');
      assert.match(await page.textContent('#stay-hint'), /못 움직일 때만/);
      await page.click('#lang');
      const w = await api('POST', '/api/games', { game: 'wallgo', variant: 'placement=ABAB stay=stuck-only tiebreak=none', seats: { A: { kind: 'human' }, B: { kind: 'bot', bot: 'easy' } } });
      assert.equal(w.status, 201, JSON.stringify(w.data));
      await page.goto(`${BASE}${w.data.seats.A.url}`);
      await page.waitForSelector('details[data-howto=wallgo][open] li[data-howto-stay="stuck-only"]');
      assert.match(await page.textContent('li[data-howto-stay]'), /Only when stuck.*cannot step/);
      await page.click('#lang');
      await page.waitForSelector('li[data-howto-stay]');
      assert.match(await page.textContent('li[data-howto-stay]'), /못 움직일 때만/);
      await page.click('#lang');
      assert.deepEqual(page.errors, []);
    });
  });

  test('on a phone, a tap on an occupied point offers no "Play" and says why; a free point does', async (t) => {
    const { page } = await person(browser, 'phone-tapper', { viewport: { width: 390, height: 844 }, touch: true });
    await shots(t, [page], async () => {
      const g = await api('POST', '/api/games', { game: 'go', size: 9, rules: 'japanese', seats: { black: { kind: 'human' }, white: { kind: 'human' } } });
      assert.equal(g.status, 201, JSON.stringify(g.data));
      const { id, seats } = g.data;
      assert.equal((await api('POST', `/api/games/${id}/actions`, { action: 'E5' }, seats.black.token)).status, 200);
      assert.equal((await api('POST', `/api/games/${id}/actions`, { action: 'C3' }, seats.white.token)).status, 200);
      await page.goto(`${BASE}${seats.black.url}`);
      await page.waitForSelector('body[data-myturn="1"]');
      let p = await pointAt(page, 'C3');
      await page.touchscreen.tap(p.x, p.y);
      await page.waitForSelector('#why:not([hidden])');
      assert.match(await page.textContent('#why'), /C3: a stone is already there/);
      assert.equal(await page.$('[data-action=confirm-move]'), null, 'no "Play C3" offered');
      assert.equal(await page.$('circle.ghost.pending[visibility=visible]'), null);
      p = await pointAt(page, 'D4');
      await page.touchscreen.tap(p.x, p.y);
      await page.waitForSelector('circle.ghost.pending[data-point=D4][visibility=visible]');
      assert.match(await page.textContent('[data-action=confirm-move]'), /D4/);
      assert.deepEqual(page.errors, []);
    });
  });
});
