// Challenges in the browser: a challenge from a profile shows at once in the other player's
// lobby (with a badge) and is declined with a reason the challenger reads, after which the
// cooldown is said; an accepted challenge takes both players to the game, whose end offers a
// rematch with the colours swapped; a challenge by link is accepted by whoever opens it signed
// in; the panel reads in Korean and fits a phone.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, signUp, resign, api, act, mySeat, playPoint, version, newerThan } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const PASSWORD = 'correct horse battery staple';

/** A person signed up as `name` (on the lobby afterwards). */
async function member(browser, name, opts) {
  const p = await person(browser, name, opts);
  await signUp(p.page, name, PASSWORD);
  return p;
}

/** Challenges `to` from their profile with the form's choices (`size`, `clock`, `colour`); waits for "sent". */
async function challengeFromProfile(page, to, { size = '9', clock = 'none', colour = 'random' } = {}) {
  await page.goto(`${BASE}/@/${to}`);
  await page.waitForSelector('body[data-loaded="1"]');
  await page.click('#challenge-btn');
  await page.selectOption('#challenge-form select[name=size]', size);
  await page.selectOption('#challenge-form select[name=clock]', clock);
  await page.selectOption('#challenge-form select[name=colour]', colour);
  await page.click('#challenge-form button[type=submit]');
}

/**
 * A bot account made over the API (the Bot API: sign up, `POST /api/account/bot`, a `bot`
 * token, what it accepts): its token, or null where this build has no Bot API.
 */
async function botAccount(name) {
  const r = await fetch(`${BASE}/api/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: name, password: PASSWORD }) });
  assert.ok(r.ok, `signup ${r.status}`);
  const { csrf } = await r.json();
  const headers = { cookie: r.headers.getSetCookie().map((c) => c.split(';')[0]).join('; '), 'x-csrf-token': csrf, 'content-type': 'application/json' };
  const b = await fetch(`${BASE}/api/account/bot`, { method: 'POST', headers });
  if (b.status === 404) return null;
  assert.equal(b.status, 200);
  const tk = await (await fetch(`${BASE}/api/tokens`, { method: 'POST', headers, body: JSON.stringify({ label: 'bridge', scopes: ['bot'] }) })).json();
  const accepts = { games: ['go'], sizes: [9, 13, 19], clocks: ['none', 'byo-yomi', 'absolute', 'canadian', 'fischer'], rated: 'any', bots: false, max_games: 4 };
  assert.equal((await api('PUT', '/api/account/bot/accepts', accepts, tk.token)).status, 200);
  return tk.token;
}

/** Holds the account's event stream open (a bot is online while it does), each event to `onEvent`; returns its stop. */
function followEvents(token, onEvent) {
  const ctl = new AbortController();
  (async () => {
    const r = await fetch(`${BASE}/api/stream/events`, { headers: { Authorization: `Bearer ${token}` }, signal: ctl.signal });
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line) onEvent(JSON.parse(line));
      }
    }
  })().catch(() => {});
  return () => ctl.abort();
}

/** No page of these people met a script error. */
const noErrors = (...people) => assert.deepEqual(people.flatMap((p) => p.page.errors), []);

/** Closes these people's browsers. */
async function closeAll(...people) {
  for (const p of people) await p.context.close();
}

/** The game id of a game page's address (/g/ID). */
const gameOf = (url) => new URL(url).pathname.split('/')[2];

describe('challenges', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('a challenge from a profile shows live in the lobby with a badge; declined with a reason, the challenger reads why; again: the cooldown', async (t) => {
    const A = await member(browser, `chala${stamp}`);
    const B = await member(browser, `chalb${stamp}`);
    await shots(t, [A.page, B.page], async () => {
      // B waits in the lobby: no panel (nothing in it), no badge.
      await B.page.waitForSelector('body[data-account=named]');
      assert.equal(await B.page.isHidden('#challenges-card'), true);
      assert.equal(await B.page.isHidden('#challenge-count'), true);
      await challengeFromProfile(A.page, `chalb${stamp}`, { colour: 'black' });
      await A.page.waitForSelector('#challenge-sent[data-status=open]');
      assert.match(await A.page.textContent('#challenge-sent'), /You play Black/);
      // Live in B's lobby, without a reload, with its count.
      const li = await B.page.waitForSelector(`#incoming li[data-challenge]:has-text("chala${stamp}")`);
      assert.equal(await B.page.textContent('#challenge-count'), '1');
      assert.match(await li.textContent(), /You play White/);
      assert.match(await li.textContent(), /9×9/);
      // Declined with a reason.
      await B.page.click('#incoming [data-decline-challenge]');
      await B.page.selectOption('#incoming select[name=reason]', 'too_fast');
      await B.page.click('#incoming [data-confirm-decline]');
      await B.page.waitForSelector('#incoming li[data-challenge]', { state: 'detached' });
      assert.equal(await B.page.isHidden('#challenge-count'), true);
      assert.equal(await B.page.isHidden('#challenges-card'), true, 'an empty panel is put away');
      // The challenger's profile page says so, and why.
      await A.page.waitForSelector('#challenge-sent[data-status=declined]');
      assert.match(await A.page.textContent('#challenge-sent'), /Too fast a clock/);
      // Again at once: the cooldown, with its end.
      await A.page.click('#challenge-btn');
      await A.page.click('#challenge-form button[type=submit]');
      await A.page.waitForSelector('#challenge-answer[data-code="challenge.cooldown"]');
      assert.match(await A.page.textContent('#challenge-answer'), /declined your challenge lately: you can challenge them again after \S/);
      noErrors(A, B);
    });
    await closeAll(A, B);
  });

  test('an accepted challenge takes both players to the game; at its end a rematch swaps the colours', async (t) => {
    const C = await member(browser, `chalc${stamp}`);
    const D = await member(browser, `chald${stamp}`);
    await shots(t, [C.page, D.page], async () => {
      await D.page.waitForSelector('body[data-account=named]');
      await challengeFromProfile(C.page, `chald${stamp}`, { colour: 'black' });
      await C.page.waitForSelector('#challenge-sent[data-status=open]');
      await D.page.waitForSelector('#incoming [data-accept-challenge]');
      await Promise.all([D.page.waitForURL(/\/g\/[^/]+$/), C.page.waitForURL(/\/g\/[^/]+$/), D.page.click('#incoming [data-accept-challenge]')]);
      const id = gameOf(D.page.url());
      assert.equal(gameOf(C.page.url()), id);
      const g = await api('GET', `/api/games/${id}`);
      assert.equal(g.data.seats.black.player.name, `chalc${stamp}`);
      assert.equal(g.data.seats.white.player.name, `chald${stamp}`);
      assert.equal(g.data.size.cols, 9);
      // Black resigns; both see the way to a rematch.
      await C.page.waitForSelector('[data-action=resign]');
      await resign(C.page);
      await D.page.waitForSelector('body[data-status=finished]');
      await C.page.click('[data-action=rematch]');
      await C.page.waitForSelector('[data-rematch=sent]');
      // The opponent, still on the finished game, is offered it there.
      await D.page.waitForSelector('[data-rematch=offered]');
      assert.match(await D.page.textContent('[data-rematch=offered]'), new RegExp(`chalc${stamp} offers a rematch`));
      await Promise.all([
        D.page.waitForURL((u) => /\/g\/[^/]+$/.test(u.pathname) && gameOf(u.href) !== id),
        C.page.waitForURL((u) => /\/g\/[^/]+$/.test(u.pathname) && gameOf(u.href) !== id),
        D.page.click('[data-action=rematch-accept]'),
      ]);
      const id2 = gameOf(D.page.url());
      assert.equal(gameOf(C.page.url()), id2);
      const g2 = await api('GET', `/api/games/${id2}`);
      assert.equal(g2.data.seats.black.player.name, `chald${stamp}`, 'the colours swapped');
      assert.equal(g2.data.seats.white.player.name, `chalc${stamp}`);
      assert.equal(g2.data.size.cols, 9, 'the same settings');
      noErrors(C, D);
    });
    await closeAll(C, D);
  });

  test('a challenge by link, made on the lobby’s New-game form, is accepted by another account; a guest is asked to sign in', async (t) => {
    const E = await member(browser, `chale${stamp}`);
    const F = await member(browser, `chalf${stamp}`);
    const G = await person(browser, 'link-guest');
    await shots(t, [E.page, F.page, G.page], async () => {
      await E.page.selectOption('#create select[name=size]', '9');
      await E.page.click('#link-challenge-btn');
      await E.page.waitForSelector('[data-challenge-link]');
      const link = await E.page.inputValue('[data-challenge-link]');
      assert.match(link, /\/c\/[^/]+$/);
      // In E's panel among its own, with the link to copy and Cancel.
      await E.page.waitForSelector('#outgoing [data-copy-challenge]');
      // A guest reads it and is asked to sign in, back here afterwards.
      await G.page.goto(link);
      await G.page.waitForSelector('body[data-ready="1"]');
      assert.match(await G.page.textContent('#ch-who'), new RegExp(`chale${stamp} \\(\\d+k\\??\\) → anyone with the link`));
      const signin = await G.page.getAttribute('[data-auth=signin-accept]', 'href');
      assert.equal(signin, `/login?next=${encodeURIComponent(new URL(link).pathname)}`);
      // A member accepts: both at the game.
      await F.page.goto(link);
      await F.page.waitForSelector('#accept-challenge');
      await Promise.all([F.page.waitForURL(/\/g\/[^/]+$/), E.page.waitForURL(/\/g\/[^/]+$/), F.page.click('#accept-challenge')]);
      assert.equal(gameOf(E.page.url()), gameOf(F.page.url()));
      // The link says where it went.
      await G.page.reload();
      await G.page.waitForSelector('body[data-status=accepted]');
      assert.equal(await G.page.getAttribute('#ch-actions a[data-game]', 'data-game'), gameOf(F.page.url()));
      noErrors(E, F, G);
    });
    await closeAll(E, F, G);
  });

  test('the panel in Korean on a phone (375×667): Korean words only, Accept and Decline in reach, nothing wider than the screen', async (t) => {
    const H = await member(browser, `chalh${stamp}`);
    const K = await member(browser, `chalk${stamp}`, { locale: 'ko-KR', viewport: { width: 375, height: 667 }, touch: true });
    await shots(t, [H.page, K.page], async () => {
      await K.page.waitForSelector('body[data-account=named]');
      await challengeFromProfile(H.page, `chalk${stamp}`, { size: '19', clock: 'byo-yomi' });
      await H.page.waitForSelector('#challenge-sent[data-status=open]');
      await K.page.waitForSelector('#incoming [data-accept-challenge]');
      assert.equal(await K.page.getAttribute('html', 'lang'), 'ko');
      const latin = async () =>
        K.page.evaluate(() => {
          const out = [];
          const card = document.querySelector('#challenges-card');
          const walker = document.createTreeWalker(card, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            if (n.parentElement.closest('[data-user], [translate=no]') || !n.parentElement.checkVisibility()) continue;
            out.push(...(n.textContent.match(/[A-Za-z]+/g) || []));
          }
          return out;
        });
      assert.deepEqual(await latin(), [], 'Latin words in the Korean panel');
      assert.match(await K.page.textContent('#challenges-card h2'), /대국 신청/);
      assert.match(await K.page.textContent('#incoming'), /수락/);
      const fits = () => K.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);
      assert.ok(await fits(), 'nothing wider than the phone');
      // The panel comes first on a phone, its buttons on the screen and big enough to tap.
      for (const sel of ['#incoming [data-accept-challenge]', '#incoming [data-decline-challenge]']) {
        const box = await K.page.locator(sel).boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= 375 && box.y + box.height <= 667, `${sel} on the screen: ${JSON.stringify(box)}`);
        assert.ok(box.height >= 30, `${sel} tall enough to tap`);
      }
      // The reasons, in Korean, fit too; declining works by taps.
      await K.page.tap('#incoming [data-decline-challenge]');
      assert.deepEqual(await latin(), [], 'Latin words in the Korean reasons');
      assert.ok(await fits(), 'nothing wider than the phone with the reasons open');
      await K.page.selectOption('#incoming select[name=reason]', 'later');
      await K.page.tap('#incoming [data-confirm-decline]');
      await K.page.waitForSelector('#incoming li[data-challenge]', { state: 'detached' });
      await H.page.waitForSelector('#challenge-sent[data-status=declined]');
      assert.match(await H.page.textContent('#challenge-sent'), /Later, please/);
      noErrors(H, K);
    });
    await closeAll(H, K);
  });

  test('a player opens the Bots list, challenges a bot and plays it in the page (the bot answers over the Bot API)', async (t) => {
    const bot = `chbot${stamp}`;
    const token = await botAccount(bot);
    if (!token) {
      t.skip('this build has no Bot API');
      return;
    }
    // The bot: online while its stream is open; it accepts what it is sent.
    let game = null;
    const stop = followEvents(token, async (ev) => {
      if (ev.type === 'challenge' && ev.challenge?.status === 'open') {
        const r = await api('POST', `/api/challenges/${ev.challenge.id}/accept`, {}, token);
        if (r.status === 200) game = r.data;
      }
    });
    const P = await member(browser, `chalp${stamp}`);
    await shots(t, [P.page], async () => {
      await P.page.selectOption('#create select[name=size]', '9');
      await P.page.waitForSelector(`#bots li[data-bot="${bot}"] [data-bot-online="1"]`, { timeout: 20000 });
      await Promise.all([P.page.waitForURL(/\/g\/[^/]+$/), P.page.click(`#bots [data-challenge="${bot}"]`)]);
      assert.ok(game, 'the bot accepted');
      assert.equal(gameOf(P.page.url()), game.game);
      // One move each, the player's by a click on the board.
      const mine = await mySeat(P.page);
      const botMove = async (point) => {
        const v = await version(P.page);
        assert.equal((await act(game.game, token, point)).status, 200);
        await newerThan(P.page, v);
      };
      if (mine === 'white') await botMove('E5');
      await playPoint(P.page, 'C3');
      if (mine === 'black') await botMove('E5');
      const st = (await api('GET', `/api/games/${game.game}`)).data;
      assert.equal(st.moves.length, 2);
      noErrors(P);
    });
    stop();
    await closeAll(P);
  });
});
