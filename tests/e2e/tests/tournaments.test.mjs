// The tournament pages: an event made over the API (a signed-in organiser, a bot entered by the
// organiser) is listed on /tournaments; a player registers on its page, sees the pairing once the
// organiser starts it, opens the game from the tournament page, resigns, and sees the standings
// change (the organiser's page, never reloaded, too); the page speaks Korean and fits a phone's
// width. An organiser on a phone creates an event through the form (a name too long and rounds
// out of range refused in words, in English and Korean), adds a player and a bot level, starts
// it, sets a result by hand and ends it, each step changing the page. An arena's page counts
// down to its end and shows each player's streak.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, signUp, resign } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const PASSWORD = 'correct horse battery staple';

/** A call of the API from `page` with its session and CSRF value: `{status, data}`. */
function call(page, method, path, body) {
  return page.evaluate(
    async ([method, path, body]) => {
      const me = await (await fetch('/api/me')).json();
      const res = await fetch(path, { method, headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      let data = null;
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
      return { status: res.status, data };
    },
    [method, path, body],
  );
}

describe('the tournament pages', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('register on the page, see the pairing, play the game from it, see the standings change', async (t) => {
    const O = await person(browser, 'organiser');
    const P = await person(browser, 'entrant');
    await shots(t, [O.page, P.page], async () => {
      const org = `torg${stamp}`;
      const me = `tplay${stamp}`;
      await signUp(O.page, org, PASSWORD);
      await signUp(P.page, me, PASSWORD);
      const name = `Cup ${stamp}`;
      const made = await call(O.page, 'POST', '/api/tournaments', { name, format: 'swiss', rounds: 1, game: 'go', size: 9, rules: 'chinese', rated: false });
      assert.equal(made.status, 201, JSON.stringify(made.data));
      const id = made.data.id;
      const bot = await call(O.page, 'POST', `/api/tournaments/${id}/bots`, { bot: 'baduk', options: 'level=1' });
      assert.equal(bot.status, 200, JSON.stringify(bot.data));

      // Listed under Upcoming, linked to its page (the lobby's header links the list).
      const p = P.page;
      await p.goto(`${BASE}/`);
      await Promise.all([p.waitForURL(`${BASE}/tournaments`), p.click('header.top a[href="/tournaments"]')]);
      const link = p.locator(`#upcoming li[data-tournament="${id}"] a`);
      assert.equal(await link.textContent(), name);
      await Promise.all([p.waitForURL(`${BASE}/t/${id}`), link.click()]);
      await p.waitForSelector('body[data-status=upcoming]');
      assert.match(await p.textContent('#tmeta'), /Swiss/);
      assert.match(await p.textContent('#tsettings'), /9×9/);
      assert.equal(await p.getAttribute('#csv', 'href'), `/api/tournaments/${id}/export.csv`);

      // Register: the player is in the list, Withdraw replaces Register; a second try is refused in words.
      await p.click('#join');
      await p.waitForSelector(`#players li.this[data-player-row="${me}"]`);
      assert.equal(await p.isVisible('#join'), false);
      assert.equal(await p.isVisible('#withdraw'), true);
      const again = await call(p, 'POST', `/api/tournaments/${id}/join`, {});
      assert.equal(again.data.code, 'tournament.already');

      // The organiser starts it: the page shows round 1 with this player's board and its game.
      const started = await call(O.page, 'POST', `/api/tournaments/${id}/start`, {});
      assert.equal(started.status, 200, JSON.stringify(started.data));
      const row = await p.waitForSelector('#rounds tr.this a.tgame', { timeout: 30000 });
      assert.match(await p.textContent('#rounds [data-round="1"] h3'), /Round 1/);
      await p.waitForSelector('body[data-status=running]');
      const game = await row.getAttribute('data-game');
      // The organiser watches the event's page: it changes by itself when the game ends.
      await O.page.goto(`${BASE}/t/${id}`);
      await O.page.waitForSelector('#rounds a.tgame');
      const scores = () => O.page.$$eval('#standings tbody tr[data-standing]', (trs) => trs.map((tr) => tr.querySelectorAll('td.num')[1]?.textContent));
      assert.ok((await scores()).every((v) => v === '0'), `scores before any result: ${await scores()}`);

      // Played from the tournament page: the link opens the game, the player resigns.
      await Promise.all([p.waitForURL(`${BASE}/g/${game}`), row.click()]);
      await resign(p);

      // The organiser's page, never reloaded, shows the result (the lobby socket's message).
      await O.page.waitForFunction(() => [...document.querySelectorAll('#standings tbody tr[data-standing]')].some((tr) => tr.querySelectorAll('td.num')[1]?.textContent === '1'), undefined, { timeout: 30000 });
      assert.match(await O.page.textContent('#rounds td.res'), /wins/);
      // Back on the tournament page: the result is in, the bot leads the standings with 1.
      await p.goto(`${BASE}/t/${id}`);
      await p.waitForFunction((me) => {
        const rows = [...document.querySelectorAll('#standings tbody tr[data-standing]')];
        return rows.length === 2 && rows[1].dataset.standing === me && rows[0].querySelectorAll('td.num')[1]?.textContent === '1';
      }, me, { timeout: 30000 });
      const mine = await p.$$eval(`#standings tr[data-standing="${me}"] td`, (tds) => tds.map((td) => td.textContent));
      assert.equal(mine[0], '2');
      assert.equal(mine[3], '0');
      assert.match(mine[7], /^1-/);
      assert.match(await p.textContent('#rounds tr.this td.res'), /wins/);

      // Korean, in place; and a phone's width: nothing wider than the screen.
      await p.click('#lang');
      assert.equal(await p.textContent('#st-h'), '순위');
      assert.match(await p.textContent('#rounds h3'), /1라운드/);
      await p.click('#lang');
      const phone = await person(browser, 'phone', { viewport: { width: 390, height: 844 }, touch: true });
      await phone.page.goto(`${BASE}/t/${id}`);
      await phone.page.waitForSelector('#standings tbody tr[data-standing]');
      const wide = await phone.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= 390, `the tournament page is ${wide} px wide on a 390 px screen`);
      await phone.page.goto(`${BASE}/tournaments`);
      await phone.page.waitForSelector(`#finished li[data-tournament="${id}"], #running li[data-tournament="${id}"]`);
      assert.ok((await phone.page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
      assert.deepEqual([...p.errors, ...O.page.errors, ...phone.page.errors], []);
      await phone.page.context().close();
    });
  });

  test('withdraw before the start: Register comes back; in Korean the buttons say so', async (t) => {
    const O = await person(browser, 'organiser2');
    const P = await person(browser, 'changes-mind');
    await shots(t, [O.page, P.page], async () => {
      const me = `twd${stamp}`;
      await signUp(O.page, `torh${stamp}`, PASSWORD);
      await signUp(P.page, me, PASSWORD);
      const made = await call(O.page, 'POST', '/api/tournaments', { name: `Open ${stamp}`, format: 'mcmahon', rounds: 3, game: 'go', size: 9, rules: 'chinese', rated: false });
      assert.equal(made.status, 201, JSON.stringify(made.data));
      const p = P.page;
      await p.goto(`${BASE}/t/${made.data.id}`);
      await p.waitForSelector('body[data-status=upcoming]');
      await p.click('#lang');
      assert.equal(await p.textContent('#join'), '참가 신청');
      assert.match(await p.textContent('#tmeta'), /맥마흔/);
      await p.click('#join');
      await p.waitForSelector(`#players li.this[data-player-row="${me}"]`);
      assert.equal(await p.textContent('#withdraw'), '기권');
      await p.click('#withdraw');
      await p.waitForSelector('#join:not([hidden])');
      assert.equal(await p.$(`#players li.this[data-player-row="${me}"]`), null);
      await p.click('#lang');
      assert.deepEqual(p.errors, []);
    });
  });

  test('check in before the start: the button in its window, then whoever did not check in is absent once it starts', async (t) => {
    const O = await person(browser, 'organiser3');
    const P = await person(browser, 'checks-in');
    const Q = await person(browser, 'forgets');
    await shots(t, [O.page, P.page, Q.page], async () => {
      const [me, other] = [`tci${stamp}`, `tno${stamp}`];
      await signUp(O.page, `torc${stamp}`, PASSWORD);
      await signUp(P.page, me, PASSWORD);
      await signUp(Q.page, other, PASSWORD);
      // Starts in 20 minutes; check-in is open for the last 30, so it is open now.
      const made = await call(O.page, 'POST', '/api/tournaments', { name: `Check ${stamp}`, format: 'swiss', rounds: 2, starts_at: Date.now() + 20 * 60000, checkin_minutes: 30, game: 'go', size: 9, rules: 'japanese', rated: false });
      assert.equal(made.status, 201, JSON.stringify(made.data));
      const id = made.data.id;
      for (const [x, name] of [[P, me], [Q, other]]) {
        const joined = await call(x.page, 'POST', `/api/tournaments/${id}/join`);
        assert.equal(joined.status, 200, `${name}: ${JSON.stringify(joined.data)}`);
      }
      const p = P.page;
      await p.goto(`${BASE}/t/${id}`);
      await p.waitForSelector('#checkin:not([hidden])');
      assert.match(await p.textContent('#checkin-note'), /\S/);
      await p.click('#checkin');
      await p.waitForSelector(`#players li.this[data-player-row="${me}"] .tcheck`);
      await p.waitForSelector('#checkin[hidden]', { state: 'attached' });
      // The organiser starts early with a bot (a bot is always checked in): the one who did
      // not check in is left out, marked absent.
      const bot = await call(O.page, 'POST', `/api/tournaments/${id}/bots`, { bot: 'baduk', options: 'level=1' });
      assert.equal(bot.status, 200, JSON.stringify(bot.data));
      const started = await call(O.page, 'POST', `/api/tournaments/${id}/start`);
      assert.equal(started.status, 200, JSON.stringify(started.data));
      const o = O.page;
      await o.goto(`${BASE}/t/${id}`);
      await o.waitForSelector(`#players li.absent[data-player-row="${other}"]`);
      const ev = (await call(o, 'GET', `/api/tournaments/${id}`)).data;
      const status = Object.fromEntries(ev.players.map((x) => [x.name, x.status]));
      assert.equal(status[other], 'absent');
      assert.equal(status[me], 'in');
      assert.deepEqual([p.errors, o.errors], [[], []]);
    });
  });

  test('create an event through the form (bad input in words), then the organiser starts it, adds, sets a result and ends it', async (t) => {
    const O = await person(browser, 'form-organiser', { viewport: { width: 390, height: 844 }, touch: true });
    const P = await person(browser, 'form-player');
    const G = await person(browser, 'form-guest');
    await shots(t, [O.page, P.page, G.page], async () => {
      const org = `tform${stamp}`;
      const player = `tadd${stamp}`;
      await signUp(O.page, org, PASSWORD);
      await signUp(P.page, player, PASSWORD);
      // A guest is invited to sign up instead of the form.
      await G.page.goto(`${BASE}/tournaments`);
      await G.page.waitForSelector('#new-guest:not([hidden])');
      assert.equal(await G.page.isVisible('#new'), false);

      const o = O.page;
      await o.goto(`${BASE}/tournaments`);
      await o.waitForSelector('#new:not([hidden])');
      // An arena asks for minutes, a Swiss for rounds.
      await o.selectOption('#new select[name=format]', 'arena');
      assert.equal(await o.isVisible('#new input[name=rounds]'), false);
      assert.equal(await o.isVisible('#new input[name=minutes]'), true);
      await o.selectOption('#new select[name=format]', 'swiss');
      assert.equal(await o.isVisible('#new input[name=rounds]'), true);
      // Bad input: the refusal's code in words, and the page stays.
      await o.fill('#new input[name=name]', 'x'.repeat(81));
      await o.click('#new button[type=submit]');
      await o.waitForSelector('#new-err[data-code="tournament.name"]');
      assert.equal(await o.textContent('#new-err'), 'A tournament’s name is 1 to 80 characters.');
      const name = `Form cup ${stamp}`;
      await o.fill('#new input[name=name]', name);
      await o.fill('#new input[name=rounds]', '16');
      await o.click('#lang');
      assert.equal(await o.textContent('#new-h'), '대회 열기');
      await o.click('#new button[type=submit]');
      await o.waitForSelector('#new-err[data-code="tournament.rounds"]');
      assert.equal(await o.textContent('#new-err'), '스위스와 맥마흔은 1~15라운드입니다.');
      await o.click('#lang');
      assert.equal(o.url(), `${BASE}/tournaments`);
      const wide = await o.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= 390, `the form is ${wide} px wide on a 390 px screen`);
      // Good input: the event is made and its page opens.
      // Two rounds: the first's result (set by hand) pairs the second, and the event is ended in it.
      await o.fill('#new input[name=rounds]', '2');
      await o.selectOption('#new select[name=board]', '9');
      await o.selectOption('#new select[name=preset]', 'chinese');
      await o.selectOption('#new select[name=rank_max]', '9d');
      await Promise.all([o.waitForURL(/\/t\/[^/]+$/), o.click('#new button[type=submit]')]);
      const id = decodeURIComponent(new URL(o.url()).pathname.slice(3));
      await o.waitForSelector('body[data-status=upcoming]');
      assert.equal(await o.textContent('#tname'), name);
      assert.match(await o.textContent('#tsettings'), /9×9/);
      assert.match(await o.textContent('#tmeta'), new RegExp(`organised by ${org}`));

      // The organiser's controls: a player by name (an unknown one refused in words), a bot level.
      await o.waitForSelector('#org:not([hidden])');
      await o.fill('#addp input[name=pname]', `nobody${stamp}`);
      await o.click('#addp button[type=submit]');
      await o.waitForSelector('#orgerr[data-code="tournament.no_account"]');
      await o.fill('#addp input[name=pname]', player);
      await o.click('#addp button[type=submit]');
      await o.waitForSelector(`#players li[data-player-row="${player}"]`);
      await o.selectOption('#addb select[name=level]', JSON.stringify({ bot: 'baduk', options: 'level=1' }));
      await o.click('#addb button[type=submit]');
      await o.waitForFunction(() => document.querySelectorAll('#players li[data-player-row]').length === 2);
      // The player's own page shows it registered: Withdraw, not Register.
      await P.page.goto(`${BASE}/t/${id}`);
      await P.page.waitForSelector('#withdraw:not([hidden])');
      assert.equal(await P.page.isVisible('#org'), false, 'the controls are the organiser’s only');

      // Start now: round 1 is paired, its board gets a result picker.
      await o.click('#start');
      await o.waitForSelector('body[data-status=running]', { timeout: 30000 });
      await o.waitForSelector('[data-set-result="1/1"]', { timeout: 30000 });
      assert.equal(await o.isVisible('#start'), false);
      await o.selectOption('[data-result-for="1/1"]', 'jigo');
      await o.click('[data-set-result="1/1"]');
      // The picker goes; the result names who set it.
      const res = '#rounds [data-round="1"] [data-board="1"] td.res a.tgame';
      await o.waitForFunction(() => !document.querySelector('[data-set-result="1/1"]'));
      assert.equal(await o.textContent(res), `Jigo (${org})`);
      // The player's page follows (socket or poll).
      await P.page.waitForFunction((sel) => document.querySelector(sel)?.textContent.startsWith('Jigo'), res, { timeout: 30000 });

      // End the event: finished, the controls gone.
      await o.click('#end');
      await o.waitForSelector('body[data-status=finished]');
      assert.equal(await o.isVisible('#org'), false);
      assert.deepEqual([...o.errors, ...P.page.errors, ...G.page.errors], []);
      await O.context.close();
      await G.context.close();
    });
  });

  test('an arena’s page: its end counting down, the points and streaks, in Korean too', async (t) => {
    const O = await person(browser, 'arena-organiser');
    await shots(t, [O.page], async () => {
      const org = `tarena${stamp}`;
      await signUp(O.page, org, PASSWORD);
      const o = O.page;
      const made = await call(o, 'POST', '/api/tournaments', { name: `Arena ${stamp}`, format: 'arena', minutes: 30, game: 'go', size: 9, rules: 'chinese', rated: false });
      assert.equal(made.status, 201, JSON.stringify(made.data));
      const id = made.data.id;
      for (const level of [1, 2, 3]) {
        const r = await call(o, 'POST', `/api/tournaments/${id}/bots`, { bot: 'baduk', options: `level=${level}` });
        assert.equal(r.status, 200, JSON.stringify(r.data));
      }
      await o.goto(`${BASE}/t/${id}`);
      await o.waitForSelector('body[data-status=upcoming]');
      assert.equal(await o.isVisible('#tcount'), false);
      await o.click('#start');
      await o.waitForSelector('body[data-status=running]', { timeout: 30000 });
      await o.waitForSelector('#tcount:not([hidden])');
      assert.match(await o.textContent('#tcount'), /^ends in (29|30):\d\d$/);
      const head = await o.$$eval('#standings thead th', (ths) => ths.map((th) => th.textContent));
      assert.deepEqual(head, ['#', 'Player', 'Score', 'Games', 'Streak', 'Points']);
      await o.waitForSelector('#standings tbody tr[data-standing] td[data-streak]');
      await o.click('#lang');
      assert.match(await o.textContent('#tcount'), /^종료까지 (29|30):\d\d$/);
      assert.ok((await o.$$eval('#standings thead th', (ths) => ths.map((th) => th.textContent))).includes('연승'));
      await o.click('#lang');
      // Ended by hand: no countdown any more.
      await o.click('#end');
      await o.waitForSelector('body[data-status=finished]');
      assert.equal(await o.isVisible('#tcount'), false);
      assert.deepEqual(o.errors, []);
      await O.context.close();
    });
  });

  test('a tournament that does not exist says so', async (t) => {
    const V = await person(browser, 'visitor');
    await shots(t, [V.page], async () => {
      await V.page.goto(`${BASE}/t/nosuchcup`);
      await V.page.waitForSelector('body[data-status=notfound]');
      assert.match(await V.page.textContent('#notfound h1'), /No such tournament/);
    });
  });
});
