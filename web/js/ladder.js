// The ladder page (/ladders, /ladders/KIND; docs/api.md, "Ladders"): a tab per ladder with its
// size; the ladder's order with each player's place, rating, last game and open game; Join and
// Leave; a Challenge button on each player within reach above (disabled with the reason while
// either is playing or the two are in their cooldown), which opens the game; the open games. It
// follows the lobby socket's `ladder` message (and reads again every 30 s).

import './tournament-strings.js';
import './ladder-strings.js';
import { call, account, onAccount, lobbySocket } from './api.js';
import { initAccount, repaintAccount, playerLink } from './account.js';
import { t, applyStatic } from './i18n.js';
import { h, put, initChrome, notFoundView } from './ui.js';
import { when, errorWords } from './tournaments.js';

const KINDS = ['go9', 'go13', 'go19', 'wallgo'];
const $ = (s) => document.querySelector(s);
const kind = decodeURIComponent(location.pathname.replace(/^\/ladders\/?/, '').split('/')[0] || 'go9');
const base = `/api/ladders/${encodeURIComponent(kind)}`;
let lad = null;
let counts = {};
let busy = false;

const me = () => {
  const a = account();
  return a && !a.guest && !a.bot ? a.name : null;
};

function paintTabs() {
  put(
    $('#kinds'),
    KINDS.map((k) =>
      h(
        'a',
        { href: `/ladders/${k}`, class: k === kind ? 'button small primary' : 'button small', 'aria-current': k === kind ? 'page' : null, 'data-kind': k },
        t(`ladder.kind.${k}`),
        counts[k] !== undefined ? h('small', {}, ` · ${t('ladder.count', counts[k])}`) : null,
      ),
    ),
  );
}

function paintHead() {
  $('#lname').textContent = t(`ladder.kind.${kind}`);
  document.title = `${t('nav.ladders')}: ${t(`ladder.kind.${kind}`)} — baduk`;
  $('#lrules').textContent = `${t('ladder.rules', { reach: lad.reach, cooldown: lad.cooldown_days, inactivity: lad.inactivity_days })} ${t(kind === 'wallgo' ? 'ladder.settings.wallgo' : 'ladder.settings.go')}`;
  const a = account();
  const named = !!me();
  const place = lad.you?.place ?? null;
  $('#lguest').hidden = named || !a;
  $('#lyou').textContent = named ? (place ? t('ladder.you', place) : t('ladder.off')) : '';
  $('#ljoin').hidden = !named || !!place;
  $('#lleave').hidden = !named || !place;
  document.body.dataset.place = place ?? '';
}

/** The challenge cell of a row: a button for a player within reach above, disabled with why. */
function challengeCell(p) {
  const mine = lad.you?.place;
  const gap = mine ? mine - p.place : 0;
  if (!me() || !mine || gap < 1 || gap > lad.reach) return null;
  let why = null;
  if (lad.you.playing) why = t('ladder.busy');
  else if (p.playing) why = t('ladder.they_busy');
  else if (lad.you.cooldowns?.[p.name] && lad.you.cooldowns[p.name] > Date.now()) why = t('ladder.cooldown', when(lad.you.cooldowns[p.name]));
  const b = h('button', { type: 'button', class: why ? 'small' : 'small primary', 'data-challenge': p.name, disabled: why ? true : null }, t('ladder.challenge'));
  b.onclick = () => challenge(p.name);
  return [b, why ? h('small', { class: 'why' }, ` ${why}`) : null];
}

function gameLink(game, text) {
  return h('a', { href: `/g/${encodeURIComponent(game)}`, 'data-game': game }, text);
}

function paintOrder() {
  const head = ['#', t('ladder.player'), t('ladder.rating'), t('ladder.last'), t('ladder.action')];
  put($('#order thead'), h('tr', {}, head.map((c) => h('th', { scope: 'col' }, c))));
  const rows = lad.players || [];
  put(
    $('#order tbody'),
    rows.length
      ? rows.map((p) =>
          h(
            'tr',
            { class: p.name === me() ? 'this' : null, 'data-ladder-row': p.name, 'data-place': p.place },
            h('td', { class: 'num' }, String(p.place)),
            h('td', {}, playerLink(p.name)),
            h('td', { class: 'num' }, `${p.rating ?? ''}${p.provisional ? '?' : ''}`),
            h('td', {}, p.last_game ? gameLink(p.last_game.game, t('ladder.vs', p.last_game.opponent, when(p.last_game.at))) : t('ladder.none')),
            h('td', { class: 'lact' }, p.playing ? gameLink(p.playing, t('ladder.playing')) : challengeCell(p)),
          ),
        )
      : h('tr', {}, h('td', { colspan: head.length, class: 'empty' }, t('ladder.empty'))),
  );
}

function paintGames() {
  const gs = lad.challenges || [];
  put(
    $('#lgames'),
    gs.length
      ? gs.map((g) => h('li', { 'data-open-game': g.game }, gameLink(g.game, t('ladder.game', g.challenger, g.opponent))))
      : h('li', { class: 'empty' }, t('ladder.no_games')),
  );
}

function render() {
  paintTabs();
  if (!lad) return;
  paintHead();
  paintOrder();
  paintGames();
}

function notFound() {
  notFoundView(t('ladder.notfound'), t('ladder.notfound.body', kind));
}

async function load() {
  try {
    lad = await call('GET', base);
    counts[kind] = (lad.players || []).length;
    $('#lerr').textContent = '';
    render();
  } catch (e) {
    if (e.status === 404) notFound();
    else $('#lerr').textContent = errorWords(e);
  }
}

async function loadCounts() {
  try {
    const all = await call('GET', '/api/ladders');
    for (const l of all.ladders || []) counts[l.kind] = l.players;
    paintTabs();
  } catch {
    // The tabs work without their counts.
  }
}

/** `POST …/{what}`; a refusal shown by its code (Leave's busy refusal says what to do). */
async function act(what, body = {}) {
  if (busy) return null;
  busy = true;
  $('#lerr').textContent = '';
  try {
    return await call('POST', `${base}/${what}`, body);
  } catch (e) {
    $('#lerr').textContent = what === 'leave' && e.code === 'tournament.ladder_busy' ? t('ladder.leave_busy') : errorWords(e);
    $('#lerr').dataset.code = e.code || '';
    return null;
  } finally {
    busy = false;
  }
}

async function joinOrLeave(what) {
  const r = await act(what);
  if (r) {
    lad = r;
    counts[kind] = (lad.players || []).length;
    render();
  }
}

async function challenge(name) {
  const r = await act('challenge', { opponent: name });
  if (r?.game) location.href = `/g/${encodeURIComponent(r.game)}`;
  else load();
}

if (!KINDS.includes(kind)) {
  applyStatic();
  initChrome(notFound);
  initAccount();
  notFound();
} else {
  $('#ljoin').onclick = () => joinOrLeave('join');
  $('#lleave').onclick = () => joinOrLeave('leave');
  initChrome(() => {
    repaintAccount();
    render();
  });
  applyStatic();
  render();
  initAccount().then(() => {
    onAccount(() => load());
    load();
  });
  loadCounts();
  lobbySocket({
    onMessage(msg) {
      if (msg.type !== 'ladder') return;
      counts[msg.kind] = msg.players;
      if (msg.kind === kind) load();
      else paintTabs();
    },
    onStatus(s) {
      if (s === 'open' && lad) load();
    },
  });
  setInterval(() => {
    if (!document.hidden) load();
  }, 30000);
}
