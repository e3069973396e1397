// The Tournaments page (/tournaments): upcoming, running and finished events, each a link to its
// page; also the words both tournament pages share (format, status, settings, dates).

import './tournament-strings.js';
import { call } from './api.js';
import { initAccount, repaintAccount } from './account.js';
import { t, lang, applyStatic } from './i18n.js';
import { h, put, initChrome, clockWords, ruleName, say } from './ui.js';

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

if (document.body.classList.contains('tournaments-page')) {
  initChrome(() => {
    repaintAccount();
    render();
  });
  applyStatic();
  initAccount();
  load();
  // The lists move slowly (a start, an end): read again every 30 s while the page is open.
  setInterval(() => {
    if (!document.hidden) load();
  }, 30000);
}
