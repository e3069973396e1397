// Email in the browser on a server without SMTP (the e2e server has no --smtp): the sign-in form's
// "Forgot password?" leads to a page that says email is off instead of offering a form that
// would send nothing, the account page says so too, and a reset or unsubscribe link that is
// guessed is refused in the page's language.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const NAME = `mailer${stamp}`;
const PASSWORD = 'a mailer secret pass';

describe('email off, forgot password and links', () => {
  let browser;
  let P;
  before(async () => {
    const r = await fetch(`${BASE}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: NAME, password: PASSWORD }),
    });
    assert.equal(r.status, 201, await r.text());
    browser = await launch();
    P = await person(browser, 'mailer');
  });
  after(async () => {
    await browser?.close();
  });

  test('forgot password says email is off, in English and Korean', async (t) =>
    shots(t, [P.page], async () => {
      const p = P.page;
      await p.goto(`${BASE}/login`);
      await Promise.all([p.waitForURL(`${BASE}/forgot`), p.click('#forgot-link a')]);
      await p.waitForFunction(() => document.querySelector('#mail-status').textContent.length > 0);
      assert.match(await p.textContent('#mail-status'), /Email is off/);
      assert.equal(await p.isHidden('#forgot'), true, 'no form that would send nothing');
      await p.click('#lang');
      await p.waitForFunction(() => document.querySelector('#mail-status').textContent.includes('이메일'));
      assert.match(await p.textContent('#mail-h'), /비밀번호 찾기/);
      await p.click('#lang');
      assert.deepEqual(p.errors, []);
    }));

  test('the account page says email is off', async (t) =>
    shots(t, [P.page], async () => {
      const p = P.page;
      await p.goto(`${BASE}/login`);
      await p.fill('input[name=username]', NAME);
      await p.fill('input[name=password]', PASSWORD);
      await Promise.all([p.waitForURL(`${BASE}/`), p.click('#auth-btn')]);
      await p.goto(`${BASE}/me`);
      await p.waitForSelector('#mail-card:not([hidden])');
      assert.equal(await p.isVisible('#mail-off'), true);
      assert.equal(await p.isHidden('#mail-form'), true);
      assert.deepEqual(p.errors, []);
    }));

  test('a guessed reset or unsubscribe link is refused in the page’s words', async (t) =>
    shots(t, [P.page], async () => {
      const p = P.page;
      await p.goto(`${BASE}/mail/reset#${'ab'.repeat(32)}`);
      await p.fill('#reset input[name=password]', 'a brand new passphrase');
      await p.click('#reset button[type=submit]');
      await p.waitForSelector('#mail-error[data-code="mail.token"]');
      assert.match(await p.textContent('#mail-error'), /unknown, used or expired/);
      await p.goto(`${BASE}/mail/unsubscribe#${'0'.repeat(64)}`);
      await p.waitForSelector('#mail-error[data-code="mail.token"]');
      assert.deepEqual(p.errors, []);
    }));
});
