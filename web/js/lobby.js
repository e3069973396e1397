// The lobby (/): play now (a seek, then the game or the bot), create a game, list open / live /
// finished games with their players, the open seeks and who is online; join an open seat, watch.

import { api, holdSeat, saveInvite, seatLink, seekSocket, lobbySocket, account } from './api.js';
import { initAccount, repaintAccount, kindOf, ratingShort, rankWords, playerLink, KINDS, isGuest, displayName, userName, botMark } from './account.js';
import { loadBots } from './bots-list.js';
import { t, lang, applyStatic, addStrings } from './i18n.js';
import { h, kindLabel, botName, initChrome, clockWords, ruleName, resultShort, copyButton, say } from './ui.js';
import { clockString, syncClockFields, formSettings, challengeError } from './challenges.js';
import { ChallengePanel } from './challenge-panel.js';
import { watchTurns, turnsCard, refreshTurns } from './turns.js';

// The header's link to the ladders (its page has its own strings; this one is the lobby's).
addStrings({ en: { 'nav.ladders': 'Ladders' }, ko: { 'nav.ladders': '래더' } });

const $ = (s) => document.querySelector(s);
const form = $('#create');
let game = 'go';
let listStatus = 'live';
let next = null;

// The Go bot's ladder: `level=1..10` (docs/bot.md has each level's record against GNU Go).
const GO_LEVELS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const GO_DEFAULT_LEVEL = 4;
const goLevelLabel = (n) =>
  n === 1 ? `1 — ${t('level.go.1')}` : n === 10 ? `10 — ${t('level.go.10')}` : String(n);
const WALL_BOTS = ['random', 'easy', 'medium', 'expert', 'sedol'];
const SEATS = { go: ['black', 'white'], wallgo: ['A', 'B'] };
const DEFAULTS = { go: { black: 'me', white: 'bot' }, wallgo: { A: 'me', B: 'bot' } };

function seatRow(seat) {
  const def = DEFAULTS[game][seat];
  const kind = h(
    'select',
    { name: `seat-${seat}`, 'aria-label': `${t(`color.${seat}`)} — ${t('seat.select')}` },
    ...['me', 'friend', 'open', 'bot'].map((k) => h('option', { value: k, ...(k === def ? { selected: true } : {}) }, t(`seat.${k}`))),
  );
  const level = h(
    'select',
    { name: `level-${seat}`, 'aria-label': `${t(`color.${seat}`)} — ${t('seat.level')}` },
    ...(game === 'go'
      ? GO_LEVELS.map((n) =>
          h('option', { value: `level=${n},time=1`, ...(n === GO_DEFAULT_LEVEL ? { selected: true } : {}) }, goLevelLabel(n)),
        )
      : WALL_BOTS.map((b) => h('option', { value: b, ...(b === 'easy' ? { selected: true } : {}) }, botName(b)))),
  );
  // One line saying how strong the chosen bot is (docs/bot.md's ladder; the Wall Go bots' search).
  const note = h('p', { class: 'botnote', 'data-botnote': seat });
  const sync = () => {
    level.hidden = kind.value !== 'bot';
    note.hidden = kind.value !== 'bot';
    const lv = /^level=(\d+)/.exec(level.value);
    note.textContent = game === 'go' ? t(`botdesc.go.${lv ? lv[1] : GO_DEFAULT_LEVEL}`) : t(`botdesc.wall.${level.value}`);
  };
  kind.onchange = sync;
  level.onchange = sync;
  sync();
  return h('div', { class: 'seatrow' }, h('span', {}, h('span', { class: `chip ${seat}` }, game === 'wallgo' ? seat : ''), t(`color.${seat}`)), kind, level, note);
}

function renderSeats() {
  // Keep choices across a language switch.
  const keep = {};
  for (const el of form.querySelectorAll('#seats select')) keep[el.name] = el.value;
  const box = $('#seats');
  box.replaceChildren(...SEATS[game].map(seatRow));
  for (const el of box.querySelectorAll('select')) if (keep[el.name]) {
    el.value = keep[el.name];
    el.dispatchEvent(new Event('change'));
  }
}

function setGame(g) {
  game = g;
  $('#tab-go').setAttribute('aria-selected', String(g === 'go'));
  $('#tab-wallgo').setAttribute('aria-selected', String(g === 'wallgo'));
  $('#go-fields').hidden = g !== 'go';
  $('#wallgo-fields').hidden = g !== 'wallgo';
  $('#link-challenge-btn').hidden = g !== 'go';
  $('#seats').replaceChildren();
  renderSeats();
}

function syncGoFields() {
  const custom = form.size.value === 'custom';
  for (const el of form.querySelectorAll('.custom-size')) el.hidden = !custom;
  syncClockFields(form);
}

// ---- a named opponent: handicap and komi suggested from the rating gap (GET /api/suggest) ---

let suggestSeq = 0;
let suggestTimer = null;

/** Asks the server for the handicap and komi of a game against the named player and fills them in. */
async function suggest() {
  const note = $('#suggest-note');
  const name = form.opponent.value.trim();
  const seq = ++suggestSeq;
  const say1 = (text) => {
    note.hidden = !text;
    note.textContent = text || '';
    delete note.dataset.suggest;
  };
  if (!name || game !== 'go') return say1('');
  const kind = kindOf('go', form.size.value === 'custom' ? 0 : parseInt(form.size.value, 10));
  if (!kind) return say1(t('suggest.size'));
  try {
    const r = await api.suggest(name, kind);
    if (seq !== suggestSeq) return;
    form.handicap.value = String(r.handicap || 0);
    form.komi.value = r.komi === null || r.komi === undefined ? '' : String(r.komi);
    const [mine, theirs] = (r.ranks || []).map((c) => rankWords(c));
    const me = account();
    const black = me && r.black === me.name ? t('suggest.black.me') : t('suggest.black.them');
    say1(t('suggest.set', mine || '?', theirs || '?', r.handicap ? t('handicap', r.handicap) : t('suggest.even'), r.komi ?? t('suggest.komi.auto'), black));
    note.dataset.suggest = `${r.handicap || 0}:${r.komi ?? ''}`;
  } catch (e) {
    if (seq !== suggestSeq) return;
    say1(e.status === 404 ? t('suggest.unknown') : e.status === 401 ? t('suggest.signin') : e.status ? say(e.code, e.args, e.message) : t('error.network'));
  }
}

function suggestSoon() {
  clearTimeout(suggestTimer);
  suggestTimer = setTimeout(suggest, 400);
}

function spec() {
  const seats = {};
  const kinds = {};
  for (const seat of SEATS[game]) {
    const k = form[`seat-${seat}`].value;
    kinds[seat] = k;
    if (k === 'bot') {
      const lvl = form[`level-${seat}`].value;
      seats[seat] = game === 'go' ? { kind: 'bot', bot: 'baduk', options: lvl } : { kind: 'bot', bot: lvl };
    } else if (k === 'open' || k === 'friend') seats[seat] = { kind: 'open' };
    else seats[seat] = { kind: 'human' };
  }
  if (game === 'go') {
    const size = form.size.value === 'custom' ? [parseInt(form.cols.value, 10), parseInt(form.rows.value, 10)] : parseInt(form.size.value, 10);
    // Overrides (`ko=situational,…`) follow the preset; a whole rules string (`korean,komi=0`)
    // typed there is taken as it is.
    const over = form.overrides.value.trim().replace(/\s+/g, '').replace(/^,/, '');
    const whole = over && !over.split(',')[0].includes('=');
    const s = { game: 'go', size, rules: whole ? over : over ? `${form.preset.value},${over}` : form.preset.value, handicap: parseInt(form.handicap.value, 10), clock: clockString(form), seats };
    if (form.komi.value.trim() !== '') s.komi = parseFloat(form.komi.value);
    if (s.clock.startsWith('correspondence:') && form.pause_weekends.checked) s.pause_weekends = true;
    return { spec: extras(s, kinds), kinds };
  }
  return {
    spec: extras({
      game: 'wallgo',
      variant: `placement=${form.placement.value} stay=${form.stay.value} tiebreak=${form.tiebreak.value}`,
      turn_seconds: parseInt(form.turn_seconds.value || '0', 10),
      seats,
    }, kinds),
    kinds,
  };
}

/**
 * Rated, and invite-only (`listed: false`), sent only when chosen (an older server knows neither).
 * A friend's seat is an open seat that only the friend hears of: the game is invite-only, so that
 * nobody else takes it from the lobby's list.
 */
function extras(s, kinds) {
  if (form.rated.checked) s.rated = true;
  if (form.unlisted.checked || Object.values(kinds).includes('friend')) s.listed = false;
  return s;
}

/** The komi a game may have, either way (the server's limit: `settings.komi`). */
const KOMI_LIMIT = 150;

async function create(e) {
  e.preventDefault();
  const err = $('#form-error');
  err.textContent = '';
  const created = $('#created');
  created.replaceChildren();
  const { spec: s, kinds } = spec();
  // A komi out of range is refused here as the server would refuse it: the field and its range.
  if (s.komi !== undefined && !(Math.abs(s.komi) <= KOMI_LIMIT)) {
    err.textContent = t('code.settings.komi', { value: form.komi.value.trim(), min: -KOMI_LIMIT, max: KOMI_LIMIT });
    form.komi.setAttribute('aria-invalid', 'true');
    form.komi.focus();
    return;
  }
  form.komi.removeAttribute('aria-invalid');
  const btn = $('#create-btn');
  btn.disabled = true;
  try {
    const r = await api.create(s);
    let mine = null;
    for (const [seat, info] of Object.entries(r.seats || {})) {
      if (kinds[seat] === 'me') {
        holdSeat(r.id, seat, info.token);
        mine = mine || seatLink(info.url, seat);
      }
    }
    // A friend's seat, or an open seat of an invite-only game: its link is the game's address
    // with the invite secret in the fragment (`#invite=…`, which the server alone cannot
    // guess from the id), where the friend joins as themselves ("Join as yourself").
    const plain = r.invite ? `${location.origin}${r.invite}` : `${location.origin}/g/${encodeURIComponent(r.id)}`;
    const shared = SEATS[game].filter((seat) => kinds[seat] === 'friend' || (kinds[seat] === 'open' && s.listed === false));
    for (const seat of shared) saveInvite(r.id, seat, plain);
    if (mine) {
      location.href = mine;
      return;
    }
    // No seat of mine: show the links to hand out, and a way in as a spectator.
    created.append(h('strong', {}, t('lobby.created')));
    const waiting = SEATS[game].filter((seat) => kinds[seat] === 'friend' || kinds[seat] === 'open');
    for (const seat of waiting) {
      created.append(h('label', { class: 'invite' }, h('span', {}, t(`color.${seat}`)), h('input', { readonly: '', value: plain, 'data-invite': seat }), copyButton(plain)));
    }
    if (waiting.length) created.append(h('p', { class: 'hint' }, t('invite.self')));
    created.append(h('a', { class: 'button primary', href: `/g/${r.id}` }, t('lobby.open_game')));
    loadList();
  } catch (ex) {
    err.textContent = say(ex.code, ex.args, ex.message);
  } finally {
    btn.disabled = false;
  }
}

/**
 * "Challenge by link": the form's Go settings as an open challenge (`to: null`), its colour the
 * seat marked "Me" (random when neither is), and the link to hand out.
 */
async function linkChallenge() {
  const err = $('#form-error');
  err.textContent = '';
  const created = $('#created');
  created.replaceChildren();
  const s = formSettings(form);
  // The overrides field is the New-game form's own: a challenge takes the preset's rules.
  s.colour = form['seat-black']?.value === 'me' ? 'black' : form['seat-white']?.value === 'me' ? 'white' : 'random';
  const btn = $('#link-challenge-btn');
  btn.disabled = true;
  try {
    const r = await api.challenge({ to: null, ...s });
    const url = `${location.origin}${r.challenge.url || `/c/${encodeURIComponent(r.challenge.id)}`}`;
    created.append(h('strong', {}, t('ch.link_made')), h('label', { class: 'invite' }, h('span', {}, t('ch.link')), h('input', { readonly: '', value: url, 'data-challenge-link': r.challenge.id }), copyButton(url)), h('p', { class: 'hint' }, t('ch.link_hint')));
    challenges.load();
  } catch (ex) {
    err.textContent = challengeError(ex);
  } finally {
    btn.disabled = false;
  }
}

// ---- the list -------------------------------------------------------------------------------

function sizeText(size) {
  if (!size) return '';
  if (typeof size === 'number') return `${size}×${size}`;
  if (Array.isArray(size)) return `${size[0]}×${size[1]}`;
  return `${size.cols}×${size.rows}`;
}

function when(v) {
  if (!v) return '';
  const d = typeof v === 'number' ? new Date(v) : new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  return new Intl.DateTimeFormat(lang() === 'ko' ? 'ko-KR' : 'en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(d);
}

function item(g) {
  const isGo = g.game === 'go';
  const clock = isGo ? clockWords(g.clock) : '';
  const title = isGo
    ? [`${t('game.go')} ${sizeText(g.size)}`, ruleName(g.rules_label || g.rules), g.komi !== undefined ? t('komi', g.komi) : '', g.handicap ? t('handicap', g.handicap) : '', clock].filter(Boolean).join(' · ')
    : `${t('game.wallgo')}`;
  const kind = kindOf(g.game, g.size);
  // The players' names are elements of their own (user text, left out of the language checks).
  const seats = Object.entries(g.seats || {}).map(([s, info]) => [`${t(`seatname.${s}`)}: `, info.player ? playerWords(info.player, kind) : kindLabel(info, g.status === 'finished')]);
  const res = g.result ? resultShort(typeof g.result === 'string' ? g.result : g.result.text) : '';
  const meta = [g.rated ? (g.aborted ? t('rated.aborted') : t('rated')) : '', ...seats, g.moves ? t('lobby.moves', g.moves) : '', res || (g.to_move ? t('turn.other', t(`seatname.${g.to_move}`)) : ''), when(g.updated_at || g.created_at)]
    .filter(Boolean)
    .flatMap((part, i) => (i ? [' · ', part] : [part]));
  const acts = h('div', { class: 'gact' });
  for (const [s, info] of Object.entries(g.seats || {})) {
    if (info.kind === 'open' && !info.joined) {
      const b = h('button', { type: 'button', class: 'small primary', 'data-join': `${g.id}:${s}` }, t('lobby.join', t(`seatname.${s}`)));
      b.onclick = async () => {
        try {
          const r = await api.join(g.id, s);
          holdSeat(g.id, r.seat || s, r.token);
          location.href = seatLink(r.url || `/g/${g.id}`, r.seat || s);
        } catch (e) {
          $('#form-error').textContent = say(e.code, e.args, e.message);
          loadList();
        }
      };
      acts.append(b);
    }
  }
  acts.append(h('a', { class: 'button small', href: `/g/${encodeURIComponent(g.id)}`, 'data-watch': g.id }, t('lobby.watch')));
  return h('li', { 'data-game': g.id }, h('span', { class: `gicon ${g.game}`, 'aria-hidden': 'true' }, isGo ? '碁' : '벽'), h('div', {}, h('div', { class: 'gtitle' }, title), h('div', { class: 'gmeta' }, meta.flat(Infinity))), acts);
}

/** The "New game" form's settings as a challenge's (docs/api.md, "Challenges"): the Go ones. */
function challengeSettings() {
  const { spec: s } = spec();
  const out = { game: s.game, clock: s.clock || 'none', rated: !!s.rated, colour: 'random' };
  if (s.game === 'go') Object.assign(out, { size: s.size, rules: s.rules, handicap: s.handicap }, s.komi !== undefined ? { komi: s.komi } : {});
  return out;
}

/** A seat's player in words: `kim (3k)`, the name marked as user text. */
function playerWords(p, kind) {
  const r = ratingShort(kind || 'go19', p);
  const mark = p.bot ? [botMark()] : [];
  return r ? [userName(p.name), ...mark, ` (${r})`] : [userName(p.name), ...mark];
}

async function loadList(more = false) {
  const list = $('#games');
  try {
    const r = await api.list(listStatus, 30, more ? next : undefined);
    next = r.next || null;
    // Finished games: the most recently finished first.
    const games = [...(r.games || [])];
    if (listStatus === 'finished') games.sort((a, b) => (b.updated_at || 0) - (a.updated_at || 0));
    const items = games.map(item);
    if (more) list.append(...items);
    else list.replaceChildren(...items);
    if (!list.children.length) list.append(h('li', { class: 'empty' }, t('lobby.empty')));
    $('#more').hidden = !next;
  } catch (e) {
    list.replaceChildren(h('li', { class: 'empty' }, e.status ? say(e.code, e.args, e.message) : t('error.network')));
  }
}

function setList(status) {
  listStatus = status;
  for (const b of document.querySelectorAll('#list-tabs button')) b.setAttribute('aria-selected', String(b.dataset.status === status));
  next = null;
  loadList();
}

// ---- play now: a seek, kept alive by its socket, until matched or the bot is taken ----------

const seekForm = $('#seek');
const seeking = { id: null, sock: null, offer: null };

function seekSpec() {
  const kind = seekForm['seek-kind'].value;
  const rated = seekForm['seek-rated'].checked;
  const spec = kind === 'wallgo' ? { game: 'wallgo', turn_seconds: parseInt(seekForm['seek-turn'].value, 10), rated } : { game: 'go', size: parseInt(kind.split(':')[1], 10), clock: seekForm['seek-clock'].value, rated };
  const range = seekRange(spec);
  if (range) spec.range = range;
  return spec;
}

/**
 * The rating range of a seek, `[min, max]` around one's own rating for the game's kind (1500, the
 * server's start, where there is none yet). Left out for ±300, the server's default, which it
 * reckons from the rating it holds.
 */
function seekRange(spec) {
  const v = seekForm['seek-range'].value;
  if (v === '300') return null;
  const kind = kindOf(spec.game, spec.size);
  const r = account()?.ratings?.[kind]?.rating;
  const mine = Number.isFinite(Number(r)) && r !== null && r !== undefined ? Math.round(Number(r)) : 1500;
  // At most 5000 wide: the server's limit.
  const d = v === 'any' ? 2500 : parseInt(v, 10);
  return [mine - d, mine + d];
}

function syncSeekFields() {
  const wall = seekForm['seek-kind'].value === 'wallgo';
  $('#seek-clock-field').hidden = wall;
  $('#seek-turn-field').hidden = !wall;
}

function showSeeking(on) {
  $('#seeking').hidden = !on;
  $('#seek-btn').hidden = on;
  for (const el of seekForm.querySelectorAll('select, input')) el.disabled = on;
  document.body.dataset.seek = on ? 'searching' : '';
  if (!on) {
    $('#bot-offer').hidden = true;
    $('#seek-status').dataset.i18n = 'seek.searching';
    $('#seek-status').textContent = t('seek.searching');
  }
}

function goToGame(g) {
  document.body.dataset.seek = 'matched';
  const url = g.url || `/g/${encodeURIComponent(g.id)}`;
  // A seat token, where the server gives one, goes with the link as for any seat.
  location.href = g.token ? seatLink(`${url.split('#')[0]}#token=${g.token}`, g.seat) : url;
}

/** Counts seeks asked and stopped: a seek the server answers after it was cancelled is dropped. */
let seekAsks = 0;

function stopSeek(drop = true) {
  seekAsks += 1;
  const { id, sock } = seeking;
  seeking.id = null;
  seeking.sock = null;
  // Closing an open seek socket drops the seek on the server: a DELETE after it would find
  // nothing (a 404). Only a socket not open yet needs the DELETE; a seek gone already is fine.
  const open = sock?.isOpen() ?? false;
  sock?.close();
  if (drop && id && !open) api.cancelSeek(id).catch(() => {});
  showSeeking(false);
}

async function startSeek(e, spec = seekSpec()) {
  e?.preventDefault();
  const err = $('#seek-error');
  err.textContent = '';
  if (seeking.id) return;
  const ask = ++seekAsks;
  showSeeking(true);
  $('#seek-cancel').focus(); // the button pressed is hidden now: the keyboard stays in the card
  try {
    const r = await api.seek(spec);
    if (r.game) return goToGame(r.game);
    // Cancelled while the server was asked: drop the seek it made, or it would pair unseen.
    if (ask !== seekAsks) {
      api.cancelSeek(r.id).catch(() => {});
      return;
    }
    seeking.id = r.id;
    seeking.sock = seekSocket(r.id, {
      onMessage(msg) {
        if (msg.type === 'matched' && msg.game) {
          seeking.sock?.close();
          seeking.sock = null;
          seeking.id = null;
          goToGame(msg.game);
        } else if (msg.type === 'bot_offer') {
          seeking.offer = msg;
          paintOffer();
        } else if (msg.type === 'error') {
          err.textContent = say(msg.code, msg.args, msg.error);
          if (msg.status !== 429) stopSeek();
        } else if (msg.type === 'expired') {
          stopSeek(false);
          err.textContent = t('seek.ended');
        }
      },
      onClose() {
        if (!seeking.id) return;
        seeking.id = null;
        seeking.sock = null;
        showSeeking(false);
        err.textContent = t('seek.ended');
      },
    });
    if (!lobbyLive) loadSeeks();
  } catch (ex) {
    if (ask !== seekAsks) return; // a refusal of a seek already cancelled
    showSeeking(false);
    err.textContent = ex.status ? say(ex.code, ex.args, ex.message) : t('error.network');
  }
}

function paintOffer() {
  const o = seeking.offer;
  if (!o || !seeking.id) return;
  const box = $('#bot-offer');
  box.hidden = false;
  const kind = seekForm['seek-kind'].value === 'wallgo' ? 'wallgo' : seekForm['seek-kind'].value === 'go:19' ? 'go19' : 'go-small';
  const level = o.level !== undefined && o.level !== null ? t('seek.level', o.level) : botName(o.bot);
  const r = o.rating !== undefined && o.rating !== null ? ratingShort(kind, { rating: o.rating }) : '';
  $('#bot-offer-text').textContent = t('seek.bot_offer', level, r);
  $('#seek-status').dataset.i18n = 'seek.nobody';
  $('#seek-status').textContent = t('seek.nobody');
  $('#accept-bot').focus();
}

$('#accept-bot').onclick = () => {
  seeking.sock?.send({ type: 'accept_bot' });
  $('#accept-bot').disabled = true;
  setTimeout(() => {
    $('#accept-bot').disabled = false;
  }, 3000);
};
$('#keep-waiting').onclick = () => {
  $('#bot-offer').hidden = true;
  $('#seek-cancel').focus();
};
$('#seek-cancel').onclick = () => {
  stopSeek();
  // The lobby's socket brings the list without the seek; without it, ask.
  if (lobbyLive) renderSeeks(lastSeeks);
  else loadSeeks();
  $('#seek-btn').focus();
};
window.addEventListener('pagehide', () => seeking.sock?.close());

// ---- who is here: open seeks and players online -------------------------------------------

function seekWords(sk) {
  const size = sk.game === 'go' ? `${t('game.go')} ${sk.size}×${sk.size}` : t('game.wallgo');
  const clock = sk.game === 'go' ? clockWords(sk.clock) || t('form.clock.none') : sk.turn_seconds ? t('seek.turn', sk.turn_seconds) : '';
  return [size, clock, sk.rated ? t('rated') : t('unrated')].filter(Boolean).join(' · ');
}

// The open seeks come over the lobby's socket as they change; asked for only while it is down.
let lobbyLive = false;
let lastSeeks = null;

async function loadSeeks() {
  try {
    renderSeeks(await api.seeks());
  } catch (e) {
    $('#seeks').replaceChildren(h('li', { class: 'empty' }, e.status === 404 ? t('seek.none') : e.status ? say(e.code, e.args, e.message) : t('error.network')));
  }
}

function renderSeeks(r) {
  if (!r) return;
  lastSeeks = r;
  const list = $('#seeks');
  const me = account();
  const items = (r.seeks || []).map((sk) => {
    // `player` is the seeker's name (or an object with it); `rating` the seek's rating.
    const p = typeof sk.player === 'string' ? { name: sk.player, rating: sk.rating } : { rating: sk.rating, ...(sk.player || {}) };
    const kind = kindOf(sk.game, sk.game === 'go' ? sk.size || 19 : null);
    const r1 = p.rating !== undefined && p.rating !== null ? ratingShort(kind || 'go19', p) : '';
    const who = h('span', {}, p.name ? playerLink(p.name, displayName(p.name)) : '', r1 ? ` ${r1}` : '');
    const acts = h('div', { class: 'gact' });
    const mine = sk.id === seeking.id || (me && p.name === me.name);
    if (!mine && !seeking.id) {
      const b = h('button', { type: 'button', class: 'small primary', 'data-accept-seek': sk.id }, t('seek.play'));
      // Taking a seek is seeking the same game: the server pairs the two.
      b.onclick = () => startSeek(null, sk.game === 'go' ? { game: 'go', size: sk.size, ...(sk.rules ? { rules: sk.rules } : {}), ...(sk.clock ? { clock: sk.clock } : {}), rated: !!sk.rated } : { game: 'wallgo', ...(sk.turn_seconds !== undefined ? { turn_seconds: sk.turn_seconds } : {}), rated: !!sk.rated });
      acts.append(b);
    } else if (mine) acts.append(h('span', { class: 'badge' }, t('seek.yours')));
    return h('li', { 'data-seek': sk.id }, h('span', { class: `gicon ${sk.game}`, 'aria-hidden': 'true' }, sk.game === 'go' ? '碁' : '벽'), h('div', {}, h('div', { class: 'gtitle' }, who), h('div', { class: 'gmeta' }, seekWords(sk))), acts);
  });
  list.replaceChildren(...items);
  if (!items.length) list.append(h('li', { class: 'empty' }, t('seek.none')));
}

// The challenges to and from this account: listed on load and by the socket whenever it
// (re)connects; its events keep the panel current.
const challenges = new ChallengePanel($('#challenges-card'));

// "Your move (N)": the games where it is this account's move, first on the page.
const paintTurns = turnsCard($('#turns-card'));

lobbySocket({
  onMessage(msg) {
    if (msg.type === 'seeks') renderSeeks(msg);
    // The public review rooms (review-rooms.js draws them).
    else if (msg.type === 'review_rooms') document.dispatchEvent(new CustomEvent('baduk:review-rooms', { detail: msg.rooms || [] }));
    else challenges.onEvent(msg);
    // A game of this account started or finished: its list changed.
    if (msg.type === 'gameStart' || msg.type === 'gameFinish') refreshTurns();
  },
  onStatus(s) {
    // A named player's socket sends the open challenges first (`challenges`), then the events.
    lobbyLive = s === 'open';
  },
});

async function loadOnline() {
  const list = $('#online');
  try {
    const r = await api.online();
    // Named players by name; guests (no chosen name, no profile) as a count.
    const guests = (r.players || []).filter((p) => isGuest(p.name)).length;
    const items = (r.players || []).filter((p) => !isGuest(p.name)).map((p) => {
      const ranks = KINDS.filter((k) => p.ratings?.[k]?.games).map((k) => `${t(`kind.${k}.short`)} ${ratingShort(k, p.ratings[k])}`);
      return h('li', { 'data-online': p.name }, playerLink(p.name), p.bot ? botMark() : '', ranks.length ? h('small', {}, ` ${ranks.join(' · ')}`) : '');
    });
    if (guests) items.push(h('li', { class: 'guests', 'data-guests': guests }, t(guests === 1 ? 'lobby.guests.one' : 'lobby.guests', guests)));
    list.replaceChildren(...items);
    if (!items.length) list.append(h('li', { class: 'empty' }, t('lobby.nobody')));
  } catch (e) {
    list.replaceChildren(h('li', { class: 'empty' }, e.status === 404 ? t('lobby.nobody') : e.status ? say(e.code, e.args, e.message) : t('error.network')));
  }
}

/**
 * Guests play unrated games only (the server refuses a guest's rated game: `rated.guest`): their
 * "Rated" boxes are unticked and hidden, with a line saying why, so "Play now" works at once.
 */
function syncGuestRated() {
  const guest = !!account()?.guest;
  for (const [box, note] of [[seekForm['seek-rated'], $('#seek-rated-note')], [form.rated, $('#rated-note')]]) {
    if (guest) box.checked = false;
    box.closest('label').hidden = guest;
    note.hidden = !guest;
  }
}

/** What the chosen "Staying in place" rule lets a piece do, under the field. */
function syncStay() {
  $('#stay-hint').textContent = t(`howto.stay.${form.stay.value}`);
}

initChrome(() => {
  applyStatic();
  syncStay();
  renderSeats();
  loadList();
  renderSeeks(lastSeeks);
  loadOnline();
  loadBots(challengeSettings, true);
  repaintAccount();
  if (seeking.offer && !$('#bot-offer').hidden) paintOffer();
  if (!$('#suggest-note').hidden) suggest();
  challenges.render();
  paintTurns();
});
initAccount().then(() => {
  watchTurns();
  syncGuestRated();
  loadOnline();
  loadBots(challengeSettings);
  if (lastSeeks) renderSeeks(lastSeeks);
  else loadSeeks();
  challenges.load();
});
seekForm.onsubmit = startSeek;
seekForm['seek-kind'].onchange = syncSeekFields;
syncSeekFields();
applyStatic();
setGame('go');
form.size.value = '19';
form.clock.value = 'none';
syncGoFields();
form.size.onchange = () => {
  syncGoFields();
  suggestSoon();
};
form.opponent.oninput = suggestSoon;
form.clock.onchange = syncGoFields;
form.stay.onchange = syncStay;
syncStay();
$('#tab-go').onclick = () => setGame('go');
$('#tab-wallgo').onclick = () => setGame('wallgo');
form.onsubmit = create;
$('#link-challenge-btn').onclick = linkChallenge;
for (const b of document.querySelectorAll('#list-tabs button')) b.onclick = () => setList(b.dataset.status);
$('#more').onclick = () => loadList(true);
setList('live');
setInterval(() => {
  if (document.hidden) return;
  if (!next) loadList();
  if (!lobbyLive) loadSeeks();
  loadOnline();
  loadBots(challengeSettings);
}, 5000);
