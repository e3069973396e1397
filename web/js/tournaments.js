// The Tournaments page (/tournaments): upcoming, running and finished events, each a link to its
// page, and the form that creates one (a signed-in named account); also the words both
// tournament pages share (format, status, settings, dates, bot levels).

import './tournament-strings.js';
import { call, account, onAccount } from './api.js';
import { initAccount, repaintAccount } from './account.js';
import { t, lang, applyStatic } from './i18n.js';
import { h, put, initChrome, clockWords, ruleName, say, kindLabel } from './ui.js';
import { RULES, clockString, syncClockFields } from './challenges.js';

/** An event's format in words (`swiss`, `mcmahon`, `round-robin`, `arena`). */
export function formatWords(f) {
  return t(`tourney.format.${f}`);
}

/** A date and time (ms since the epoch) in the page's language, or ''. */
export function when(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return '';
  return new Intl.DateTimeFormat(lang() === 'ko' ? 'ko-KR' : 'en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(d);
}

/** The game settings of an event in words: the game, the board, rules, komi, clock, rated. */
export function settingsLine(s) {
  if (!s) return '';
  const parts = [];
  if (s.game === 'wallgo') {
    parts.push(t('game.wallgo'));
    if (s.turn_seconds) parts.push(t('tc.sec', s.turn_seconds));
  } else {
    parts.push(t('game.go'));
    if (s.size) parts.push(Array.isArray(s.size) ? s.size.join('×') : `${s.size}×${s.size}`);
    if (s.rules) parts.push(ruleName(s.rules));
    if (s.komi !== undefined) parts.push(`${t('tourney.komi')} ${s.komi}`);
    if (s.clock) parts.push(clockWords(s.clock));
  }
  parts.push(s.rated ? t('tourney.rated') : t('tourney.unrated'));
  return parts.filter(Boolean).join(' · ');
}

/** A refusal of the server in the page's language (its `tournament.*` code), else its sentence. */
export function errorWords(e) {
  if (!e.status) return t('error.network');
  return say(e.code, e.args, e.message);
}

function item(ev) {
  const rounds = ev.format === 'arena' ? '' : t('tourney.round_of', ev.round || 0, ev.rounds || '?');
  return h(
    'li',
    { 'data-tournament': ev.id },
    h('a', { href: `/t/${encodeURIComponent(ev.id)}`, class: 'tname', translate: 'no' }, ev.name),
    h('span', { class: 'meta' }, [formatWords(ev.format), when(ev.starts_at), ev.status === 'running' ? rounds : '', t('tourney.players_n', ev.players ?? 0, ev.max_players ?? '')].filter(Boolean).join(' · ')),
  );
}

/** The server's bot levels an event of `game` ('go' or 'wallgo') may enter (docs/api.md, `fill_bot`). */
export function botLevels(game) {
  if (game === 'wallgo') return ['random', 'easy', 'medium', 'expert', 'sedol'].map((bot) => ({ bot }));
  return Array.from({ length: 10 }, (_, i) => ({ bot: 'baduk', options: `level=${i + 1}` }));
}

/** A bot level in words. */
export function levelWords(l) {
  return kindLabel({ kind: 'bot', bot: l.bot, options: l.options || '' });
}

/** Fills a select with the bot levels of `game` (each option's value the level as JSON), an
 * empty first option named by `none` if given. */
export function fillLevels(select, game, none) {
  const keep = select.value;
  put(select, none ? h('option', { value: '' }, t(none)) : null, botLevels(game).map((l) => h('option', { value: JSON.stringify(l) }, levelWords(l))));
  if ([...select.options].some((o) => o.value === keep)) select.value = keep;
}

/** The ranks, weakest first (`30k` … `1k`, `1d` … `9d`). */
const RANKS = [...Array.from({ length: 30 }, (_, i) => `${30 - i}k`), ...Array.from({ length: 9 }, (_, i) => `${i + 1}d`)];

let lists = null;

function render() {
  if (!lists) return;
  for (const k of ['upcoming', 'running', 'finished']) {
    const evs = lists[k] || [];
    put(document.getElementById(k), evs.length ? evs.map(item) : h('li', { class: 'empty' }, t('tourney.none')));
  }
}

async function load() {
  try {
    lists = await call('GET', '/api/tournaments');
    document.getElementById('err').textContent = '';
    render();
  } catch (e) {
    document.getElementById('err').textContent = errorWords(e);
  }
}

const form = document.getElementById('new');
const field = (n) => form.elements.namedItem(n);

/** Shows the fields the chosen format and game use, and fills the selects in the page's language. */
function syncForm() {
  if (!form) return;
  const fmt = field('format').value;
  for (const el of form.querySelectorAll('.fmt')) el.hidden = !el.dataset.for.split(' ').includes(fmt);
  const wall = field('board').value === 'wallgo';
  for (const el of form.querySelectorAll('.gof')) el.hidden = wall;
  for (const el of form.querySelectorAll('.wallf')) el.hidden = !wall;
  syncClockFields(form);
  const board = field('board');
  for (const o of board.options) if (o.value !== 'wallgo') o.textContent = `${t('game.go')} ${o.value}×${o.value}`;
  const preset = field('preset');
  const rule = preset.value || 'japanese';
  put(preset, RULES.map((r) => h('option', { value: r }, t(`rules.${r}`))));
  preset.value = rule;
  for (const sel of form.querySelectorAll('select.ranks')) {
    const keep = sel.value;
    put(sel, h('option', { value: '' }, t('tourney.f.any')), RANKS.map((r) => h('option', { value: r }, r)));
    sel.value = keep;
  }
  fillLevels(field('fill_bot'), wall ? 'wallgo' : 'go', 'tourney.f.fill_none');
}

/** A number field's value (null when empty: the server's default, or its refusal). */
function num(n) {
  const v = field(n).value.trim();
  return v === '' ? null : Number(v);
}

/** What the form asks `POST /api/tournaments` for. */
function formBody() {
  const fmt = field('format').value;
  const b = { name: field('name').value, format: fmt, rated: field('rated').checked, max_players: num('max_players') };
  if (fmt === 'swiss' || fmt === 'mcmahon') b.rounds = num('rounds');
  if (fmt === 'arena') b.minutes = num('minutes');
  if (fmt === 'mcmahon') b.handicap_by_rank = field('handicap_by_rank').checked;
  const starts = field('starts').value;
  if (starts) b.starts_at = new Date(starts).getTime();
  const board = field('board').value;
  if (board === 'wallgo') Object.assign(b, { game: 'wallgo', turn_seconds: num('turn_seconds') ?? 0 });
  else Object.assign(b, { game: 'go', size: Number(board), rules: field('preset').value, clock: clockString(form) });
  for (const r of ['rank_min', 'rank_max']) if (field(r).value) b[r] = field(r).value;
  // Sent only when asked for: a server without check-in would take it for a game setting.
  const checkin = num('checkin_minutes');
  if (checkin) b.checkin_minutes = checkin;
  if (field('fill_bot').value) b.fill_bot = JSON.parse(field('fill_bot').value);
  return b;
}

/** The date-time field's value for a time (ms) in local time, as `datetime-local` reads it. */
function localInput(ms) {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 16);
}

/** Shows the form to a named account, the invitation to sign up to a guest. */
function showForm() {
  const a = account();
  const named = !!a && !a.guest;
  form.hidden = !named;
  document.getElementById('new-guest').hidden = named;
}

function initForm() {
  const hour = 3600000;
  field('starts').value = localInput(Math.ceil((Date.now() + hour) / (15 * 60000)) * 15 * 60000);
  for (const n of ['format', 'board', 'clock']) field(n).addEventListener('change', syncForm);
  syncForm();
  let sending = false;
  form.onsubmit = async (e) => {
    e.preventDefault();
    if (sending) return;
    sending = true;
    const err = document.getElementById('new-err');
    err.textContent = '';
    try {
      const r = await call('POST', '/api/tournaments', formBody());
      location.href = `/t/${encodeURIComponent(r.id)}`;
    } catch (x) {
      err.textContent = errorWords(x);
      err.dataset.code = x.code || '';
    } finally {
      sending = false;
    }
  };
  onAccount(showForm);
  showForm();
}

if (document.body.classList.contains('tournaments-page')) {
  initChrome(() => {
    repaintAccount();
    render();
    syncForm();
  });
  applyStatic();
  initForm();
  initAccount().then(showForm);
  load();
  // The lists move slowly (a start, an end): read again every 30 s while the page is open.
  setInterval(() => {
    if (!document.hidden) load();
  }, 30000);
}
