// A tournament's page (/t/ID): its name, format, settings and status; Register, Check in and
// Withdraw for the signed-in player; for the organiser Start now, End, a player or a bot level
// added and a result set on an open board; the players; each round's pairings with their games
// and the bye; the standings with their tie-breaks and the crosstable (an arena's points and
// streaks, and its end counting down); the exports. It follows the lobby socket's `tournament`
// message (and reads again every 20 s in case the socket is down).

import { call, account, onAccount, lobbySocket } from './api.js';
import { initAccount, repaintAccount, playerLink, botMark } from './account.js';
import { t, applyStatic } from './i18n.js';
import { h, put, initChrome, notFoundView } from './ui.js';
import { formatWords, when, settingsLine, errorWords, fillLevels } from './tournaments.js';

const $ = (s) => document.querySelector(s);
const id = decodeURIComponent(location.pathname.replace(/^\/t\//, '').split('/')[0] || '');
const base = `/api/tournaments/${encodeURIComponent(id)}`;
let ev = null;
let busy = false;

const me = () => {
  const a = account();
  return a && !a.guest ? a.name : null;
};

function who(name, botFlag) {
  return botFlag ? h('span', { class: 'tbot' }, playerLink(name), ' ', botMark()) : playerLink(name);
}

function resultWords(p) {
  if (!p.result) return p.game ? t('tourney.open_game') : '';
  const r = t(`tourney.result.${p.result}`);
  return p.set_by ? `${r} (${p.set_by === 'no-show' || p.set_by === 'withdrawn' || p.set_by === 'server' ? t(`tourney.set_by.${p.set_by}`) : p.set_by})` : r;
}

function paintHead() {
  $('#tname').textContent = ev.name;
  document.title = `${ev.name} — baduk`;
  document.body.dataset.status = ev.status;
  const parts = [formatWords(ev.format), t(`tourney.status.${ev.status}`)];
  if (ev.format !== 'arena' && ev.status !== 'upcoming') parts.push(t('tourney.round_of', ev.round || 0, ev.total_rounds || '?'));
  parts.push(`${ev.status === 'upcoming' ? t('tourney.starts') : t('tourney.started')} ${when(ev.starts_at)}`);
  if (ev.ends_at) parts.push(`${t('tourney.ends')} ${when(ev.ends_at)}`);
  if (ev.organiser) parts.push(t('tourney.organiser', ev.organiser));
  $('#tmeta').textContent = parts.join(' · ');
  const o = ev.options || {};
  const limits = [];
  if (o.rank_min || o.rank_max) limits.push(t('tourney.ranks', o.rank_min || '30k', o.rank_max || '9d'));
  if (o.max_players) limits.push(t('tourney.max', o.max_players));
  $('#tsettings').textContent = [settingsLine(ev.settings), ...limits].join(' · ');
  const mine = me() && (ev.players || []).some((p) => p.name === me() && p.status === 'in');
  $('#join').hidden = !me() || mine || ev.status !== 'upcoming';
  $('#withdraw').hidden = !me() || !mine || ev.status === 'finished';
  paintCheckin();
  paintCountdown();
  const org = !!me() && ev.organiser === me();
  $('#org').hidden = !org || ev.status === 'finished';
  $('#start').hidden = ev.status !== 'upcoming';
  if (org) fillLevels($('#addb').elements.namedItem('level'), ev.settings?.game === 'wallgo' ? 'wallgo' : 'go');
  $('#csv').href = `${base}/export.csv`;
  $('#egf').href = `${base}/export.egf`;
}

/** The Check in button (an event with check-in, a registered player not checked in, inside the
 * window before the start) and the line saying when the window opens or closes. */
function paintCheckin() {
  const minutes = ev.options?.checkin_minutes || 0;
  const p = (ev.players || []).find((x) => x.name === me() && x.status === 'in');
  const opens = ev.starts_at - minutes * 60000;
  const now = Date.now();
  const waiting = minutes > 0 && ev.status === 'upcoming' && p && !p.checked_in;
  $('#checkin').hidden = !waiting || now < opens || now >= ev.starts_at;
  const note = !waiting ? '' : now < opens ? t('tourney.checkin_opens', when(opens)) : t('tourney.checkin_open', when(ev.starts_at));
  $('#checkin-note').textContent = note;
  $('#checkin-note').hidden = !note;
}

/** An arena's end counting down (`ends in 9:59`). */
function paintCountdown() {
  const el = $('#tcount');
  const left = ev.format === 'arena' && ev.status === 'running' && ev.ends_at ? ev.ends_at - Date.now() : null;
  el.hidden = left === null;
  if (left === null) return;
  const s = Math.max(0, Math.floor(left / 1000));
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(hh ? 2 : 1, '0');
  const ss = String(s % 60).padStart(2, '0');
  el.textContent = t('tourney.ends_in', hh ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`);
}

function paintPlayers() {
  const ps = ev.players || [];
  put(
    $('#players'),
    ps.length
      ? ps.map((p) =>
          h(
            'li',
            { class: p.status === 'withdrawn' || p.status === 'absent' ? p.status : p.name === me() ? 'this' : null, 'data-player-row': p.name },
            who(p.name, p.bot),
            p.rank ? h('span', { class: 'rank' }, p.rank) : null,
            p.status === 'withdrawn' ? h('small', {}, t('tourney.withdrawn')) : null,
            p.status === 'absent' ? h('small', {}, t('tourney.absent')) : null,
            p.checked_in && !p.bot && ev.options?.checkin_minutes && ev.status === 'upcoming' ? h('small', { class: 'tcheck' }, t('tourney.checked_in')) : null,
          ),
        )
      : h('li', { class: 'empty' }, t('tourney.no_players')),
  );
}

function paintRounds() {
  const rs = [...(ev.rounds || [])].reverse();
  if (!rs.length) {
    put($('#rounds'), h('p', { class: 'empty' }, t('tourney.no_rounds')));
    return;
  }
  put(
    $('#rounds'),
    rs.map((r) =>
      h(
        'div',
        { class: 'tround', 'data-round': r.round },
        h('h3', {}, ev.format === 'arena' ? t('tourney.games') : t('tourney.round', r.round)),
        h(
          'div',
          { class: 'tscroll' },
          h(
            'table',
            { class: 'scores pairings' },
            h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'num' }, '#'), h('th', { scope: 'col' }, t('tourney.black')), h('th', { scope: 'col' }, t('tourney.white')), h('th', { scope: 'col' }, t('tourney.result')))),
            h(
              'tbody',
              {},
              (r.pairings || []).map((p) =>
                h(
                  'tr',
                  { class: me() && (p.black === me() || p.white === me()) ? 'this' : null, 'data-board': p.board },
                  h('td', { class: 'num' }, p.board),
                  h('td', {}, playerLink(p.black), p.handicap ? h('small', {}, ` ${t('tourney.handicap', p.handicap)}`) : null),
                  h('td', {}, playerLink(p.white)),
                  // The result is the link to the game (one column less on a phone).
                  h('td', { class: 'res' }, p.game ? h('a', { href: `/g/${encodeURIComponent(p.game)}`, class: 'tgame', 'data-game': p.game }, resultWords(p)) : resultWords(p), resultPicker(r.round, p)),
                ),
              ),
            ),
          ),
        ),
        r.bye ? h('p', { class: 'meta tbye' }, t('tourney.bye', r.bye)) : null,
      ),
    ),
  );
}

/** The organiser's choices of result not yet set, by `round/board`. */
const picks = new Map();

/** The organiser's result for an open board: a choice and Set (`POST …/result`). */
function resultPicker(round, p) {
  if (p.result || ev.status !== 'running' || !me() || ev.organiser !== me()) return null;
  const key = `${round}/${p.board}`;
  const pick = h('select', { 'aria-label': t('tourney.result_pick', p.board), 'data-result-for': key }, ['black', 'white', 'jigo', 'unplayed'].map((r) => h('option', { value: r }, t(`tourney.result.${r}`))));
  // The choice outlives a repaint (the event is read again whenever the socket says so).
  if (picks.has(key)) pick.value = picks.get(key);
  pick.onchange = () => picks.set(key, pick.value);
  const set = h('button', { type: 'button', class: 'small', 'data-set-result': `${round}/${p.board}` }, t('tourney.set_result'));
  set.onclick = () => act('result', { round, board: p.board, result: pick.value }, '#orgerr');
  return h('span', { class: 'tsetres' }, pick, set);
}

function paintStandings() {
  const rows = ev.standings || [];
  const arena = ev.format === 'arena';
  const n = Math.max(0, ...rows.map((r) => (r.crosstable || []).length));
  const head = arena
    ? ['#', t('tourney.name'), t('tourney.score'), t('tourney.games'), t('tourney.streak'), t('tourney.results')]
    : ['#', t('tourney.name'), t('tourney.rank'), t('tourney.score'), 'SOS', 'SOSOS', 'SODOS', ...Array.from({ length: n }, (_, i) => t('tourney.r', i + 1))];
  put($('#standings thead'), h('tr', {}, head.map((c) => h('th', { scope: 'col' }, c))));
  const num = (v) => h('td', { class: 'num' }, v === null || v === undefined ? '' : String(v));
  put(
    $('#standings tbody'),
    rows.length
      ? rows.map((r) =>
          h(
            'tr',
            { class: r.name === me() ? 'this' : null, 'data-standing': r.name },
            num(r.place),
            h('td', {}, playerLink(r.name)),
            arena ? [num(r.score), num(r.games), h('td', { class: r.on_fire ? 'num fire' : 'num', 'data-streak': r.streak ?? 0 }, String(r.streak ?? 0), r.on_fire ? h('span', { class: 'fire', title: t('tourney.on_fire'), 'aria-label': t('tourney.on_fire') }, ' 🔥') : null), h('td', {}, (r.results || []).join(' '))] : [h('td', {}, r.rank || ''), num(r.score), num(r.sos), num(r.sosos), num(r.sodos), ...(r.crosstable || []).map((c) => h('td', { class: 'cross' }, c))],
          ),
        )
      : h('tr', {}, h('td', { colspan: head.length, class: 'empty' }, t('tourney.no_standings'))),
  );
}

function render() {
  if (!ev) return;
  paintHead();
  paintPlayers();
  paintRounds();
  paintStandings();
}

function notFound() {
  notFoundView(t('tourney.notfound'), t('tourney.notfound.body', id));
}

async function load() {
  try {
    ev = await call('GET', base);
    render();
  } catch (e) {
    if (e.status === 404 || e.status === 400) notFound();
    else $('#terr').textContent = errorWords(e);
  }
}

/** `POST …/{what}` with `body`; the answer's event shown, a refusal in `#terr` (or `errAt`).
 * Resolves true when it was done. */
async function act(what, body = {}, errAt = '#terr') {
  if (busy) return false;
  busy = true;
  for (const el of ['#terr', '#orgerr']) $(el).textContent = '';
  try {
    const r = await call('POST', `${base}/${what}`, body);
    ev = r.tournament || ev;
    render();
    return true;
  } catch (e) {
    $(errAt).textContent = errorWords(e);
    $(errAt).dataset.code = e.code || '';
    return false;
  } finally {
    busy = false;
  }
}

$('#join').onclick = () => act('join');
$('#withdraw').onclick = () => act('withdraw');
$('#checkin').onclick = () => act('checkin');
$('#start').onclick = () => act('start', {}, '#orgerr');
$('#end').onclick = () => act('end', {}, '#orgerr');
$('#addp').onsubmit = async (e) => {
  e.preventDefault();
  const input = $('#addp').elements.namedItem('pname');
  if (await act('players', { name: input.value.trim() }, '#orgerr')) input.value = '';
};
$('#addb').onsubmit = (e) => {
  e.preventDefault();
  const level = $('#addb').elements.namedItem('level').value;
  if (level) act('bots', JSON.parse(level), '#orgerr');
};

initChrome(() => {
  repaintAccount();
  if (ev) render();
  else if (!$('#notfound').hidden) notFound();
});
applyStatic();
onAccount(() => render());
initAccount().then(render);
load();
lobbySocket({
  onMessage(msg) {
    if (msg.type === 'tournament' && msg.id === id) load();
  },
  // Back after a break: what changed meanwhile is read at once.
  onStatus(s) {
    if (s === 'open' && ev) load();
  },
});
setInterval(() => {
  if (!document.hidden) load();
}, 20000);
// The countdown and the check-in window move with the clock.
setInterval(() => {
  if (ev) {
    paintCountdown();
    paintCheckin();
  }
}, 1000);
