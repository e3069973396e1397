// The engine's review you can trust: a move's loss read inside one search, so a
// flagged move is never the engine's own choice; the score lead drawn with its band; and a record
// that ended by resignation says so first, its counted-now rows labelled as such.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots } from './lib.mjs';

/** A 9×9 record White resigned: Black builds, White crawls on the first line. */
function resigned() {
  const b = ['ee', 'cc', 'gc', 'cg', 'gg', 'ec', 'ce', 'ge'];
  const w = ['aa', 'ia', 'ai', 'ii', 'ba', 'ha', 'ab', 'hi'];
  let s = '(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[7]RU[Chinese]PB[Kim]PW[Lee]RE[B+R]';
  for (let i = 0; i < b.length; i++) s += `;B[${b[i]}];W[${w[i]}]`;
  return `${s})`;
}

describe('a review you can trust', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('losses from one search, the lead with its band, the record result first', async (t) => {
    const { page } = await person(browser, 'trust');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}/`);
      await page.fill('#review-text', resigned());
      await page.click('#review-open');
      await page.waitForURL(/\/r\/[a-z0-9]+$/i);
      await page.waitForSelector('body[data-ready="1"]');
      const id = page.url().split('/').pop();
      await page.keyboard.press('End');
      await page.waitForSelector('#scores tbody tr');
      // The record's result comes first, and says the game was not counted.
      const line = await page.textContent('#record-result');
      assert.match(line, /B\+R/);
      assert.match(line, /resignation/);
      const order = await page.evaluate(() => {
        const r = document.querySelector('#record-result');
        const s = document.querySelector('#scores');
        return r.compareDocumentPosition(s) & Node.DOCUMENT_POSITION_FOLLOWING;
      });
      assert.ok(order, 'the record line precedes the counted table');
      assert.match(await page.textContent('#scores caption'), /counted now/);
      // The engine's review.
      await page.click('#run-engine');
      await page.waitForSelector('#engine-status[data-status="done"]', { timeout: 240000 });
      const a = await page.evaluate(async (rid) => (await fetch(`/api/reviews/${rid}/analysis`)).json(), id);
      assert.equal(a.positions.length, 17);
      for (const p of a.positions) {
        assert.equal(typeof p.loss, 'number', `position ${p.position}: a loss`);
        assert.equal(typeof p.score_band, 'number', `position ${p.position}: a band`);
        if (p.played === p.best) assert.equal(p.loss, 0, `position ${p.position}: the engine's own choice is no loss`);
        if (p.position < 16) assert.ok(p.played_visits >= 10, `position ${p.position}: the played move was searched (${p.played_visits})`);
      }
      // The graph draws the lead's band; no listed mistake is the move the engine prefers.
      await page.waitForSelector('#graph #score-band');
      const items = await page.$$eval('#mistakes li button', (bs) => bs.map((b) => b.textContent));
      for (const text of items) {
        const m = /\((?:Black|White) ([A-T]\d+|pass)\).*prefers (\S+)/.exec(text);
        assert.ok(m, text);
        assert.notEqual(m[1], m[2], text);
      }
      // Korean: the record line too.
      await page.click('#lang');
      await page.waitForFunction(() => /불계/.test(document.querySelector('#record-result')?.textContent || ''));
    });
  });
});
