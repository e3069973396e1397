// "Your move" across games: the account's unfinished games from GET /api/me/games (those where
// it is its move first), read on load, every 20 s and whenever a page asks; the page title's
// count "(N) …"; a short sound and a browser notification when a game becomes one's move while a
// tab is open (the permission is asked once, on a click); the next game where it is one's move.

import { api, account } from './api.js';
import { t } from './i18n.js';
import { h, sound, clockWords } from './ui.js';

const POLL_MS = 20000;
const ASKED = 'baduk.notify.asked';

let games = []; // the last answer's games
let mine = null; // ids of the games where it is one's move (null before the first answer)
let baseTitle = document.title;
const listeners = new Set();
let timer = null;

/** The games of the last answer (`GET /api/me/games`), most urgent first. */
export function myGames() {
  return games;
}

/** The games where it is one's move now. */
export function yourMoves() {
  return games.filter((g) => g.your_turn);
}

/** The page's title with the count of games where it is one's move in front: "(2) …". */
export function titled(base) {
  baseTitle = base;
  const n = yourMoves().length;
  return n ? `(${n}) ${base}` : base;
}

/** The next game where it is one's move, other than `current` (its id), or null. */
export function nextGame(current) {
  return yourMoves().find((g) => g.id !== current) || null;
}

/** Calls f(games) after every answer. */
export function onTurns(f) {
  listeners.add(f);
}

/** Reads the account's games again now. */
export async function refreshTurns() {
  if (!account()) return;
  let r;
  try {
    r = await api.myGames();
  } catch {
    return; // signed out, a network error: the next poll tries again
  }
  games = r.games || [];
  const now = new Set(yourMoves().map((g) => g.id));
  if (mine) {
    const fresh = [...now].filter((id) => !mine.has(id));
    if (fresh.length) announce(games.find((g) => g.id === fresh[0]));
  }
  mine = now;
  document.title = titled(baseTitle);
  for (const f of listeners) f(games);
}

/** A game became one's move: a sound, and a notification where the browser allows one. */
function announce(g) {
  window.__baduk?.turns?.push(g.id); // what tests can read
  sound('yourmove');
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  try {
    const n = new Notification(t('turns.notify.title'), { body: t('turns.notify.body', g.opponent || '—'), tag: `baduk-${g.id}` });
    n.onclick = () => {
      window.focus();
      location.href = g.url;
    };
  } catch {
    /* some browsers notify only from a service worker: the sound and the title say it */
  }
}

/** Whether the browser may still be asked for notifications (never asked, never answered). */
export function mayAskNotify() {
  return 'Notification' in window && Notification.permission === 'default' && !localStorage.getItem(ASKED);
}

/** Asks for the permission to notify (once; call it from a click). */
export async function askNotify() {
  localStorage.setItem(ASKED, '1');
  try {
    await Notification.requestPermission();
  } catch {
    /* refused or unsupported */
  }
}

/** Starts reading the account's games (once per page). */
export function watchTurns() {
  if (!window.__baduk) window.__baduk = {};
  if (!window.__baduk.turns) window.__baduk.turns = [];
  if (timer) return;
  refreshTurns();
  // A hidden tab reads on too (the browser slows its timers): that is when a notification helps.
  timer = setInterval(refreshTurns, POLL_MS);
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) refreshTurns();
  });
}

/** Time left as words: "2 days 5 h", "3 h 10 min", "4 min", "40 s". */
export function leftWords(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const hr = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return t('turns.left.dh', d, hr);
  if (hr) return t('turns.left.hm', hr, m);
  if (m) return t('turns.left.m', m);
  return t('turns.left.s', s);
}

/** One game of the card: the opponent, the game, and the time left to move. */
function turnItem(g) {
  const meta = [g.game === 'go' ? t('game.go') : t('game.wallgo'), g.clock && g.clock !== 'none' ? clockWords(g.clock) : '', g.moves ? t('lobby.moves', g.moves) : '', g.deadline ? t('turns.left', leftWords(g.deadline - Date.now())) : '']
    .filter(Boolean)
    .join(' · ');
  const link = h('a', { class: 'button small primary', href: g.url, 'data-turn': g.id }, t('turns.play'));
  return h('li', { 'data-your-move': g.id }, h('span', { class: `gicon ${g.game}`, 'aria-hidden': 'true' }, g.game === 'go' ? '碁' : '벽'), h('div', {}, h('div', { class: 'gtitle' }, t('turns.vs', g.opponent || '—')), h('div', { class: 'gmeta' }, meta)), h('div', { class: 'gact' }, link));
}

/**
 * The lobby's "Your move (N)" card (`section` holds #turns-count, #turns and #turns-notify):
 * the games where it is one's move, most urgent first; hidden while the account has no game.
 */
export function turnsCard(section) {
  const paint = () => {
    const list = section.querySelector('#turns');
    const yours = yourMoves();
    section.hidden = !games.length;
    section.querySelector('#turns-count').textContent = String(yours.length);
    list.replaceChildren(...yours.map(turnItem));
    if (!yours.length) list.append(h('li', { class: 'empty' }, t('turns.none')));
    const ask = section.querySelector('#turns-notify');
    ask.hidden = !mayAskNotify();
    ask.onclick = async () => {
      await askNotify();
      ask.hidden = true;
    };
  };
  onTurns(paint);
  paint();
  return paint;
}
