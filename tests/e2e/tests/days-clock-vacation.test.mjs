// Clocks in days and vacations in the pages: the lobby's New game makes a correspondence game
// (days a move, at most, weekends paused), its page shows "N days M h" and the clock in words;
// /me offers the time zone (prefilled from the browser's offset) and the vacation with its bank,
// on a phone and in Korean too.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, shots, signUp } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);

describe('clocks in days and vacations', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('a correspondence game from the lobby shows days and hours; /me saves the browser’s time zone and shows the vacation bank', async (t) => {
    const P = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', timezoneId: 'Asia/Seoul' });
    const p = await P.newPage();
    p.errors = [];
    p.on('pageerror', (e) => p.errors.push(String(e)));
    await shots(t, [p], async () => {
      const name = `days${stamp}`;
      await signUp(p, name, 'correct horse battery staple');
      await p.selectOption('#create select[name=size]', '9');
      await p.selectOption('#create select[name=clock]', 'correspondence');
      assert.equal(await p.isVisible('#create input[name=days]'), true);
      assert.equal(await p.isVisible('#create input[name=main]'), false);
      await p.fill('#create input[name=days]', '2');
      await p.fill('#create input[name=max_days]', '4');
      await p.check('#create input[name=pause_weekends]');
      await p.selectOption('select[name=seat-black]', 'me');
      await p.selectOption('select[name=seat-white]', 'open');
      await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#create-btn')]);
      const id = new URL(p.url()).pathname.split('/')[2];
      const st = await (await fetch(`${BASE}/api/games/${id}`)).json();
      assert.equal(st.rules_name, 'japanese,time=correspondence:2:4:weekends');
      await p.waitForSelector('[data-clock=black] .main');
      assert.match(await p.textContent('[data-clock=black] .main'), /^(1 day 2[0-3] h|2 days 0 h)$/);
      assert.match(await p.textContent('body'), /2 days a move, at most 4, weekends paused/);
      await p.goto(`${BASE}/me`);
      await p.waitForSelector('#away-card select[name=tz]');
      assert.equal(await p.inputValue('#away-card select[name=tz]'), '540', 'prefilled from the browser');
      await p.click('[data-save-tz]');
      await p.waitForSelector('#away-card [data-tz="540"]');
      assert.match(await p.textContent('#away-card [data-vacation]'), /Not on vacation · vacation left: 0 days 0 h/);
      assert.equal(await p.isDisabled('[data-vacation-toggle]'), true, 'no vacation yet: the button waits');
      await p.click('#lang');
      await p.waitForSelector('#away-card >> text=남은 휴가: 0일 0시간');
      assert.deepEqual(p.errors, []);
    });
    await P.close();
  });
});
