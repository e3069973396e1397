// In a browser: every page works under the server's Content-Security-Policy (nothing
// inline is refused: no `securitypolicyviolation` event, no console error), and a stranger who
// opens an invite-only game without its invite link cannot take the open seat, while the link
// from the lobby's answer can.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, api } from './lib.mjs';

/** Counts the policy's refusals on every page of this context, from the first script on. */
async function watchViolations(context) {
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
  });
}

describe('content security policy and invite-only games', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('every page runs under the Content-Security-Policy with nothing refused', async (t) => {
    const P = await person(browser, 'csp');
    await watchViolations(P.context);
    const p = P.page;
    const go = await api('POST', '/api/games', { game: 'go', size: 9, rules: 'chinese' });
    const wall = await api('POST', '/api/games', { game: 'wallgo' });
    await shots(t, [p], async () => {
      const resp = await p.goto(`${BASE}/`);
      const csp = resp.headers()['content-security-policy'];
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.equal(resp.headers()['x-frame-options'], 'DENY');
      await p.waitForSelector('body[data-account]');
      for (const url of [`/g/${go.data.id}`, `${go.data.seats.black.url}`, `/g/${wall.data.id}`, `${wall.data.seats.A.url}`, '/login', '/me', '/tournaments', '/no/such/page']) {
        // A seat link's page replaces itself (without its token) once it has taken the seat;
        // when that lands during the next visit, Chromium interrupts the visit: go again.
        for (let i = 0; ; i++) {
          try {
            await p.goto(`${BASE}${url}`);
            break;
          } catch (e) {
            if (i >= 3 || !/interrupted by another navigation/.test(String(e))) throw e;
            await p.waitForLoadState('load').catch(() => {});
          }
        }
        await p.waitForLoadState('networkidle');
        // A page may move on by itself (a seat link reloads without its token): read the
        // count of the page that stays. Chromium also logs each refusal as a console error,
        // which `p.errors` keeps across navigations.
        let v = null;
        for (let i = 0; v === null && i < 20; i++) {
          v = await p.evaluate(() => window.__csp).catch(() => null);
          if (v === null) await p.waitForTimeout(100);
        }
        assert.deepEqual(v, [], `${url}: refused by the policy`);
      }
      // A Wall Go board with regions shaded (the style the board sets through the CSSOM).
      await p.goto(`${BASE}/g/${wall.data.id}`);
      await p.waitForSelector('svg');
      assert.deepEqual(await p.evaluate(() => window.__csp), []);
      assert.deepEqual(p.errors, [], 'page errors');
      // The policy holds: a script injected into the page (as an XSS would) does not run.
      const ran = await p.evaluate(async () => {
        const el = document.createElement('script');
        el.textContent = 'window.__ran = true';
        document.body.append(el);
        const img = document.createElement('div');
        img.innerHTML = '<img src=x onerror="window.__ran = true">';
        document.body.append(img);
        await new Promise((r) => setTimeout(r, 200));
        return { ran: window.__ran === true, refused: window.__csp.length };
      });
      assert.deepEqual(ran, { ran: false, refused: 2 }, 'an injected script is refused');
    });
  });

  test('an invite-only game: the id alone takes no seat, the invite link does', async (t) => {
    const H = await person(browser, 'host39');
    const S = await person(browser, 'stranger39');
    const F = await person(browser, 'friend39');
    await shots(t, [H.page, S.page, F.page], async () => {
      await H.page.goto(`${BASE}/`);
      await H.page.waitForSelector('body[data-account]');
      await H.page.selectOption('select[name=seat-black]', 'me');
      await H.page.selectOption('select[name=seat-white]', 'friend');
      await Promise.all([H.page.waitForURL(/\/g\/[^/#]+/), H.page.click('#create-btn')]);
      const id = new URL(H.page.url()).pathname.split('/')[2];
      const link = await H.page.inputValue('input[data-invite=white]');
      assert.match(link, new RegExp(`^${BASE}/g/${id}#invite=[0-9a-f]{64}$`));
      // The stranger read the id somewhere: "Join as yourself" is refused, naming the rule.
      await S.page.goto(`${BASE}/g/${id}`);
      await S.page.waitForSelector('[data-sit=white]');
      await S.page.click('[data-sit=white]');
      await S.page.waitForSelector('text=This game is invite-only');
      assert.equal((await api('GET', `/api/games/${id}`)).data.seats.white.joined, false);
      // The friend opens the link: the secret leaves the address bar and takes the seat.
      await F.page.goto(link);
      await F.page.waitForSelector('[data-sit=white]');
      assert.equal(new URL(F.page.url()).hash, '', 'the secret is not left in the address bar');
      await F.page.click('[data-sit=white]');
      await F.page.waitForSelector('body[data-role=player]');
      await H.page.waitForSelector('.player.seat-white .kind');
      assert.equal((await api('GET', `/api/games/${id}`)).data.seats.white.joined, true);
    });
  });
});
