// A 9×9 Go game played to the end through the UI by two people (one browser context per seat),
// watched live by a third: the lobby, the invite link, moves, an illegal ko recapture refused with
// the library's message, an undo accepted, a reload and a dropped connection, the two passes, the
// dead-stone phase and the table of every rule set.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, version, newerThan, clickPoint, playPoint, docShot, record, api } from './lib.mjs';

describe('Go 9×9 through the UI', () => {
  let browser;
  let B;
  let W;
  let S;
  let id;
  const rtts = [];
  const pages = () => [B.page, W.page, S.page];

  before(async () => {
    browser = await launch();
    B = await person(browser, 'black');
    W = await person(browser, 'white');
    S = await person(browser, 'spectator');
  });
  after(async () => {
    await browser?.close();
  });

  test('black creates a game in the lobby and white joins by the invite link, as themselves', async (t) =>
    shots(t, pages(), async () => {
      const p = B.page;
      await p.goto(`${BASE}/`);
      await p.selectOption('select[name=size]', '9');
      await p.selectOption('select[name=preset]', 'chinese');
      await p.selectOption('select[name=clock]', 'byo-yomi');
      await p.fill('input[name=main]', '5');
      await p.fill('input[name=periods]', '3');
      await p.fill('input[name=period]', '30');
      await p.selectOption('select[name=seat-black]', 'me');
      await p.selectOption('select[name=seat-white]', 'friend');
      await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#create-btn')]);
      id = new URL(p.url()).pathname.split('/')[2];
      await p.waitForSelector('svg.goban');
      await p.waitForSelector('body[data-role=player]');
      // The invitation is the game's own address with its invite secret (no seat token in it):
      // the friend opens it and takes the seat as themselves (a guest made on this first visit).
      const link = await p.inputValue('input[data-invite=white]');
      assert.match(link, new RegExp(`^${BASE}/g/${id}#invite=[0-9a-f]{64}$`));
      await W.page.goto(link);
      await W.page.waitForSelector('body[data-role=spectator]');
      await W.page.waitForSelector('[data-sit=white] >> text=Join as yourself');
      await W.page.click('[data-sit=white]');
      await W.page.waitForSelector('body[data-role=player]');
      await W.page.waitForSelector('.player.seat-white .kind >> text=You');
      const listed = (await api('GET', '/api/games?status=live&limit=100')).data.games;
      assert.ok(!listed.some((g) => g.id === id), 'a game with a friend’s seat is invite-only');
      await p.waitForSelector('.player.seat-black .kind >> text=You');
      // Both clocks are shown, with their byo-yomi periods.
      assert.match(await p.textContent('[data-clock=black] .extra'), /3×30/);
      assert.match(await p.textContent('[data-clock=white] .main'), /^\d+:\d\d$/);
    }));

  test('a spectator sees the same board, without controls, and the moves live', async (t) =>
    shots(t, pages(), async () => {
      await S.page.goto(`${BASE}/g/${id}`);
      await S.page.waitForSelector('body[data-role=spectator]');
      assert.equal(await S.page.$('[data-action=pass]'), null);
      // The hover stone appears only for the side to move, on legal points.
      await B.page.hover('svg.goban');
      await playPoint(B.page, 'E6');
      await S.page.waitForSelector('circle.stone.black[data-point=E6]', { timeout: 5000 });
      await W.page.waitForSelector('circle.stone.black[data-point=E6]', { timeout: 5000 });
      await playPoint(W.page, 'F6');
      await S.page.waitForSelector('circle.stone.white[data-point=F6]', { timeout: 5000 });
      await S.page.waitForSelector('[data-last=F6]');
    }));

  test('an undo request is accepted by the opponent', async (t) =>
    shots(t, pages(), async () => {
      await playPoint(B.page, 'D5');
      await B.page.waitForSelector('circle[data-point=D5]');
      await W.page.waitForSelector('circle[data-point=D5]');
      const v = await version(W.page);
      await B.page.click('[data-action=undo]');
      await W.page.waitForSelector('[data-action=undo-accept]');
      await newerThan(W.page, v);
      await W.page.click('[data-action=undo-accept]');
      await B.page.waitForSelector('circle[data-point=D5]', { state: 'detached' });
      await W.page.waitForSelector('circle[data-point=D5]', { state: 'detached' });
      await B.page.waitForSelector('.player.seat-black.to-move');
      await playPoint(B.page, 'D5');
    }));

  test('an illegal click is refused with the rules library’s message, shown in place', async (t) =>
    shots(t, pages(), async () => {
      await playPoint(W.page, 'G5');
      await playPoint(B.page, 'E4');
      await playPoint(W.page, 'F4');
      await playPoint(B.page, 'C7');
      await playPoint(W.page, 'E5');
      await docShot(B.page, 'go-test-ko');
      await playPoint(B.page, 'F5'); // takes the ko
      await W.page.waitForSelector('circle[data-point=E5]', { state: 'detached' });
      // Retaking at once recreates a position: positional superko under the chinese rules.
      const v = await version(W.page);
      await clickPoint(W.page, 'E5');
      const msg = await W.page.waitForSelector('#message.error');
      const text = await msg.textContent();
      assert.match(text, /superko|ko/i, text);
      record('illegal_message', text);
      assert.equal(await version(W.page), v);
      // An occupied point is refused too, with its reason.
      await clickPoint(W.page, 'E6');
      await W.page.waitForFunction(() => /occupied|point/i.test(document.querySelector('#message')?.textContent || ''));
      await playPoint(W.page, 'H8');
      await W.page.waitForSelector('#message.error', { state: 'hidden' });
    }));

  test('a reload and a dropped connection resume the seat and the clock', async (t) =>
    shots(t, pages(), async () => {
      const before = await B.page.textContent('[data-clock=black] .main');
      // Round trips measured so far (a reload starts the page's list afresh).
      for (const p of [B.page, W.page]) rtts.push(...(await p.evaluate(() => window.__baduk.rtts)));
      // A reload without the link's fragment: the seat comes back from local storage.
      await B.page.goto(`${BASE}/g/${id}`);
      await B.page.waitForSelector('body[data-role=player]');
      await B.page.waitForSelector('.player.seat-black.to-move .kind >> text=You');
      const after = await B.page.textContent('[data-clock=black] .main');
      const secs = (s) => s.split(':').reduce((a, b) => a * 60 + Number(b), 0);
      assert.ok(secs(after) <= secs(before) + 1, `clock ${before} → ${after}`);
      assert.ok(secs(after) > 0);
      // White's socket drops; a move made meanwhile still reaches white.
      await W.page.evaluate(() => window.__baduk.ws.drop());
      await playPoint(B.page, 'E5'); // connects the ko
      await W.page.waitForSelector('circle.stone.black[data-point=E5]', { timeout: 8000 });
      await W.page.reload();
      await W.page.waitForSelector('.player.seat-white.to-move .kind >> text=You');
    }));

  test('two passes, the dead-stone phase, both accept, and the table of every rule set', async (t) =>
    shots(t, pages(), async () => {
      let v = await version(B.page);
      await W.page.click('[data-action=pass]');
      await newerThan(B.page, v);
      v = await version(B.page);
      await B.page.click('[data-action=pass]');
      await newerThan(B.page, v);
      await B.page.waitForSelector('body[data-phase=marking]');
      await W.page.waitForSelector('body[data-phase=marking]');
      await S.page.waitForSelector('body[data-phase=marking]');
      // Black marks the lone white stone on H8 (or, if proposed dead already, brings it back).
      const wasDead = await B.page.evaluate(() => (window.__baduk.page.state.marking?.dead || []).includes('H8'));
      v = await version(W.page);
      await clickPoint(B.page, 'H8');
      await newerThan(W.page, v);
      const isDead = await W.page.evaluate(() => (window.__baduk.page.state.marking?.dead || []).includes('H8'));
      assert.notEqual(isDead, wasDead, 'clicking a chain toggles it');
      if (isDead) await W.page.waitForSelector('[data-dead=H8]');
      else {
        // Put it back to dead so the screenshot shows a crossed chain.
        v = await version(W.page);
        await clickPoint(B.page, 'H8');
        await newerThan(W.page, v);
        await W.page.waitForSelector('[data-dead=H8]');
      }
      v = await version(W.page);
      await B.page.click('[data-action=accept]');
      await newerThan(W.page, v);
      await W.page.click('[data-action=accept]');
      for (const p of pages()) await p.waitForSelector('body[data-status=finished]');
      await B.page.waitForSelector('#score-table tbody tr');
      const rows = await B.page.$$eval('#score-table tbody tr', (trs) => trs.map((tr) => tr.textContent));
      assert.ok(rows.length >= 9, `${rows.length} rows`);
      assert.ok(rows.some((r) => /Chinese/.test(r)));
      const result = await B.page.textContent('.result-line');
      assert.match(result, /wins|Draw/);
      const href = await B.page.getAttribute('[data-download=sgf]', 'href');
      const sgf = await fetch(BASE + href).then((r) => r.text());
      assert.match(sgf, /^\(;/);
      await docShot(B.page, 'go-test-finished', { fullPage: true });
      // Spectators see the result too; replay works with the arrow keys.
      await S.page.waitForSelector('#score-table');
      await S.page.keyboard.press('Home');
      await S.page.waitForFunction(() => !document.querySelector('circle.stone'));
      await S.page.keyboard.press('ArrowRight');
      await S.page.waitForSelector('circle.stone.black[data-point=E6]');
      await S.page.keyboard.press('End');
      await S.page.waitForSelector('circle.stone.black[data-point=E5]');
    }));

  test('a move’s round trip is shown within 100 ms on loopback', async () => {
    for (const p of [B.page, W.page]) rtts.push(...(await p.evaluate(() => window.__baduk.rtts)));
    const all = [...rtts].sort((a, b) => a - b);
    assert.ok(all.length >= 5);
    const median = all[Math.floor(all.length / 2)];
    const p90 = all[Math.floor(all.length * 0.9)];
    record('go_move_round_trip_ms', { n: all.length, median: +median.toFixed(1), p90: +p90.toFixed(1), max: +all[all.length - 1].toFixed(1) });
    assert.ok(median < 100, `median ${median} ms`);
    for (const p of pages()) assert.deepEqual(p.errors, [], `${p.person}: page errors`);
    const st = await api('GET', `/api/games/${id}`);
    assert.equal(st.data.status, 'finished');
  });
});
