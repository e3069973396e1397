// Reviewing together: a record with variations, comments and every markup kind shown whole; an
// owner's room followed live by a watcher (position, a new variation, its markup, chat); the
// watcher explores alone and comes back with one button; control given and taken back; the
// room in the lobby; the export read back by Sabaki's parser with the edits; a finished game's
// "Review together" for both players.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sgf from '@sabaki/sgf';
import { BASE, launch, person, shots, api } from './lib.mjs';

/** 19×19: three levels of variations, comments, and TR SQ CR MA LB AR LN on the first move. */
const RECORD =
  '(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[6.5]PB[Kim]PW[Lee]C[the root]' +
  ';B[pd]C[first move]TR[dd]SQ[dp]CR[pp]MA[jj]LB[qq:A]AR[aa:bb]LN[cc:dd]' +
  ';W[dp](;B[pp];W[dd](;B[fq]C[deep];W[fo](;B[dn])(;B[ep]))(;B[cf]))(;B[dd];W[pp]))';

const COLS = 'ABCDEFGHJKLMNOPQRST';

/** Where a point of the 19×19 goban is on the screen. */
async function at(page, name) {
  return page.evaluate(
    ({ name, COLS }) => {
      const svg = document.querySelector('svg.goban');
      const pt = svg.createSVGPoint();
      pt.x = COLS.indexOf(name[0]);
      pt.y = 19 - parseInt(name.slice(1), 10);
      const p = pt.matrixTransform(svg.getScreenCTM());
      return { x: p.x, y: p.y };
    },
    { name, COLS },
  );
}

async function click(page, name) {
  // The board in sight first (a click on the panel below may have scrolled it away).
  await page.$eval('svg.goban', (svg) => svg.scrollIntoView({ block: 'nearest' }));
  const p = await at(page, name);
  await page.mouse.click(p.x, p.y);
}

const nodeOf = (page) => page.evaluate(() => Number(document.body.dataset.node));
const treeVersion = (page) => page.evaluate(() => Number(document.body.dataset.treeVersion));

/** Waits until the page shows node `n`. */
async function onNode(page, n) {
  await page.waitForFunction((n) => Number(document.body.dataset.node) === n, n);
}

async function me(page) {
  return page.evaluate(async () => (await (await fetch('/api/me')).json()).account.name);
}

/** A call of the API from inside a page: its cookie and CSRF value (the page's account). */
async function inPage(page, method, path, body) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const me = await (await fetch('/api/me')).json();
      const r = await fetch(path, { method, headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf }, body: body ? JSON.stringify(body) : undefined });
      return { status: r.status, data: await r.json().catch(() => null) };
    },
    { method, path, body },
  );
}

/** A 9×9 unrated game between the accounts of two pages (black creates it, white joins), both
 * pages on it; its id. */
async function seated(black, white) {
  await black.goto(`${BASE}/`);
  await white.goto(`${BASE}/`);
  await black.waitForSelector('body[data-account]:not([data-account="none"])');
  await white.waitForSelector('body[data-account]:not([data-account="none"])');
  const g = await inPage(black, 'POST', '/api/games', { game: 'go', size: 9, rules: 'chinese', seats: { black: { kind: 'human' }, white: { kind: 'open' } } });
  assert.equal(g.status, 201, JSON.stringify(g.data));
  const j = await inPage(white, 'POST', `/api/games/${g.data.id}/join`, { seat: 'white' });
  assert.equal(j.status, 200, JSON.stringify(j.data));
  await black.goto(`${BASE}/g/${g.data.id}`);
  await white.goto(`${BASE}/g/${g.data.id}`);
  await black.waitForSelector('body[data-ws="open"]');
  await white.waitForSelector('body[data-ws="open"]');
  return g.data.id;
}

describe('review together', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('the whole tree: variations, branches named by their first move, markup and comments', async (t) => {
    const r = await fetch(`${BASE}/api/reviews`, { method: 'POST', body: RECORD });
    assert.equal(r.status, 201);
    const { url } = await r.json();
    const { page } = await person(browser, 'tree-reader');
    await shots(t, [page], async () => {
      await page.goto(`${BASE}${url}`);
      await page.waitForSelector('body[data-ready="1"]');
      await page.keyboard.press('Home');
      await page.keyboard.press('ArrowRight');
      assert.match(await page.textContent('#comment'), /first move/);
      for (const m of ['TR:D16', 'SQ:D4', 'CR:Q4', 'MA:K10', 'LB:R3', 'AR:A19:B18', 'LN:C17:D16']) await page.waitForSelector(`svg.goban [data-mark="${m}"]`);
      // Move 2 branches: both lines named by their first move, lettered on the board.
      await page.keyboard.press('ArrowRight');
      assert.deepEqual(await page.$$eval('#branches [data-branch]', (bs) => bs.map((b) => b.textContent)), ['A: 3 ● Q4', 'B: 3 ● D16']);
      await page.waitForSelector('svg.goban g.next-move[data-next="D16"]');
      await page.click('#branches [data-branch]:nth-of-type(2)');
      assert.match(await page.textContent('#rv-pos'), /variation/);
      // The graph holds every node: the start and 11 moves.
      assert.equal(await page.$$eval('#tree-graph [data-node]', (n) => n.length), 12);
      // ↑ ↓ go between the branches.
      await page.keyboard.press('ArrowUp');
      assert.match(await page.textContent('#rv-pos'), /Move 3 \/ /);
      await page.click('#lang');
      assert.match(await page.textContent('#tree-title'), /변화도/);
      await page.click('#lang');
      assert.deepEqual(page.errors, []);
    });
  });

  test('an owner and a watcher: live position, a variation with markup, exploring alone, control, chat, the lobby, the export', async (t) => {
    const { page: owner } = await person(browser, 'room-owner');
    const { page: watcher } = await person(browser, 'room-watcher', { viewport: { width: 390, height: 844 }, touch: false });
    await shots(t, [owner, watcher], async () => {
      await owner.goto(`${BASE}/`);
      await owner.fill('#review-text', RECORD);
      await owner.click('#review-open');
      await owner.waitForURL(/\/r\/[a-z0-9]+$/i);
      await owner.waitForSelector('body[data-ready="1"]');
      await owner.waitForSelector('#room-state[data-state="control"]');
      const id = owner.url().split('/').pop();
      // Review together: the owner opens the room to everyone and has its link.
      await owner.click('#review-together');
      await owner.waitForSelector('#room-share');
      const link = await owner.inputValue('#room-share input.link');
      assert.match(link, new RegExp(`/r/${id}$`));

      await watcher.goto(link);
      await watcher.waitForSelector('body[data-ready="1"]');
      await watcher.waitForSelector('#room-state[data-state="follow"]');
      const watcherName = await me(watcher);
      await owner.waitForFunction(() => Number(document.querySelector('#room-watchers')?.dataset.n) >= 2);

      // The owner steps: the watcher follows.
      await owner.keyboard.press('Home');
      await owner.keyboard.press('ArrowRight');
      await owner.keyboard.press('ArrowRight');
      const two = await nodeOf(owner);
      await onNode(watcher, two);

      // A new variation from move 2 (K10), then a triangle and a label on it.
      const v0 = await treeVersion(owner);
      await click(owner, 'K10');
      await owner.waitForFunction((v) => Number(document.body.dataset.treeVersion) > v, v0);
      const branch = await nodeOf(owner);
      assert.notEqual(branch, two);
      await onNode(watcher, branch);
      await owner.click('[data-tool="TR"]');
      await click(owner, 'C3');
      await owner.click('[data-tool="LB"]');
      await click(owner, 'E5');
      await owner.click('[data-tool="AR"]');
      await click(owner, 'C3');
      await click(owner, 'E5');
      await watcher.waitForSelector('svg.goban [data-mark="TR:C3"]');
      await watcher.waitForSelector('svg.goban [data-mark="LB:E5"]');
      await watcher.waitForSelector('svg.goban [data-mark="AR:C3:E5"]');
      assert.match(await watcher.textContent('#rv-pos'), /variation/);
      // A comment on it.
      await owner.click('[data-tool="play"]');
      await owner.fill('#comment-text', 'why not the centre?');
      await owner.click('#comment-save');
      await watcher.waitForFunction(() => /why not the centre\?/.test(document.querySelector('#comment').textContent));

      // The watcher explores alone: a move of its own, unseen by the owner; then back.
      await watcher.click('#explore-alone');
      await watcher.waitForSelector('#room-state[data-state="alone"]');
      await click(watcher, 'Q10');
      await watcher.waitForFunction((b) => Number(document.body.dataset.node) !== b, branch);
      const before = await owner.$$eval('#tree-graph [data-node]', (n) => n.length);
      await owner.keyboard.press('ArrowLeft');
      assert.equal(await nodeOf(owner), two);
      assert.equal(await owner.$$eval('#tree-graph [data-node]', (n) => n.length), before, "the watcher's move stays on the watcher's copy");
      assert.notEqual(await nodeOf(watcher), two, 'exploring alone, the watcher does not follow');
      await watcher.click('#back-shared');
      await onNode(watcher, two);
      await watcher.waitForSelector('#room-state[data-state="follow"]');

      // Chat both ways.
      await watcher.fill('#room-chat-text', 'hello from the watcher');
      await watcher.click('#room-chat-send');
      await owner.waitForFunction(() => /hello from the watcher/.test(document.querySelector('#room-chat')?.textContent || ''));

      // Control given to the watcher: its move shows on the owner's board; then taken back.
      await owner.fill('#give-to', watcherName);
      await owner.click('#give-control');
      await watcher.waitForSelector('#room-state[data-state="control"]');
      await owner.waitForSelector('#room-state[data-state="follow"]');
      const v1 = await treeVersion(owner);
      await click(watcher, 'R14');
      await owner.waitForFunction((v) => Number(document.body.dataset.treeVersion) > v, v1);
      await owner.waitForSelector('svg.goban [data-last="R14"]');
      // A watcher without control is refused by the server (403) and nothing changes.
      const refused = await owner.evaluate(async (rid) => {
        const me = await (await fetch('/api/me')).json();
        const r = await fetch(`/api/reviews/${rid}/ops`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf }, body: JSON.stringify({ op: { op: 'comment', node: 0, text: 'x' } }) });
        return { status: r.status, body: await r.json() };
      }, id);
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'review.no_control');
      await owner.click('#take-control');
      await owner.waitForSelector('#room-state[data-state="control"]');
      await watcher.waitForSelector('#room-state[data-state="follow"]');

      // On a phone's width the watcher's page stays inside the screen; Korean words.
      assert.ok((await watcher.evaluate(() => document.documentElement.scrollWidth)) <= 390);
      await watcher.click('#lang');
      assert.match(await watcher.textContent('#room-state'), /따라 보는 중/);
      await watcher.click('#lang');

      // The lobby lists the public room.
      const { page: lobby } = await person(browser, 'room-lobby');
      await lobby.goto(`${BASE}/`);
      await lobby.waitForSelector(`#review-rooms li[data-room="${id}"]`);
      await lobby.context().close();

      // The export holds the original tree plus the edits, as Sabaki's parser reads it.
      const text = await (await fetch(`${BASE}/api/reviews/${id}/record`)).text();
      const [root] = sgf.parse(text);
      assert.deepEqual(root.data.C, ['the root']);
      const first = root.children[0];
      assert.deepEqual(first.data.TR, ['dd']);
      assert.deepEqual(first.data.LB, ['qq:A']);
      const second = first.children[0];
      assert.deepEqual(second.data.W, ['dp']);
      const kids = second.children.map((c) => c.data.B?.[0]);
      assert.deepEqual(kids, ['pp', 'dd', 'jj', 'qf'], "the record's two lines, the owner's and the watcher's with control");
      const mine = second.children[2];
      assert.deepEqual(mine.data.C, ['why not the centre?']);
      assert.deepEqual(mine.data.TR, ['cq']);
      assert.deepEqual(mine.data.LB, ['eo:A']);
      assert.deepEqual(mine.data.AR, ['cq:eo']);
      assert.deepEqual(owner.errors, []);
      assert.deepEqual(watcher.errors, []);
    });
  });

  test('a finished game: "Review together" for both players, one room', async (t) => {
    const { page: black } = await person(browser, 'finished-black');
    const { page: white } = await person(browser, 'finished-white');
    await shots(t, [black, white], async () => {
      const id = await seated(black, white);
      for (const [p, mv] of [[black, 'E5'], [white, 'C3'], [black, 'resign']]) assert.equal((await inPage(p, 'POST', `/api/games/${id}/actions`, { action: mv })).status, 200);
      await black.waitForSelector('#game-review-together');
      await black.click('#game-review-together');
      await black.waitForURL(/\/r\/[a-z0-9]+$/i);
      const room = black.url().split('/').pop();
      // White is offered the same room on the game's socket.
      await white.waitForSelector('#join-review');
      assert.match(await white.getAttribute('#join-review', 'href'), new RegExp(`/r/${room}$`));
      await white.click('#join-review');
      await white.waitForSelector('body[data-ready="1"]');
      await white.waitForFunction(() => /Move 2 \/ 2/.test(document.querySelector('#rv-pos').textContent));
      await white.waitForSelector('#room-state[data-state="follow"]');
      assert.deepEqual(black.errors, []);
      assert.deepEqual(white.errors, []);
    });
  });

  test('review mode in an unrated game: offered, accepted, one room for both, then resumed', async (t) => {
    const { page: black } = await person(browser, 'mode-black');
    const { page: white } = await person(browser, 'mode-white');
    await shots(t, [black, white], async () => {
      const id = await seated(black, white);
      for (const [p, mv] of [[black, 'E5'], [white, 'C3']]) assert.equal((await inPage(p, 'POST', `/api/games/${id}/actions`, { action: mv })).status, 200);
      const st = await api('GET', `/api/games/${id}`);
      if (!st.data.review_mode) {
        t.skip('this server has no review mode in its game state');
        return;
      }
      await black.click('#review-mode');
      await black.waitForSelector('#review-offered');
      await white.click('#review-accept');
      await black.waitForSelector('#review-paused');
      await white.waitForSelector('#review-paused');
      await black.click('#review-open-room');
      await black.waitForURL(/\/r\/[a-z0-9]+$/i);
      const room = black.url().split('/').pop();
      await white.click('#review-open-room');
      await white.waitForURL(new RegExp(`/r/${room}$`));
      await white.waitForSelector('body[data-ready="1"]');
      assert.match(await white.textContent('#rv-pos'), /Move 2 \/ 2/);
      await white.goto(`${BASE}/g/${id}`);
      await white.click('#review-resume');
      await white.waitForFunction(() => !document.querySelector('#review-paused'));
      assert.deepEqual(black.errors, []);
      assert.deepEqual(white.errors, []);
    });
  });
});
