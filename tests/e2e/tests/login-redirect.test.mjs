// The login page's `next`: after a real sign-in the browser goes to a page of this site only.
// Chromium drops tabs and newlines from a URL and reads `\` as `/`, so `next` values that start
// with one `/` can still name another site; each of them lands on the lobby instead. Requests to
// the other site are answered here (never sent out), so a redirect that escapes shows as a page
// on evil.example rather than as a failed lookup.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const NAME = `wanderer${stamp}`;
const PASSWORD = 'wanderer secret pass';

/** Signs in on /login?next=`next` (as a person would) and returns the URL the page ends on. */
async function signInWith(page, next) {
  await page.goto(`${BASE}/login?next=${next}`);
  await page.waitForSelector('#auth-btn');
  await page.fill('input[name=username]', NAME);
  await page.fill('input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith('/login')), page.click('#auth-btn')]);
  await page.waitForLoadState('load');
  return new URL(page.url());
}

describe('login redirect', () => {
  let browser;
  before(async () => {
    const r = await fetch(`${BASE}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: NAME, password: PASSWORD }),
    });
    assert.equal(r.status, 201, await r.text());
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('next= that the browser reads as another site lands on our own lobby', async (t) => {
    const P = await person(browser, 'wanderer');
    const escaped = [];
    await P.context.route((url) => url.hostname === 'evil.example', (route) => {
      escaped.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>phished</title>' });
    });
    await shots(t, [P.page], async () => {
      for (const next of ['/%09/evil.example/phish', '/%5Cevil.example/phish', '/%0a/evil.example/x']) {
        const u = await signInWith(P.page, next);
        assert.equal(u.origin, BASE, `next=${next} left the site: ${u.href}`);
        assert.equal(u.pathname, '/', `next=${next} goes to the lobby`);
      }
      assert.deepEqual(escaped, [], 'nothing was asked of the other site');
      // A page of our own is still where sign-in leads (its query kept).
      const own = await signInWith(P.page, encodeURIComponent('/me?tab=games'));
      assert.equal(own.origin, BASE);
      assert.equal(own.pathname + own.search, '/me?tab=games');
      assert.deepEqual(P.page.errors, []);
    });
    await P.context.close();
  });
});
