// A correspondence game in the browser: the lobby's "Your move (N)" card (and the title's count)
// takes the player to move to the game, whose "Next game" leads to the other; the other player, on a phone, plans a conditional move on
// the board in Plan mode and saves it; when the first player plays the expected move, the planned
// reply is on the board at once (both in one change), and the plan is gone.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, signUp, playPoint, clickPoint, version, newerThan, docShot } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const PASSWORD = 'correct horse battery staple';
// Days a move (the correspondence clock, once this build has it), else a day and a day a move.

/** A person signed up as `name` (on the lobby afterwards). */
async function member(browser, name, opts) {
  const p = await person(browser, name, opts);
  await signUp(p.page, name, PASSWORD);
  return p;
}

/** A call of the API from inside the page, with its session's cookie and CSRF value. */
async function pageApi(page, method, path, body) {
  return page.evaluate(
    async ([method, path, body]) => {
      const me = await (await fetch('/api/me')).json();
      const r = await fetch(path, { method, headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf }, body: body ? JSON.stringify(body) : undefined });
      return { status: r.status, data: await r.json() };
    },
    [method, path, body],
  );
}

/** No page of these people met a script error. */
const noErrors = (...people) => assert.deepEqual(people.flatMap((p) => p.page.errors), []);

describe('correspondence', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('"Your move" leads to the game; a move planned on the board in Plan mode is played the moment the opponent plays the expected one', async (t) => {
    const A = await member(browser, `corra${stamp}`);
    const B = await member(browser, `corrb${stamp}`, { viewport: { width: 390, height: 844 }, touch: true });
    await shots(t, [A.page, B.page], async () => {
      // A makes a 9×9 game with a long clock (Black), B joins it as White.
      const made = await pageApi(A.page, 'POST', '/api/games', { game: 'go', size: 9, rules: 'japanese', clock: 'correspondence:3:7', seats: { white: { kind: 'open' } } });
      assert.equal(made.status, 201, JSON.stringify(made.data));
      const id = made.data.id;
      const joined = await pageApi(B.page, 'POST', `/api/games/${id}/join`, { seat: 'white' });
      assert.equal(joined.status, 200, JSON.stringify(joined.data));
      // A second game, untimed (so listed after the first, which has a deadline).
      const second = await pageApi(A.page, 'POST', '/api/games', { game: 'go', size: 9, seats: { white: { kind: 'open' } } });
      assert.equal(second.status, 201, JSON.stringify(second.data));
      const id2 = second.data.id;
      assert.equal((await pageApi(B.page, 'POST', `/api/games/${id2}/join`, { seat: 'white' })).status, 200);

      // A's lobby: "Your move (2)", the game with a clock first, and the title's count.
      await A.page.goto(`${BASE}/`);
      await A.page.waitForSelector(`#turns-card [data-your-move="${id2}"]`);
      const listed = await A.page.evaluate(() => [...document.querySelectorAll('#turns [data-your-move]')].map((li) => li.dataset.yourMove));
      assert.deepEqual(listed, [id, id2]);
      assert.match(await A.page.textContent('#turns-h'), /Your move \(2\)/);
      await A.page.waitForFunction(() => document.title.startsWith('(2) '));
      // A follows it to the game, where "Next game" leads to the other one, and plays.
      await Promise.all([A.page.waitForURL(`${BASE}/g/${id}`), A.page.click(`[data-turn="${id}"]`)]);
      await A.page.waitForSelector('body[data-myturn="1"]');
      assert.equal(await A.page.getAttribute('[data-next-game]', 'href'), `/g/${id2}`);
      await playPoint(A.page, 'E5');

      // B's lobby (a phone) says it is B's move now; B plays by hand.
      await B.page.goto(`${BASE}/`);
      await B.page.waitForSelector(`#turns-card [data-your-move="${id}"]`);
      await Promise.all([B.page.waitForURL(`${BASE}/g/${id}`), B.page.click(`[data-turn="${id}"]`)]);
      await B.page.waitForSelector('body[data-myturn="1"]');
      const v0 = await version(B.page);
      await clickPoint(B.page, 'C3');
      // A touch screen asks to confirm the tap.
      await B.page.click('[data-action=confirm-move]', { timeout: 3000 }).catch(() => {});
      await newerThan(B.page, v0);

      // A to move: B plans "if D4 then F6" on the board, and saves it.
      await B.page.click('[data-action=plan]');
      await B.page.waitForSelector('[data-plan-help="0"]');
      await clickPoint(B.page, 'D4');
      await B.page.waitForSelector('[data-plan-help="1"]');
      await clickPoint(B.page, 'F6');
      await B.page.waitForSelector('[data-plan-help="2"]');
      await B.page.click('[data-action=plan-save]');
      await B.page.waitForSelector('.plan-saved[data-plan="D4 → F6"]');
      await B.page.waitForSelector('svg.goban [data-plan="F6"]');
      await docShot(B.page, 'plan-phone', { fullPage: true });
      // The board fits the phone's width.
      const width = await B.page.evaluate(() => document.querySelector('svg.goban').getBoundingClientRect().right);
      assert.ok(width <= 390, `the board ends at ${width}px`);

      // A sees nothing of it, plays D4, and F6 is on the board at once: one change of two actions.
      assert.equal(await A.page.locator('svg.goban [data-plan]').count(), 0);
      const v1 = await version(A.page);
      await playPoint(A.page, 'D4');
      await A.page.waitForFunction((v) => Number(document.body.dataset.version) === v + 2 && window.__baduk.page.state.last_move === 'F6', v1);
      const acts = await A.page.evaluate(() => window.__baduk.page.state.actions.slice(-2));
      assert.deepEqual(acts.map((a) => [a.seat, a.action]), [['black', 'D4'], ['white', 'F6']]);
      assert.equal(acts[0].at, acts[1].at);
      // B's page shows the reply and the plan gone; it is A's move again, in A's title too.
      await B.page.waitForFunction((v) => Number(document.body.dataset.version) >= v + 3, v0);
      await B.page.waitForSelector('.plan-saved', { state: 'detached' });
      await A.page.waitForSelector('body[data-myturn="1"]');
      noErrors(A, B);
    });
    await A.context.close();
    await B.context.close();
  });
});
