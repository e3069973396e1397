// A Wall Go (벽바둑) game against the `easy` bot, played through the UI to separation, turn by
// turn as seed 003 describes it: click a piece, its destinations light up; click one, the free
// wall sides light up; click one, the turn is sent.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, version, newerThan, docShot, record, api } from './lib.mjs';

describe('Wall Go against easy through the UI', () => {
  let browser;
  let A;
  let id;

  before(async () => {
    browser = await launch();
    A = await person(browser, 'wallgo-A', { locale: 'ko-KR' });
  });
  after(async () => {
    await browser?.close();
  });

  test('placement, then turns of piece → destination → wall, until the pieces are separated', async (t) =>
    shots(t, [A.page], async () => {
      const p = A.page;
      await p.goto(`${BASE}/`);
      await p.click('#tab-wallgo');
      await p.selectOption('select[name=seat-A]', 'me');
      await p.selectOption('select[name=seat-B]', 'bot');
      await p.selectOption('select[name=level-B]', 'easy');
      await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#create-btn')]);
      id = new URL(p.url()).pathname.split('/')[2];
      await p.waitForSelector('svg.wallboard');
      await p.waitForSelector('[data-clock=A] .bar');
      let turns = 0;
      let shotTaken = false;
      const rtts = [];
      for (let i = 0; i < 80; i++) {
        await p.waitForSelector('body[data-myturn="1"], body[data-status=finished]', { timeout: 20000 });
        if ((await p.getAttribute('body', 'data-status')) === 'finished') break;
        const v = await version(p);
        const phase = await p.getAttribute('body', 'data-phase');
        if (phase === 'placement') {
          const dests = await p.$$('[data-dest]');
          assert.ok(dests.length > 0, 'placement cells are lit');
          await dests[Math.floor(Math.random() * dests.length)].click();
        } else {
          const movable = await p.$$('.piece.movable');
          assert.ok(movable.length > 0, 'movable pieces are marked');
          await movable[Math.floor(Math.random() * movable.length)].click();
          // Destinations light up (or the piece is stuck: then its own cell's walls, or a pass).
          await p.waitForSelector('[data-dest], .cand, [data-action=wallpass]');
          const dests = await p.$$('[data-dest]');
          if (!shotTaken && turns >= 2 && dests.length >= 4) {
            await docShot(p, 'wallgo-midturn', { docs: true });
            shotTaken = true;
          }
          if (dests.length) {
            const d = dests[Math.floor(Math.random() * dests.length)];
            const box = await d.boundingBox();
            await p.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
          }
          await p.waitForSelector('.cand, [data-action=wallpass]');
          if (turns === 3 && (await p.$('.cand'))) await docShot(p, 'wallgo-walls');
          const walls = await p.$$('.cand .cand-hit');
          const t0 = Date.now();
          if (walls.length) await walls[Math.floor(Math.random() * walls.length)].click();
          else await p.click('[data-action=wallpass]');
          turns++;
          rtts.push(Date.now() - t0);
        }
        await newerThan(p, v);
      }
      await p.waitForSelector('body[data-status=finished]', { timeout: 20000 });
      assert.ok(turns > 0);
      // Regions coloured by kind, with counts and letters; the record downloads.
      await p.waitForSelector('[data-region=A]');
      const legend = await p.textContent('.legend.regions');
      assert.match(legend, /A/);
      const cells = await p.$$('rect.cell[class*=region-]');
      assert.equal(cells.length, 49);
      const href = await p.getAttribute('[data-download=record]', 'href');
      const rec = await fetch(BASE + href).then((r) => r.text());
      assert.match(rec, /^wallgo 1/);
      assert.match(await p.textContent('.result-line'), /A|B|무승부/);
      await docShot(p, 'wallgo-end', { docs: true });
      const inPage = await p.evaluate(() => window.__baduk.rtts);
      const s = [...inPage].sort((a, b) => a - b);
      record('wallgo_turns_by_ui', turns);
      record('wallgo_turn_round_trip_ms', { n: s.length, median: +(s[Math.floor(s.length / 2)] || 0).toFixed(1), max: +(s[s.length - 1] || 0).toFixed(1) });
      assert.deepEqual(p.errors, []);
    }));

  test('the turn clock counts down and, on expiry, the server’s automatic action appears', async (t) =>
    shots(t, [A.page], async () => {
      const r = await api('POST', '/api/games', { game: 'wallgo', turn_seconds: 2, seats: { A: { kind: 'human' }, B: { kind: 'bot', bot: 'easy' } } });
      assert.equal(r.status, 201, JSON.stringify(r.data));
      const p = A.page;
      await p.goto(`${BASE}${r.data.seats.A.url}`);
      await p.waitForSelector('[data-clock=A].running');
      const first = await p.textContent('[data-clock=A] .main');
      assert.match(first, /^0:0[0-2]$/);
      // Nobody clicks: the server places for A when the 2 s run out, and the page says so.
      const msg = await p.waitForSelector('#message.info', { timeout: 8000 });
      assert.match(await msg.textContent(), /시간 초과|time ran out/);
      const st = await api('GET', `/api/games/${r.data.id}`);
      assert.ok(st.data.actions.some((a) => a.auto), 'an action marked auto');
    }));
});
