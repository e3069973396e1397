// Login CSRF, in the browser: a page on another site (served here from
// 127.0.0.2, another site than the server's 127.0.0.1) posts a forged `<form enctype=text/plain>`
// whose body reads as the attacker's credentials to /api/auth/login, and another to
// /api/auth/guest. Both are refused (403 auth.origin) and the victim's session is unchanged;
// the server's own login page still signs in.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { BASE, launch, person, shots } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const mallory = `mallory${stamp}`;
// A text/plain form sends `name=value`: the name carries the JSON up to the password's last
// character, the value closes it, and the `=` between them ends the password.
const PASSWORD = 'mallory secret pass=';

/** The attacker's site: one page that submits `form` as soon as it loads. */
function attackerSite(host) {
  const pages = {
    '/login': `<form method="POST" action="${BASE}/api/auth/login" enctype="text/plain">
      <input type="hidden" name='{"username":"${mallory}","password":"${PASSWORD.slice(0, -1)}' value='"}'>
      </form><script>document.forms[0].submit()</script>`,
    '/guest': `<form method="POST" action="${BASE}/api/auth/guest" enctype="text/plain">
      </form><script>document.forms[0].submit()</script>`,
  };
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>free stones</title>${pages[req.url] || ''}`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
}

/** The account the page's session is signed in as, read the way the page reads it. */
async function me(page) {
  return page.evaluate(async () => {
    const r = await fetch('/api/me', { credentials: 'same-origin' });
    return r.ok ? (await r.json()).account.name : null;
  });
}

describe('login CSRF', () => {
  let browser;
  let site;
  let siteURL;
  before(async () => {
    // The attacker's account, made by a plain client (no Origin: the API as scripts use it).
    const r = await fetch(`${BASE}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: mallory, password: PASSWORD }),
    });
    assert.equal(r.status, 201, await r.text());
    site = await attackerSite('127.0.0.2');
    siteURL = `http://127.0.0.2:${site.address().port}`;
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    site?.close();
  });

  test('a forged cross-site form does not sign the victim in, nor replace their session', async (t) => {
    const V = await person(browser, 'victim');
    await shots(t, [V.page], async () => {
      await V.page.goto(`${BASE}/`);
      await V.page.waitForSelector('body[data-account]');
      const victim = await me(V.page);
      assert.ok(victim && victim.startsWith('guest-'), `the victim has a guest session: ${victim}`);
      for (const [path, route] of [
        ['/login', '/api/auth/login'],
        ['/guest', '/api/auth/guest'],
      ]) {
        const answered = V.page.waitForResponse(`${BASE}${route}`);
        await V.page.goto(`${siteURL}${path}`);
        const res = await answered;
        const req = res.request();
        assert.equal((await req.headerValue('origin')) || '', siteURL, 'the browser said where it came from');
        assert.equal(res.status(), 403, `${route}: ${await res.text()}`);
        assert.equal((await res.json()).code, 'auth.origin');
        assert.equal(await res.headerValue('set-cookie'), null, 'no session made');
        await V.page.goto(`${BASE}/`);
        await V.page.waitForSelector('body[data-account]');
        assert.equal(await me(V.page), victim, `${route}: /api/me unchanged`);
      }
      // The server's own login page still signs in (same origin, JSON).
      await V.page.goto(`${BASE}/login`);
      await V.page.waitForSelector('body[data-account]');
      await V.page.fill('input[name=username]', mallory);
      await V.page.fill('input[name=password]', PASSWORD);
      await Promise.all([V.page.waitForURL(`${BASE}/`), V.page.click('#auth-btn')]);
      await V.page.waitForSelector(`#account [data-me="${mallory}"]`);
      assert.equal(await me(V.page), mallory);
      assert.deepEqual(V.page.errors, []);
    });
    await V.context.close();
  });
});
