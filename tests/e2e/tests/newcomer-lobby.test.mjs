// What a newcomer trips over in the lobby and on the game page: a guest's "Play now" works on the
// first press (unrated, the "Rated" box hidden with a line saying why) and the lobby's errors are
// in the page's language (a board size, a turn time, a komi out of range name the field and its
// range); two guests read apart, by one name on the seats, in the chat and in
// the SGF; a rated game resigned before two moves says "aborted — not rated"; a komi of 1000 is
// refused by the form and the API with the field and its range, and nothing is created.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots, api, resign, signUp } from './lib.mjs';

const stamp = Date.now().toString(36).slice(-5);
const PASSWORD = 'correct horse battery staple';

/** Every Latin word of a text (names and coordinates aside, Korean text has none). */
const latinWords = (s) => (s.match(/[A-Za-z]{3,}/g) || []).filter((w) => !/^(baduk|SGF)$/.test(w));

describe('a newcomer in the lobby', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  for (const locale of ['en-US', 'ko-KR']) {
    test(`a guest's Play now works on the first press, unrated, with a line saying why (${locale})`, async (t) => {
      const { page: p } = await person(browser, `guest-${locale}`, { locale });
      await shots(t, [p], async () => {
        await p.goto(`${BASE}/`);
        await p.waitForSelector('body[data-account=guest]');
        // The box is unticked and hidden; the line says guests play unrated games.
        await p.waitForSelector('#seek-rated-note:not([hidden])');
        assert.equal(await p.isVisible('#seek input[name=seek-rated]'), false, 'no Rated box for a guest');
        assert.equal(await p.isChecked('#seek input[name=seek-rated]'), false);
        const note = await p.textContent('#seek-rated-note');
        if (locale === 'ko-KR') {
          assert.match(note, /손님/);
          assert.deepEqual(latinWords(note), [], note);
        } else assert.match(note, /Guests play unrated games/);
        assert.equal(await p.isVisible('#create input[name=rated]'), false, 'no Rated box in the New game form either');
        // 13×13: nobody else seeks it; the first press seeks, with no error.
        await p.selectOption('#seek select[name=seek-kind]', 'go:13');
        await p.click('#seek-btn');
        await p.waitForSelector('body[data-seek=searching]');
        assert.equal((await p.textContent('#seek-error')).trim(), '', 'no error on the first press');
        await p.click('#seek-cancel');
        await p.waitForFunction(() => document.body.dataset.seek === '');
        // Were a rated seek sent all the same, the server's refusal reads in the page's language.
        await p.evaluate(() => {
          document.querySelector('#seek input[name=seek-rated]').checked = true;
        });
        await p.click('#seek-btn');
        await p.waitForFunction(() => document.querySelector('#seek-error').textContent.trim() !== '');
        const err = await p.textContent('#seek-error');
        assert.doesNotMatch(err, /rated: guests play unrated games; sign up/, 'not the server’s raw sentence');
        if (locale === 'ko-KR') {
          assert.match(err, /손님/);
          assert.deepEqual(latinWords(err), [], err);
        } else assert.match(err, /^Guests play unrated games/);
      });
    });

    test(`a komi of 1000 is refused by the form with the field and its range, and nothing is created (${locale})`, async (t) => {
      const { page: p } = await person(browser, `komi-${locale}`, { locale });
      await shots(t, [p], async () => {
        await p.goto(`${BASE}/`);
        await p.waitForSelector('body[data-account]');
        const created = [];
        p.on('request', (r) => {
          if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/games') created.push(r.url());
        });
        await p.selectOption('select[name=size]', '9');
        await p.selectOption('select[name=seat-white]', 'open');
        await p.fill('input[name=komi]', '1000');
        await p.click('#create-btn');
        await p.waitForFunction(() => document.querySelector('#form-error').textContent.trim() !== '');
        const err = await p.textContent('#form-error');
        assert.match(err, /-150/);
        assert.match(err, /150/);
        if (locale === 'ko-KR') {
          assert.match(err, /^덤 1000/);
          assert.deepEqual(latinWords(err), [], err);
        } else assert.match(err, /^Komi 1000: a game’s komi is from -150 to 150/);
        assert.equal(await p.textContent('#created'), '', 'no game created');
        assert.equal(new URL(p.url()).pathname, '/', 'still in the lobby');
        assert.deepEqual(created, [], 'nothing was sent');
        // Within the range it is created.
        await p.fill('input[name=komi]', '-150');
        await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#create-btn')]);
        assert.equal(created.length, 1);
      });
    });
  }

  for (const locale of ['en-US', 'ko-KR']) {
    test(`a board size or a turn time out of range is refused naming the field and its range, nothing created (${locale})`, async (t) => {
      const { page: p } = await person(browser, `fields-${locale}`, { locale });
      await shots(t, [p], async () => {
        await p.goto(`${BASE}/`);
        await p.waitForSelector('body[data-account]');
        // This person's open games only: the server is shared, and another file's seek may
        // become a game (the bot offered after 3 s) while this test runs.
        const me = await p.evaluate(() => fetch('/api/me').then((r) => r.json()).then((v) => v.account.name));
        const mine = async () => (await api('GET', '/api/games?status=open&limit=200')).data.games
          .filter((g) => Object.values(g.seats || {}).some((s) => s.player && s.player.name === me)).length;
        const before = await mine();
        const refusal = async () => {
          await p.waitForFunction(() => document.querySelector('#form-error').textContent.trim() !== '');
          const err = await p.textContent('#form-error');
          await p.evaluate(() => {
            document.querySelector('#form-error').textContent = '';
          });
          return err;
        };
        await p.selectOption('select[name=size]', 'custom');
        await p.fill('input[name=cols]', '30');
        await p.fill('input[name=rows]', '9');
        await p.selectOption('select[name=seat-white]', 'open');
        await p.click('#create-btn');
        const size = await refusal();
        await p.click('#tab-wallgo');
        await p.fill('input[name=turn_seconds]', '5000');
        await p.click('#create-btn');
        const turn = await refusal();
        if (locale === 'ko-KR') {
          assert.match(size, /^판 크기 30×9: 한 변은 2부터 25까지/);
          assert.match(turn, /^한 수 시간 5000초: .*1부터 3600초까지/);
          for (const e of [size, turn]) assert.deepEqual(latinWords(e), [], e);
        } else {
          assert.match(size, /^Board size 30×9: each side is from 2 to 25/);
          assert.match(turn, /^Seconds per turn 5000: 0 \(no limit\) or 1 to 3600/);
        }
        assert.equal(new URL(p.url()).pathname, '/');
        assert.equal(await mine(), before, 'nothing created');
      });
    });
  }

  test('the review card’s refusal reads in Korean on the Korean lobby', async (t) => {
    const { page: p } = await person(browser, 'review-ko', { locale: 'ko-KR' });
    await shots(t, [p], async () => {
      await p.goto(`${BASE}/`);
      await p.waitForSelector('#review-card');
      await p.fill('#review-text', 'hello, this is no record');
      await p.click('#review-open');
      await p.waitForFunction(() => document.querySelector('#review-error').textContent.trim() !== '');
      const err = await p.textContent('#review-error');
      assert.match(err, /SGF 파일/);
      // Only the record's own first line, "wallgo 1", stays as written.
      assert.deepEqual(latinWords(err), ['wallgo'], err);
    });
  });

  test('the API refuses a komi out of ±150 (the field, directly or in the rules string, and in a seek) with its code and range', async () => {
    for (const body of [
      { game: 'go', size: 9, komi: 1000 },
      { game: 'go', size: 9, komi: -150.5 },
      { game: 'go', size: 9, rules: 'japanese,komi=1000' },
    ]) {
      const r = await api('POST', '/api/games', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.data.code, 'settings.komi', JSON.stringify(r.data));
      assert.equal(r.data.args.field, 'komi');
      assert.equal(r.data.args.min, -150);
      assert.equal(r.data.args.max, 150);
      assert.match(r.data.error, /komi .*-150 to 150/);
    }
    assert.equal((await api('POST', '/api/games', { game: 'go', size: 9, komi: 150 })).status, 201);
  });

  test('two guests read apart: one name each on the seats, in the chat and in the SGF', async (t) => {
    const A = await person(browser, 'guest-a');
    const B = await person(browser, 'guest-b', { locale: 'ko-KR' });
    await shots(t, [A.page, B.page], async () => {
      const p = A.page;
      await p.goto(`${BASE}/`);
      await p.waitForSelector('body[data-account=guest]');
      const nameA = await p.getAttribute('#account', 'data-name');
      await p.selectOption('select[name=size]', '9');
      await p.selectOption('select[name=seat-black]', 'me');
      await p.selectOption('select[name=seat-white]', 'friend');
      await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#create-btn')]);
      const id = new URL(p.url()).pathname.split('/')[2];
      await p.waitForSelector('body[data-role=player]');
      const link = await p.inputValue('input[data-invite=white]');
      await B.page.goto(link);
      await B.page.waitForSelector('body[data-account=guest]');
      const nameB = await B.page.getAttribute('#account', 'data-name');
      await B.page.click('[data-sit=white]');
      await B.page.waitForSelector('body[data-role=player]');
      assert.notEqual(nameA, nameB);
      // The seats, on both pages (English and Korean): each guest's own name, not "Guest".
      for (const page of [A.page, B.page]) {
        await page.waitForSelector(`.who[data-player-seat=white] [data-player="${nameB}"]`);
        const seats = await page.$$eval('.who[data-player-seat]', (els) => Object.fromEntries(els.map((e) => [e.dataset.playerSeat, e.querySelector('[data-player]').textContent])));
        assert.equal(seats.black, nameA, JSON.stringify(seats));
        assert.equal(seats.white, nameB, JSON.stringify(seats));
      }
      // The chat names each the same way.
      await A.page.waitForSelector('#chat[data-role=player][data-channel=players]');
      await A.page.fill('#chat input[name=chat]', `hello ${stamp}`);
      await A.page.press('#chat input[name=chat]', 'Enter');
      await B.page.waitForSelector('#chat[data-role=player]');
      await B.page.click('#chat [role=tab][data-channel=players]');
      await B.page.waitForSelector('#chat[data-role=player][data-channel=players]');
      await B.page.fill('#chat input[name=chat]', `안녕 ${stamp}`);
      await B.page.press('#chat input[name=chat]', 'Enter');
      for (const page of [A.page, B.page]) {
        await page.waitForFunction((n) => document.querySelectorAll('#chat li[data-seq] .nm').length >= n, 2);
        const names = await page.$$eval('#chat li[data-seq]', (lis) => lis.map((li) => [li.querySelector('[data-chat-text]').textContent, li.querySelector('.nm').textContent]));
        assert.deepEqual(Object.fromEntries(names), { [`hello ${stamp}`]: nameA, [`안녕 ${stamp}`]: nameB });
      }
      // The SGF: PB and PW are the same names.
      const sgf = await fetch(`${BASE}/api/games/${id}/record`).then((r) => r.text());
      assert.match(sgf, new RegExp(`PB\\[${nameA}\\]`));
      assert.match(sgf, new RegExp(`PW\\[${nameB}\\]`));
    });
  });

  for (const locale of ['en-US', 'ko-KR']) {
    test(`a rated game resigned before two moves reads "aborted — not rated" (${locale})`, async (t) => {
      const { page: p } = await person(browser, `rated-${locale}`, { locale });
      await shots(t, [p], async () => {
        const name = `nc${locale.slice(0, 2)}${stamp}`;
        await signUp(p, name, PASSWORD);
        // Rated, against the bot; resigned at once.
        await p.selectOption('select[name=size]', '9');
        await p.selectOption('select[name=seat-black]', 'me');
        await p.selectOption('select[name=seat-white]', 'bot');
        await p.check('#create input[name=rated]');
        await Promise.all([p.waitForURL(/\/g\/[^/#]+/), p.click('#create-btn')]);
        const id = new URL(p.url()).pathname.split('/')[2];
        await p.waitForSelector('body[data-role=player]');
        const info = await p.textContent('#info');
        assert.match(info, locale === 'ko-KR' ? /기력 반영/ : /Rated/);
        await resign(p);
        const want = locale === 'ko-KR' ? '무효 — 기력 미반영' : 'aborted — not rated';
        await p.waitForFunction((w) => document.querySelector('#info').textContent.includes(w), want);
        const st = (await api('GET', `/api/games/${id}`)).data;
        assert.equal(st.rated, true);
        assert.equal(st.aborted, true);
        // The lobby's list of finished games says so too.
        await p.goto(`${BASE}/`);
        await p.click('#list-tabs [data-status=finished]');
        await p.waitForSelector(`#games li[data-game="${id}"]`);
        assert.match(await p.textContent(`#games li[data-game="${id}"] .gmeta`), new RegExp(want));
      });
    });
  }
});
