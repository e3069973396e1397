// Bot accounts in the pages: a BOT mark beside every name a bot account has (the game page's
// seats and chat, the profile, the lobby's lists), in both languages, and the lobby's "Bots" list
// (GET /api/bots) with a Challenge button each, which sends the "New game" form's settings and
// shows the answer (a refusal by its code's text). The bot is made through the API: sign-up,
// `POST /api/account/bot`, a `bot` token.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, api, signUp } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const BOT = `gnubot${stamp}`;
const PASSWORD = 'a bot keeps its own secret';

/** A request with the bot's session cookie and CSRF token. */
async function asBot(session, method, p, body) {
  const r = await fetch(BASE + p, {
    method,
    headers: { 'content-type': 'application/json', cookie: session.cookie, 'x-csrf-token': session.csrf },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, data: await r.json().catch(() => null) };
}

describe('bot accounts in the pages', () => {
  let browser;
  let game;
  let token;
  before(async () => {
    const r = await fetch(`${BASE}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: BOT, password: PASSWORD }),
    });
    const body = await r.text();
    assert.equal(r.status, 201, body);
    const cookie = r.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const session = { cookie, csrf: JSON.parse(body).csrf };
    // A game the account holds Black in (unrated), made before it became a bot.
    const g = await asBot(session, 'POST', '/api/games', { game: 'go', size: 9, seats: { white: { kind: 'open' } } });
    assert.equal(g.status, 201, JSON.stringify(g.data));
    game = g.data.id;
    const b = await asBot(session, 'POST', '/api/account/bot');
    assert.equal(b.status, 200, JSON.stringify(b.data));
    assert.equal(b.data.account.bot, true);
    const tk = await asBot(session, 'POST', '/api/tokens', { label: 'bridge', scopes: ['bot'] });
    assert.equal(tk.status, 201, JSON.stringify(tk.data));
    token = tk.data.token;
    const acc = await fetch(`${BASE}/api/account/bot/accepts`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ sizes: [9, 13], clocks: ['none', 'byo-yomi'] }),
    });
    assert.equal(acc.status, 200, await acc.text());
    const said = await api('POST', `/api/games/${game}/chat`, { text: 'MALKOVICH: thinking of D4', channel: 'spectators' }, token);
    assert.equal(said.status, 201, JSON.stringify(said.data));
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('the lobby lists the bot, marked BOT, and its Challenge button answers', async (t) => {
    const P = await person(browser, 'challenger');
    await shots(t, [P.page], async () => {
      const p = P.page;
      await signUp(p, `chal${stamp}`, 'challenger secret pass');
      const row = p.locator(`#bots li[data-bot="${BOT}"]`);
      await row.waitFor();
      assert.equal(await row.locator('[data-bot-mark]').textContent(), 'BOT');
      assert.match(await row.textContent(), /9×9, 13×13/);
      assert.equal(await row.locator('[data-bot-online]').getAttribute('data-bot-online'), '0');
      // The bot was seen a moment ago: the players online mark it too.
      await p.waitForSelector(`#online [data-online="${BOT}"] [data-bot-mark]`);
      // Challenge: sent, or (before the challenges exist on this server) the refusal's text.
      await row.locator(`[data-challenge="${BOT}"]`).click();
      const msg = row.locator('.bot-msg');
      await p.waitForFunction((name) => document.querySelector(`#bots li[data-bot="${name}"] .bot-msg`)?.textContent.trim().length > 0, BOT);
      const [text, code] = [await msg.textContent(), await msg.getAttribute('data-error')];
      assert.ok(text.length > 0 && (code === null || code.length > 0), `${text} ${code}`);
      assert.deepEqual(p.errors, []);
    });
  });

  test('the game page marks the bot seat and its chat line; its profile says BOT in Korean', async (t) => {
    const P = await person(browser, 'watcher');
    const K = await person(browser, 'korean', { locale: 'ko-KR', viewport: { width: 390, height: 844 }, touch: true });
    await shots(t, [P.page, K.page], async () => {
      const p = P.page;
      await p.goto(`${BASE}/g/${game}`);
      await p.waitForSelector(`.player.seat-black .who [data-player="${BOT}"]`);
      assert.equal(await p.locator('.player.seat-black .who [data-bot-mark]').textContent(), 'BOT');
      assert.equal(await p.locator('.player.seat-black .who [data-bot-mark]').getAttribute('title'), 'A bot account: a program plays it');
      await p.waitForSelector('[data-chat-text]');
      const line = p.locator('li[data-seq]', { hasText: 'MALKOVICH' });
      assert.equal(await line.locator('[data-bot-mark]').count(), 1);
      assert.deepEqual(p.errors, []);
      const k = K.page;
      await k.goto(`${BASE}/@/${BOT}`);
      await k.waitForSelector('[data-bot-mark]');
      assert.equal(await k.locator('[data-bot-mark]').first().textContent(), '봇');
      await k.goto(`${BASE}/`);
      await k.waitForSelector(`#bots li[data-bot="${BOT}"]`);
      assert.equal(await k.locator(`#bots li[data-bot="${BOT}"] [data-challenge]`).textContent(), '도전');
      assert.equal(await k.locator('#bots-h').textContent(), '봇');
      const box = await k.locator(`#bots li[data-bot="${BOT}"]`).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 390 + 1, `fits a phone: ${JSON.stringify(box)}`);
      assert.deepEqual(k.errors, []);
    });
  });
});
