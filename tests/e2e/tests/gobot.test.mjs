// The Go bot's ladder in the lobby: levels 1 to 10 for a bot seat, and a game against level 1
// played through the UI (the bot answers each move).

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, playPoint, api } from './lib.mjs';

describe('Go against the bot, by level', () => {
  let browser;
  let P;

  before(async () => {
    browser = await launch();
    P = await person(browser, 'gobot');
  });
  after(async () => {
    await browser?.close();
  });

  test('the lobby offers levels 1-10 and the level-1 bot answers every move', async (t) =>
    shots(t, [P.page], async () => {
      const p = P.page;
      await p.goto(`${BASE}/`);
      await p.selectOption('select[name=size]', '9');
      await p.selectOption('select[name=seat-black]', 'me');
      await p.selectOption('select[name=seat-white]', 'bot');
      const values = await p.$$eval('select[name=level-white] option', (os) => os.map((o) => o.value));
      assert.deepEqual(
        values,
        Array.from({ length: 10 }, (_, i) => `level=${i + 1},time=1`),
      );
      assert.equal(await p.inputValue('select[name=level-white]'), 'level=4,time=1');
      await p.selectOption('select[name=level-white]', 'level=1,time=1');
      await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#create-btn')]);
      const id = new URL(p.url()).pathname.split('/')[2];
      await p.waitForSelector('svg.goban');
      const mine = [];
      for (const want of ['E5', 'C3', 'G7', 'C7', 'G3', 'E3']) {
        if (mine.length === 3) break;
        await p.waitForSelector('body[data-myturn="1"]', { timeout: 20000 });
        const legal = await p.evaluate(() => window.__baduk.page.state.legal);
        if (!legal.includes(want)) continue;
        await playPoint(p, want);
        mine.push(want);
      }
      await p.waitForSelector('body[data-myturn="1"]', { timeout: 20000 });
      const g = await api('GET', `/api/games/${id}`);
      assert.equal(g.status, 200);
      assert.equal(g.data.seats.white.options, 'level=1,time=1');
      assert.equal(g.data.moves.length, 6, 'three moves and three answers');
      assert.deepEqual(g.data.moves.filter((_, i) => i % 2 === 0), mine);
    }));
});
