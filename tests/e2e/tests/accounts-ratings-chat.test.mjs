// Players who come back, in the browser: two new users sign up, press "play now" for a
// rated 9×9 game, are matched, chat (a spectator sees only the spectators' channel; markup stays
// text), play to the end and find their new ratings and the game on their profiles; a guest plays
// the bot offered when nobody else is seeking, then signs up keeping the game; the new pages on
// a phone-sized screen.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, playPoint, docShot, record, resign, mySeat } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const PASSWORD = 'correct horse battery staple';

/** Signs up on /login as `name` and waits for the lobby to show the account in the header. */
async function signUp(page, name) {
  await page.goto(`${BASE}/login?mode=signup`);
  await page.waitForSelector('body[data-account]');
  await page.fill('input[name=username]', name);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL(`${BASE}/`), page.click('#auth-btn')]);
  await page.waitForSelector(`#account [data-me="${name}"]`);
}

describe('accounts, play now, ratings and chat: players who come back', () => {
  let browser;
  let A;
  let B;
  let S;
  let gameId = null;
  let black;
  let white;
  const nameA = `ann${stamp}`;
  const nameB = `bo${stamp}`;
  const pages = () => [A?.page, B?.page, S?.page].filter(Boolean);

  before(async () => {
    browser = await launch();
    A = await person(browser, 'ann');
    B = await person(browser, 'bo');
    S = await person(browser, 'spectator');
  });
  after(async () => {
    await browser?.close();
  });

  test('sign-up refusals are said in the page’s language', async (t) =>
    shots(t, pages(), async () => {
      const p = S.page;
      await p.goto(`${BASE}/login?mode=signup`);
      await p.waitForSelector('body[data-account]');
      await p.fill('input[name=username]', `ok${stamp}`);
      await p.fill('input[name=password]', 'short');
      await p.click('#auth-btn');
      await p.waitForSelector('#auth-error[data-code="auth.password_short"]');
      assert.match(await p.textContent('#auth-error'), /at least 8 characters/);
      // A wrong password on sign-in: the same words whether or not the name exists.
      await p.click('#tab-signin');
      await p.fill('input[name=username]', `nobody${stamp}`);
      await p.fill('input[name=password]', 'not the password');
      await p.click('#auth-btn');
      await p.waitForSelector('#auth-error[data-code="auth.wrong"]');
      assert.match(await p.textContent('#auth-error'), /Wrong username or password/);
      await p.click('#lang');
      await p.click('#auth-btn');
      await p.waitForSelector('#auth-error[data-code="auth.wrong"]');
      assert.match(await p.textContent('#auth-error'), /아이디 또는 비밀번호가 틀렸습니다/);
      await p.click('#lang');
    }));

  test('two new players sign up, press "play now" for rated 9×9 and land in the same game', async (t) =>
    shots(t, pages(), async () => {
      await signUp(A.page, nameA);
      await signUp(B.page, nameB);
      for (const p of [A.page, B.page]) {
        await p.selectOption('#seek select[name=seek-kind]', 'go:9');
        await p.check('#seek input[name=seek-rated]');
      }
      const t0 = Date.now();
      await A.page.click('#seek-btn');
      await A.page.waitForSelector('body[data-seek=searching]');
      // The second seek pairs with the first one: both pages move into the game.
      await Promise.all([A.page.waitForURL(/\/g\/[^/#]+/), B.page.waitForURL(/\/g\/[^/#]+/), B.page.click('#seek-btn')]);
      record('play now: seek → both game pages (ms)', Date.now() - t0);
      gameId = new URL(A.page.url()).pathname.split('/')[2];
      assert.equal(new URL(B.page.url()).pathname.split('/')[2], gameId, 'one game for both');
      const seatA = await mySeat(A.page);
      const seatB = await mySeat(B.page);
      assert.deepEqual([seatA, seatB].sort(), ['black', 'white']);
      black = seatA === 'black' ? A : B;
      white = seatA === 'black' ? B : A;
      // Seat names with ranks, links to the profiles; the page acts for the account (no token).
      for (const p of [A.page, B.page]) {
        await p.waitForSelector(`.player [data-player="${nameA}"]`);
        await p.waitForSelector(`.player [data-player="${nameB}"]`);
        assert.equal(await p.evaluate((id) => localStorage.getItem(`baduk.seats.${id}`), gameId), null, 'no seat token was needed');
      }
      assert.match(await A.page.textContent('#info'), /Rated/);
      await playPoint(black.page, 'C3');
      await white.page.waitForSelector('circle.stone.black[data-point=C3]');
      await playPoint(white.page, 'G7');
      await black.page.waitForSelector('circle.stone.white[data-point=G7]');
      // Two moves each: a rated game with fewer is unrated (issue 39: no farming by resigning).
      await playPoint(black.page, 'C7');
      await white.page.waitForSelector('circle.stone.black[data-point=C7]');
      await playPoint(white.page, 'G3');
      await black.page.waitForSelector('circle.stone.white[data-point=G3]');
    }));

  test('chat: the players’ channel is the players’ own, markup stays text, a spectator sees only the spectators’ channel', async (t) =>
    shots(t, pages(), async () => {
      assert.ok(gameId, 'the game of the previous test');
      await S.page.goto(`${BASE}/g/${gameId}`);
      await S.page.waitForSelector('body[data-role=spectator]');
      await S.page.waitForSelector('#chat[data-role=spectator]');
      assert.equal(await S.page.isVisible('#chat [role=tab][data-channel=players]'), false, 'a spectator has no players’ tab');
      // A player writes markup in the players' channel: the opponent reads it as text.
      await black.page.waitForSelector('#chat[data-role=player][data-channel=players]');
      await black.page.fill('#chat input[name=chat]', '<b>x</b> <img src=x onerror="window.__pwned=1">');
      await black.page.press('#chat input[name=chat]', 'Enter');
      const line = white.page.locator('#chat li[data-channel=players] [data-chat-text]').first();
      await line.waitFor();
      assert.equal(await line.textContent(), '<b>x</b> <img src=x onerror="window.__pwned=1">');
      assert.equal(await white.page.locator('#chat li[data-channel=players] b, #chat li img').count(), 0, 'no element was made from the text');
      assert.equal(await white.page.evaluate(() => window.__pwned), undefined);
      // The spectators' channel: everyone reads it.
      await S.page.fill('#chat input[name=chat]', `hello from the gallery ${stamp}`);
      await S.page.press('#chat input[name=chat]', 'Enter');
      await S.page.waitForSelector(`#chat li[data-channel=spectators] >> text=hello from the gallery ${stamp}`);
      await white.page.click('#chat [role=tab][data-channel=spectators]');
      await white.page.waitForSelector(`#chat li[data-channel=spectators] >> text=hello from the gallery ${stamp}`);
      // The spectator never got the players' message, live or from the history.
      await S.page.reload();
      await S.page.waitForSelector(`#chat li[data-channel=spectators] >> text=hello from the gallery ${stamp}`);
      assert.equal(await S.page.locator('#chat li[data-channel=players]').count(), 0);
      assert.equal(await S.page.evaluate(() => document.body.textContent.includes('<b>x</b>')), false);
      // A report button on each message stores a report.
      const msg = white.page.locator('#chat li[data-channel=spectators]').first();
      await msg.locator('[data-report]').click();
      await msg.locator('input').fill('spam');
      await msg.locator('[data-report-send]').click();
      await msg.locator('[data-reported]').waitFor();
      // A player may mute the spectators' channel for themselves.
      await white.page.check('#chat [data-mute=spectators]');
      await white.page.waitForSelector('#chat li.empty');
      await white.page.uncheck('#chat [data-mute=spectators]');
      await white.page.click('#chat [role=tab][data-channel=players]');
    }));

  test('the game ends; both see the rating change, then their new rating and the game on their profiles', async (t) =>
    shots(t, pages(), async () => {
      assert.ok(gameId, 'the game of the first test');
      // White resigns (the button asks once more).
      await resign(white.page);
      for (const p of [A.page, B.page, S.page]) await p.waitForSelector('body[data-status=finished] .result-line');
      for (const p of [A.page, B.page]) {
        await p.waitForSelector('[data-rating-change] li', { timeout: 15000 });
        assert.equal(await p.locator('[data-rating-change] li').count(), 2);
      }
      const after = {};
      for (const [who, won] of [[black, true], [white, false]]) {
        const name = who === A ? nameA : nameB;
        const li = black.page.locator(`[data-rating-change] li[data-player="${name}"]`);
        const d = Number(await li.getAttribute('data-delta'));
        assert.ok(won ? d > 0 : d < 0, `${name}: ${d}`);
        after[name] = Number(await li.getAttribute('data-after'));
      }
      for (const [who, name, won] of [[black, black === A ? nameA : nameB, true], [white, white === A ? nameA : nameB, false]]) {
        const p = who.page;
        await p.goto(`${BASE}/@/${name}`);
        await p.waitForSelector('body[data-loaded]');
        const row = p.locator('#ratings tr[data-kind=go-small]');
        await row.waitFor();
        assert.equal((await row.locator('td').nth(2).textContent()).trim(), '1');
        const rating = Number(await row.locator('[data-rating]').getAttribute('data-rating'));
        assert.equal(rating, after[name], `${name}: the profile's rating is the game's result`);
        await p.waitForSelector('svg.rgraph[data-graph=go-small] circle.pt');
        const game = p.locator(`#pgames li[data-game="${gameId}"]`);
        await game.waitFor();
        assert.equal(await game.getAttribute('data-outcome'), won ? 'win' : 'loss');
        assert.equal(await game.locator(`[data-replay="${gameId}"]`).getAttribute('href'), `/g/${gameId}`);
        assert.equal(await game.locator(`[data-record="${gameId}"]`).getAttribute('href'), `/api/games/${gameId}/record`);
        await p.waitForSelector(`#opponents tr[data-opponent="${won ? (white === A ? nameA : nameB) : black === A ? nameA : nameB}"]`);
        assert.match(await p.getAttribute('#sgf-all', 'href'), new RegExp(`/api/players/${name}/games\\.sgf$`));
      }
      await docShot(A.page, 'profile');
    }));

  test('a guest takes the bot offered when nobody else seeks, then signs up keeping the game', async (t) => {
    const G = await person(browser, 'guest');
    await shots(t, [G.page], async () => {
      const p = G.page;
      await p.goto(`${BASE}/`);
      await p.waitForSelector('body[data-account=guest]');
      await p.selectOption('#seek select[name=seek-kind]', 'go:9');
      await p.selectOption('#seek select[name=seek-clock]', 'none');
      await p.uncheck('#seek input[name=seek-rated]');
      // Any opponent: the seek's range spans the widest the server takes (± 2500).
      await p.selectOption('#seek select[name=seek-range]', 'any');
      await p.click('#seek-btn');
      let mine = null;
      for (let i = 0; i < 50 && !mine; i++) {
        mine = await p.evaluate(async () => {
          const name = document.getElementById('account')?.dataset.name;
          const r = await (await fetch('/api/seeks')).json();
          return (r.seeks || []).find((s) => (typeof s.player === 'string' ? s.player : s.player?.name) === name) || null;
        });
        if (!mine) await p.waitForTimeout(100);
      }
      assert.ok(mine, 'the seek is listed');
      assert.equal(mine.range[1] - mine.range[0], 5000, JSON.stringify(mine));
      // Nobody else seeks this: the bot is offered (after --seek-bot-seconds).
      await p.waitForSelector('#bot-offer:not([hidden])', { timeout: 30000 });
      await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#accept-bot')]);
      const id = new URL(p.url()).pathname.split('/')[2];
      const seat = await mySeat(p);
      await p.waitForSelector(`.player.seat-${seat === 'black' ? 'white' : 'black'} .kind >> text=Bot`);
      if (seat === 'black') await playPoint(p, 'E5');
      // The bot's reply first (it comes at once), then resign on one's own turn.
      await p.waitForSelector(`.player.seat-${seat}.to-move`);
      await resign(p);
      await p.waitForSelector('body[data-status=finished] .result-line');
      // Sign up from the header: back on the game, as the named account, still its player.
      const name = `gus${stamp}`;
      await Promise.all([p.waitForURL(/\/login/), p.click('#account [data-auth=signup]')]);
      await p.fill('input[name=username]', name);
      await p.fill('input[name=password]', PASSWORD);
      assert.equal(await p.isVisible('#guest-note'), true, 'the page says the guest’s games are kept');
      await Promise.all([p.waitForURL(`${BASE}/g/${id}`), p.click('#auth-btn')]);
      await p.waitForSelector(`#account [data-me="${name}"]`);
      await p.waitForSelector(`.player [data-player="${name}"]`);
      await p.goto(`${BASE}/@/${name}`);
      await p.waitForSelector(`#pgames li[data-game="${id}"][data-outcome=loss]`);
    });
  });

  test('a game made in the lobby while signed in is the creator’s; invite only: the link with its invite secret, "join as yourself", not listed', async (t) =>
    shots(t, pages(), async () => {
      const p = A.page;
      await p.goto(`${BASE}/`);
      await p.waitForSelector(`#account [data-me="${nameA}"]`);
      await p.selectOption('#create select[name=size]', '9');
      // Naming the opponent fills in the handicap and komi the server suggests from the rating
      // gap (after the rated game above, the gap is some ranks), and says so.
      await p.fill('#create input[name=opponent]', `${nameB}x`);
      await p.waitForSelector('#suggest-note:not([hidden]) >> text=No player by that name.');
      await p.fill('#create input[name=opponent]', nameB);
      await p.waitForSelector('#suggest-note[data-suggest]');
      const sug = await p.evaluate(async (n) => (await fetch(`/api/suggest?opponent=${encodeURIComponent(n)}&kind=go-small`)).json(), nameB);
      record('play now: suggestion after one rated 9×9 game', sug);
      assert.equal(await p.getAttribute('#suggest-note', 'data-suggest'), `${sug.handicap}:${sug.komi ?? ''}`);
      assert.equal(await p.inputValue('#create select[name=handicap]'), String(sug.handicap));
      assert.equal(await p.inputValue('#create input[name=komi]'), sug.komi === null ? '' : String(sug.komi));
      assert.match(await p.textContent('#suggest-note'), /Suggested from the ratings/);
      // This game is an even one all the same (the moves below are Black's first).
      await p.fill('#create input[name=opponent]', '');
      await p.selectOption('#create select[name=handicap]', '0');
      await p.fill('#create input[name=komi]', '');
      await p.selectOption('select[name=seat-black]', 'me');
      await p.selectOption('select[name=seat-white]', 'open');
      await p.check('#create input[name=unlisted]');
      await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#create-btn')]);
      const id = new URL(p.url()).pathname.split('/')[2];
      await p.waitForSelector(`.player.seat-black [data-player="${nameA}"]`);
      const link = await p.inputValue('input[data-invite=white]');
      assert.match(link, new RegExp(`^${BASE}/g/${id}#invite=[0-9a-f]{64}$`), 'the invitation is the game’s own address and its invite secret');
      await B.page.goto(link);
      await B.page.waitForSelector('body[data-role=spectator]');
      assert.equal(await B.page.textContent('[data-sit=white]'), 'Join as yourself');
      await B.page.click('[data-sit=white]');
      await B.page.waitForSelector(`.player.seat-white [data-player="${nameB}"]`);
      await B.page.waitForSelector('.player.seat-white .kind >> text=You');
      await p.waitForSelector(`.player.seat-white [data-player="${nameB}"]`);
      // Black acts as the account: a move with no token in this browser's storage.
      await p.evaluate((id) => localStorage.removeItem(`baduk.seats.${id}`), id);
      await p.reload();
      await p.waitForSelector('.player.seat-black .kind >> text=You');
      await playPoint(p, 'E5');
      const open = await (await fetch(`${BASE}/api/games?status=live&limit=100`)).json();
      assert.ok(!open.games.some((g) => g.id === id), 'an invite-only game is not listed');
      await resign(p);
    }));

  test('sign out, sign in again; API tokens made once and revoked; the new pages on a phone', async (t) => {
    const P = await person(browser, 'phone', { viewport: { width: 390, height: 844 }, touch: true });
    await shots(t, [P.page, A.page], async () => {
      const p = A.page;
      await p.goto(`${BASE}/me`);
      await p.fill('#new-token input[name=label]', 'my bot');
      // Scopes are chosen when the token is made: reading and playing by default; here
      // reading and `challenge`, not playing (`bot` is offered to bot accounts only).
      assert.ok(await p.isHidden('#token-scopes input[value=bot]'));
      assert.ok(await p.isChecked('#token-scopes input[value=read]'));
      assert.ok(await p.isChecked('#token-scopes input[value=play]'));
      await p.uncheck('#token-scopes input[value=play]');
      await p.check('#token-scopes input[value=challenge]');
      await p.click('#new-token button[type=submit]');
      const tok = await p.inputValue('[data-fresh-token]');
      assert.match(tok, /^bdk_/);
      await p.waitForSelector('#tokens li[data-token] [data-scopes="read,challenge"]');
      // The token works as a bearer and names the account; without `play` it creates no game.
      const me = await fetch(`${BASE}/api/me`, { headers: { Authorization: `Bearer ${tok}` } });
      if (me.status === 200) assert.equal((await me.json()).account.name, nameA);
      const made = await fetch(`${BASE}/api/games`, { method: 'POST', headers: { Authorization: `Bearer ${tok}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ game: 'go', size: 9 }) });
      if (made.status !== 429) assert.equal((await made.json()).code, 'auth.scope');
      await p.click('#tokens [data-revoke]');
      await p.waitForSelector('#tokens li.empty');
      await p.click('#account [data-auth=signout]');
      await p.waitForSelector('body[data-account=guest]');
      await p.goto(`${BASE}/login`);
      await p.fill('input[name=username]', nameA);
      await p.fill('input[name=password]', PASSWORD);
      await Promise.all([p.waitForURL(`${BASE}/`), p.click('#auth-btn')]);
      await p.waitForSelector(`#account [data-me="${nameA}"]`);
      // A phone: nothing is wider than the screen.
      const q = P.page;
      for (const path of ['/', '/login', `/@/${nameA}`, `/g/${gameId}`]) {
        await q.goto(`${BASE}${path}`);
        await q.waitForSelector('body[data-account]');
        await q.waitForTimeout(300);
        const wide = await q.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(wide <= 390, `${path}: ${wide} px wide`);
        await docShot(q, `phone${path.replace(/[^a-z0-9]+/gi, '-')}`, { fullPage: true });
      }
    });
  });
});
