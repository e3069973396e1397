// The player on every page: the header's name and rank (a link to the profile), sign in / sign
// up / sign out, and how ratings read (docs/api.md, "Ratings": Go ratings as kyu/dan ranks,
// 100 points a rank, 2100 = 1d, 2000 = 1k; Wall Go as the number).

import { api, session, account, onAccount } from './api.js';
import { t, lang } from './i18n.js';
import { h } from './ui.js';

export const KINDS = ['go-small', 'go19', 'wallgo', 'go-corr'];

/** The rating kind of a game: `go19`, `go-small` (9×9, 13×13) or `wallgo`; null for others. */
export function kindOf(game, size) {
  if (game === 'wallgo') return 'wallgo';
  const n = typeof size === 'number' ? size : Array.isArray(size) ? (size[0] === size[1] ? size[0] : 0) : size && size.cols === size.rows ? size.cols : 0;
  if (n === 19) return 'go19';
  if (n === 9 || n === 13) return 'go-small';
  return null;
}

/** A Go rating as a rank code: `5k`, `1d` (EGF's scale, 30k at the bottom, 9d at the top). */
export function rankCode(rating) {
  const r = Number(rating);
  if (!Number.isFinite(r)) return '';
  if (r >= 2100) return `${Math.min(9, Math.floor((r - 2100) / 100) + 1)}d`;
  return `${Math.min(30, Math.max(1, Math.ceil((2100 - r) / 100)))}k`;
}

/** A rank code in the page's language: `5k` / `5급`, `1d` / `1단`. */
export function rankWords(code) {
  const m = /^(\d+)\s*([kdp])(\??)$/i.exec(String(code || ''));
  if (!m) return String(code || '');
  if (m[3]) return `${rankWords(`${m[1]}${m[2]}`)}?`;
  const n = m[1];
  const u = m[2].toLowerCase();
  if (lang() === 'ko') return `${n}${u === 'k' ? '급' : u === 'd' ? '단' : '단(프로)'}`;
  return `${n}${u}`;
}

/** Whether a rating is still provisional (a deviation this wide says little). */
export function provisional(r) {
  return !r || Number(r.deviation) > 110;
}

/**
 * How a rating reads: for Go the rank (`3k`, `3급`), for Wall Go the number; a `?` when it is
 * provisional. `r` is `{rating, deviation, games, rank}` (or a seat's `player`: `{rating, rank}`).
 */
export function ratingShort(kind, r) {
  if (!r || r.rating === undefined || r.rating === null) return '';
  // The server's rank may end in `?` (provisional) already.
  const serverQ = typeof r.rank === 'string' && r.rank.endsWith('?');
  const q = serverQ || (r.deviation !== undefined && r.deviation !== null && provisional(r)) ? '?' : '';
  if (kind === 'wallgo') return `${Math.round(r.rating)}${q}`;
  const code = typeof r.rank === 'string' && r.rank ? r.rank.replace(/\?$/, '') : rankCode(r.rating);
  return `${rankWords(code)}${q}`;
}

/** The full reading: `1650 ± 80 (5k)` / Wall Go `1650 ± 80`. */
export function ratingLong(kind, r) {
  if (!r || r.rating === undefined || r.rating === null) return '—';
  const num = `${Math.round(r.rating)}${r.deviation !== undefined ? ` ± ${Math.round(r.deviation)}` : ''}`;
  return kind === 'wallgo' ? num : `${num} (${ratingShort(kind, r)})`;
}

/** A seat's player (`{name, rating, rank}`) in a few words: `kim 3k`. */
export function playerShort(p, kind) {
  if (!p) return '';
  const r = ratingShort(kind || 'go19', p);
  return r ? `${p.name} ${r}` : p.name;
}

/** The kind the header shows: the one with the most games (Go 9×9/13×13 when none). */
function headlineKind(a) {
  const rs = a.ratings || {};
  let best = null;
  for (const k of KINDS) if (rs[k] && (!best || (rs[k].games || 0) > (rs[best].games || 0))) best = k;
  return best;
}

/** Whether a name is a guest's (`guest-…`: no profile, no chosen name). */
export const isGuest = (name) => /^guest-/.test(name || '');

/**
 * A player's name in lists: the account's own name, a guest's too (`guest-ytir8f`), so that two
 * guests read apart and the seats, the chat and the record (PB/PW) all say the same name.
 */
export function displayName(name) {
  return name;
}

/**
 * The attributes of text a person typed (a player's name, a chat message): `data-user` says it is
 * no text of the page's own (the tests of the page's language leave it out), `translate="no"`
 * keeps a translator's hands off it.
 */
export const USER = Object.freeze({ 'data-user': '', translate: 'no' });

/** A player's name as user text: `kim`, `guest-ytir8f` (a guest titled "Guest" in the page's language). */
export function userName(name, attrs = {}) {
  return isGuest(name) ? h('span', { ...USER, title: t('auth.guest'), ...attrs }, name) : h('span', { ...USER, ...attrs }, name);
}

/** The BOT mark beside the name of a bot account (the Bot API), in the page's language. */
export function botMark() {
  return h('span', { class: 'botmark', 'data-bot-mark': '', title: t('bot.mark.title') }, t('bot.mark'));
}

/** A link to a player's profile page. */
export function playerLink(name, text, attrs = {}) {
  // A guest has no profile page: its name is plain text, titled "Guest" in the page's language.
  // A name that is no account's (a bot: `baduk (bot)`) is plain text too.
  if (isGuest(name)) return h('span', { class: 'plink guest', 'data-player': name, ...USER, title: t('auth.guest'), ...attrs }, text ?? name);
  if (!/^[\p{L}][\p{L}\p{N}_-]*$/u.test(name || '')) return h('span', { class: 'plink guest', 'data-player': name, ...USER, ...attrs }, text ?? name);
  return h('a', { href: `/@/${encodeURIComponent(name)}`, class: 'plink', 'data-player': name, ...USER, ...attrs }, text ?? name);
}

function paint(box) {
  const a = account();
  box.replaceChildren();
  if (!a) {
    box.append(h('a', { class: 'button small', href: `/login?next=${encodeURIComponent(location.pathname)}`, 'data-auth': 'signin' }, t('auth.signin')));
    return;
  }
  box.dataset.name = a.name;
  box.dataset.guest = a.guest ? '1' : '0';
  const kind = headlineKind(a);
  const rank = kind ? ratingShort(kind, a.ratings[kind]) : '';
  const who = a.guest
    ? h('span', { class: 'me guest', title: t('auth.guest.title') }, h('span', { class: 'nm' }, t('auth.guest')), rank ? h('span', { class: 'rank' }, rank) : '')
    : h('a', { class: 'me', href: `/@/${encodeURIComponent(a.name)}`, 'data-me': a.name, title: t('auth.profile') }, h('span', { class: 'nm', ...USER }, a.name), rank ? h('span', { class: 'rank', 'data-rank': kind }, rank) : '');
  box.append(who);
  if (a.guest) {
    const next = encodeURIComponent(location.pathname);
    box.append(h('a', { class: 'button small', href: `/login?next=${next}`, 'data-auth': 'signin' }, t('auth.signin')));
    box.append(h('a', { class: 'button small primary', href: `/login?mode=signup&next=${next}`, 'data-auth': 'signup' }, t('auth.signup')));
  } else {
    box.append(h('a', { class: 'button small quiet', href: '/me', 'data-auth': 'settings', title: t('auth.settings') }, '⚙'));
    const out = h('button', { type: 'button', class: 'small quiet', 'data-auth': 'signout' }, t('auth.signout'));
    out.onclick = async () => {
      try {
        await api.logout();
      } catch {
        /* the session is gone either way */
      }
      location.href = '/';
    };
    box.append(out);
  }
}

/**
 * Puts the account in the header (`#account`, made if missing) and keeps it current. Resolves
 * to the account once the session is known.
 */
export async function initAccount() {
  let box = document.getElementById('account');
  if (!box) {
    const tools = document.querySelector('header.top .tools');
    box = h('span', { id: 'account', class: 'account' });
    if (tools) tools.prepend(box);
  }
  onAccount(() => paint(box));
  const a = await session();
  paint(box);
  document.body.dataset.account = a ? (a.guest ? 'guest' : 'named') : 'none';
  return a;
}

/** Repaints the header (after a language switch). */
export function repaintAccount() {
  const box = document.getElementById('account');
  if (box) paint(box);
}
