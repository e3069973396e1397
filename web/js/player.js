// A player's profile (/@/NAME): ratings with their deviation and rank, a rating graph per kind
// (SVG drawn here), recent games with results and links, win/loss against each opponent, and
// the player's Go games as one SGF collection.

import { api, account, eventStream } from './api.js';
import { challengeForm, challengeError, settingsWords, colourWords, reasonWords, eventOf, acceptedGame, fresh, goToGame } from './challenges.js';
import { notFoundView } from './ui.js';
import { t, lang, applyStatic } from './i18n.js';
import { h, initChrome, resultShort, clockWords, kindLabel } from './ui.js';
import { initAccount, repaintAccount, KINDS, kindOf, ratingShort, ratingLong, playerLink, rankWords, rankCode, USER, botMark } from './account.js';

const $ = (s) => document.querySelector(s);
const name = decodeURIComponent(location.pathname.replace(/^\/@\//, '').split('/')[0] || '');
let data = null;

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function when(v, withTime = false) {
  if (!v) return '';
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  const opts = withTime ? { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' } : { year: 'numeric', month: 'short', day: 'numeric' };
  return new Intl.DateTimeFormat(lang() === 'ko' ? 'ko-KR' : 'en', opts).format(d);
}

/**
 * The rating over time: one point a rated game, the band its deviation (± 1 RD), and for Go the
 * rank lines (every 100 points) labelled in kyu/dan.
 */
function graph(kind, hist) {
  const W = 640;
  const H = 220;
  const L = 48;
  const R = 12;
  const T = 12;
  const B = 26;
  const pts = [...hist].sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
  // The line starts where the first rated game started from (the initial rating): after one
  // game it is a line from there, not a lone dot.
  const first = pts[0];
  if (first && typeof first.rating_before === 'number') pts.unshift({ at: first.at, rating: first.rating_before, deviation: first.deviation_before, start: true });
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'rgraph', role: 'img', 'data-graph': kind });
  const last = pts[pts.length - 1];
  svg.append(s('title', {}, `${t(`kind.${kind}`)}: ${ratingLong(kind, last)}`));
  let lo = Math.min(...pts.map((p) => p.rating - (p.deviation || 0)));
  let hi = Math.max(...pts.map((p) => p.rating + (p.deviation || 0)));
  if (hi - lo < 200) {
    const mid = (hi + lo) / 2;
    lo = mid - 100;
    hi = mid + 100;
  }
  lo = Math.floor(lo / 100) * 100;
  hi = Math.ceil(hi / 100) * 100;
  const n = pts.length;
  const x = (i) => (n === 1 ? L + (W - L - R) / 2 : L + (i * (W - L - R)) / (n - 1));
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  const grid = s('g', { class: 'grid' });
  const step = (hi - lo) / 100 > 8 ? 200 : 100;
  for (let v = lo; v <= hi; v += step) {
    grid.append(s('line', { x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    const label = kind === 'wallgo' ? String(v) : `${v} ${rankWords(rankCode(v))}`;
    grid.append(s('text', { x: L - 4, y: y(v) + 4, 'text-anchor': 'end' }, kind === 'wallgo' ? label : rankWords(rankCode(v))));
  }
  svg.append(grid);
  // The deviation band.
  if (n > 1) {
    const up = pts.map((p, i) => `${x(i).toFixed(1)},${y(p.rating + (p.deviation || 0)).toFixed(1)}`);
    const down = pts.map((p, i) => `${x(i).toFixed(1)},${y(p.rating - (p.deviation || 0)).toFixed(1)}`).reverse();
    svg.append(s('polygon', { class: 'band', points: [...up, ...down].join(' ') }));
    svg.append(s('polyline', { class: 'line', points: pts.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(' ') }));
  }
  pts.forEach((p, i) => {
    const c = s('circle', { cx: x(i).toFixed(1), cy: y(p.rating).toFixed(1), r: n > 40 ? 2 : 3.5, class: p.start ? 'pt start' : 'pt', 'data-rating': Math.round(p.rating) });
    c.append(s('title', {}, `${p.start ? t('profile.start') : when(p.at)}: ${ratingLong(kind, p)}`));
    svg.append(c);
  });
  svg.append(s('text', { x: L, y: H - 6, class: 'axis' }, when(pts[0].at)));
  if (n > 1) svg.append(s('text', { x: W - R, y: H - 6, class: 'axis', 'text-anchor': 'end' }, when(last.at)));
  return svg;
}

/**
 * The seat of this profile's player in a game summary: the server's `seat` (a guest's game
 * keeps the guest's old name), else by name (names compare without case).
 */
function seatOf(g) {
  if (g.seat && g.seats?.[g.seat]) return g.seat;
  const want = (data?.name || name).toLowerCase();
  for (const [seat, info] of Object.entries(g.seats || {})) if (info.player && String(info.player.name).toLowerCase() === want) return seat;
  return null;
}

function opponentOf(g, seat) {
  if (!seat) return null;
  for (const [s2, info] of Object.entries(g.seats || {})) if (s2 !== seat) return info;
  return null;
}

function outcome(g, seat) {
  const r = g.result;
  if (!r || g.status !== 'finished') return { cls: 'live', text: g.status === 'cancelled' ? t('result.cancelled') : t(`status.${g.status}`) };
  // A summary's `result` is the text and `winner` is beside it; a state's result is an object.
  const text = typeof r === 'string' ? r : r.text;
  const winner = typeof r === 'object' ? r.winner : g.winner ?? null;
  if (!winner) return { cls: 'draw', text: resultShort(text) };
  return { cls: winner === seat ? 'win' : 'loss', text: `${t(winner === seat ? 'profile.win' : 'profile.loss')} · ${resultShort(text)}` };
}

function gameItem(g) {
  const seat = seatOf(g);
  const opp = opponentOf(g, seat);
  const kind = kindOf(g.game, g.size);
  const size = g.game === 'go' ? (typeof g.size === 'number' ? `${g.size}×${g.size}` : g.size?.cols ? `${g.size.cols}×${g.size.rows}` : '') : '';
  const title = [g.game === 'go' ? `${t('game.go')} ${size}` : t('game.wallgo'), g.rated ? t('rated') : '', g.game === 'go' ? clockWords(g.clock) : ''].filter(Boolean).join(' · ');
  const vs = opp ? (opp.player ? [t('profile.vs'), ' ', /^guest-/.test(opp.player.name) ? h('span', USER, opp.player.name) : playerLink(opp.player.name), opp.player.bot ? botMark() : '', ratingShort(kind, opp.player) ? ` (${ratingShort(kind, opp.player)})` : ''] : opp.kind === 'bot' ? [t('profile.vs'), ' ', kindLabel(opp)] : []) : [];
  const res = outcome(g, seat);
  const colour = seat ? t(`color.${seat}`) : '';
  const acts = h(
    'div',
    { class: 'gact' },
    h('a', { class: 'button small', href: `/g/${encodeURIComponent(g.id)}`, 'data-replay': g.id }, g.status === 'finished' ? t('profile.replay') : t('lobby.watch')),
    g.status === 'finished' ? h('a', { class: 'button small quiet', href: api.recordUrl(g.id), download: `${g.id}.${g.game === 'go' ? 'sgf' : 'wall'}`, 'data-record': g.id }, g.game === 'go' ? 'SGF' : t('profile.record')) : '',
  );
  return h(
    'li',
    { 'data-game': g.id, 'data-outcome': res.cls },
    h('span', { class: `gicon ${g.game}`, 'aria-hidden': 'true' }, g.game === 'go' ? '碁' : '벽'),
    h('div', {}, h('div', { class: 'gtitle' }, title), h('div', { class: 'gmeta' }, colour, colour ? ' · ' : '', ...vs, ' · ', h('span', { class: `outcome ${res.cls}` }, res.text), ' · ', when(g.updated_at || g.created_at, true))),
    acts,
  );
}

function render() {
  if (!data) return;
  document.title = `${data.name} — baduk`;
  $('#title').textContent = t('profile.title');
  const head = $('#pname');
  head.replaceChildren(h('span', USER, data.name), data.bot ? botMark() : '', data.online ? h('span', { class: 'badge online', 'data-online': '' }, t('profile.online')) : '', data.vacation ? h('span', { class: 'badge vacation', 'data-vacation': '' }, t('seat.vacation')) : '');
  $('#pmeta').textContent = data.created_at ? t('profile.since', when(data.created_at)) : '';
  const body = $('#ratings tbody');
  body.replaceChildren();
  const graphs = $('#graphs');
  graphs.replaceChildren();
  for (const k of KINDS) {
    const r = data.ratings?.[k];
    if (!r) continue;
    body.append(
      h(
        'tr',
        { 'data-kind': k },
        h('th', { scope: 'row' }, t(`kind.${k}`)),
        h('td', { class: 'num', 'data-rating': Math.round(r.rating) }, `${Math.round(r.rating)} ± ${Math.round(r.deviation)}`),
        h('td', {}, k === 'wallgo' ? '—' : ratingShort(k, r)),
        h('td', { class: 'num' }, String(r.games ?? 0)),
      ),
    );
    const hist = data.history?.[k] || [];
    if (hist.length) graphs.append(h('figure', { class: 'graph' }, h('figcaption', {}, t(`kind.${k}`)), graph(k, hist)));
  }
  if (!body.children.length) body.append(h('tr', {}, h('td', { colspan: '4', class: 'empty' }, t('profile.no_ratings'))));
  $('#sgf-all').href = api.playerSgfUrl(data.name);
  $('#sgf-all').setAttribute('download', `${data.name}.sgf`);
  const list = $('#pgames');
  list.replaceChildren(...(data.games || []).map(gameItem));
  if (!list.children.length) list.append(h('li', { class: 'empty' }, t('profile.no_games')));
  const opp = $('#opponents tbody');
  opp.replaceChildren(
    ...(data.opponents || []).map((o) =>
      h('tr', { 'data-opponent': o.name }, h('th', { scope: 'row' }, /^guest-/.test(o.name) ? h('span', USER, o.name) : playerLink(o.name)), h('td', { class: 'num' }, String(o.wins ?? 0)), h('td', { class: 'num' }, String(o.losses ?? 0)), h('td', { class: 'num' }, String(o.draws ?? 0))),
    ),
  );
  if (!opp.children.length) opp.append(h('tr', {}, h('td', { colspan: '4', class: 'empty' }, t('profile.no_opponents'))));
  // One's own profile: the way to the settings.
  const me = account();
  if (me && !me.guest && me.name.toLowerCase() === data.name.toLowerCase() && !$('#to-settings')) {
    $('#pmeta').after(h('p', {}, h('a', { id: 'to-settings', class: 'button small', href: '/me' }, t('me.title'))));
  }
  paintChallenge();
  document.body.dataset.loaded = '1';
}

// ---- "Challenge": a small form, the challenge sent, and its answer as it comes -------------

/** The challenge sent from this page: `{challenge, status, error}`; its events' stream. */
const sent = { challenge: null, error: '', form: null, open: false, stream: null };

function paintChallenge() {
  const box = $('#challenge-box');
  const me = account();
  if (!data || !me || sameName(me.name, data.name)) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  // A guest has no name to challenge with: the way to one.
  if (me.guest) {
    const next = encodeURIComponent(location.pathname);
    box.replaceChildren(h('a', { class: 'button small', href: `/login?next=${next}`, 'data-challenge-signin': '' }, t('ch.signin', data.name)));
    return;
  }
  const kids = [];
  const ch = sent.challenge;
  if (!ch || ch.status !== 'open') {
    const b = h('button', { type: 'button', class: 'primary', id: 'challenge-btn', 'aria-expanded': String(sent.open) }, t('ch.challenge'));
    b.onclick = () => {
      sent.open = !sent.open;
      paintChallenge();
      if (sent.open) sent.form?.querySelector('select')?.focus();
    };
    kids.push(b);
  }
  if (ch) kids.push(sentLine(ch));
  if (sent.error) kids.push(h('p', { class: 'form-error', role: 'alert', id: 'challenge-answer', 'data-code': sent.code || '' }, sent.error));
  if (sent.open && (!ch || ch.status !== 'open')) {
    sent.form = sent.form || challengeForm({ id: 'challenge-form', onSubmit: send });
    kids.push(sent.form);
  }
  box.replaceChildren(...kids);
}

const sameName = (a, b) => String(a || '').toLowerCase() === String(b || '').toLowerCase();

/** The challenge sent and where it stands: waiting (with Cancel), declined (why), canceled. */
function sentLine(ch) {
  const line = h('div', { class: `challenge-sent ${ch.status}`, id: 'challenge-sent', 'data-status': ch.status, 'data-challenge': ch.id, role: 'status' });
  const what = h('p', { class: 'gmeta' }, settingsWords(ch.settings), ' · ', colourWords(ch, account()));
  if (ch.status === 'open') {
    const cancel = h('button', { type: 'button', class: 'small', 'data-cancel-challenge': ch.id }, t('btn.cancel'));
    cancel.onclick = async () => {
      try {
        const r = await api.cancelChallenge(ch.id);
        sent.challenge = r?.challenge || { ...ch, status: 'canceled' };
      } catch (e) {
        sent.error = challengeError(e);
      }
      paintChallenge();
    };
    line.append(h('p', {}, h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' ', t('ch.waiting', data.name), ' '), what, cancel);
  } else if (ch.status === 'declined') line.append(h('p', {}, h('strong', {}, t('ch.declined', data.name)), ' ', ...reasonWords(ch.reason)), what);
  else if (ch.status === 'canceled') line.append(h('p', {}, t('ch.canceled')));
  else if (ch.status === 'accepted' && ch.game) line.append(h('p', {}, h('a', { class: 'button primary', href: `/g/${encodeURIComponent(ch.game)}` }, t('ch.to_game'))));
  return line;
}

async function send(settings) {
  const btn = sent.form.querySelector('button[type=submit]');
  btn.disabled = true;
  sent.error = '';
  try {
    const r = await api.challenge({ to: data.name, ...settings });
    sent.challenge = r.challenge;
    sent.open = false;
    follow();
  } catch (e) {
    sent.error = challengeError(e);
    sent.code = e.code;
  } finally {
    btn.disabled = false;
  }
  paintChallenge();
}

/** Follows the account's events while a challenge sent from here waits: its answer, its game. */
function follow() {
  if (sent.stream) return;
  const took = (ch) => {
    sent.challenge = ch;
    if (ch.status === 'accepted' && ch.game) goToGame(ch.game);
    paintChallenge();
  };
  sent.stream = eventStream({
    onEvent: async (msg) => {
      const ev = eventOf(msg);
      const ch = sent.challenge;
      if (!ch) return;
      if (ev.challenge?.id === ch.id) took(ev.challenge);
      else if (ev.type === 'gameStart' && ch.status === 'open') {
        const game = await acceptedGame([ch.id]);
        if (game) goToGame(game);
      }
    },
    // An answer given before the stream was open (or while it was down) is read once it is.
    onStatus: async (s) => {
      if (s === 'open' && sent.challenge?.status === 'open') took(await fresh(sent.challenge));
    },
  });
}

function notFound() {
  notFoundView(t('profile.notfound'), t('profile.notfound.body', name));
}

async function load() {
  try {
    data = await api.player(name);
    render();
  } catch (e) {
    if (e.status === 404 || e.status === 400) notFound();
    else $('#pmeta').textContent = e.status ? e.message : t('error.network');
  }
}

initChrome(() => {
  applyStatic();
  repaintAccount();
  if (data) render();
  else if (!$('#notfound').hidden) notFound();
});
applyStatic();
initAccount().then(async (me) => {
  render();
  // A challenge to this player still waiting (sent before a reload): shown, and followed.
  if (!me || me.guest) return;
  try {
    const r = await api.challenges();
    const ch = (r.outgoing || []).find((c) => c.to && sameName(c.to.name, name));
    if (ch && !sent.challenge) {
      sent.challenge = ch;
      follow();
      paintChallenge();
    }
  } catch {
    /* none to show */
  }
});
load();
