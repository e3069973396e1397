// Challenges in the pages (docs/api.md, "Challenges"): the small form that makes one (a
// profile's "Challenge", the lobby's "Challenge by link"), a challenge's settings, colour and
// answer in words, the refusals by their code, and what happens when one is accepted.

import { api } from './api.js';
import { t, has, lang } from './i18n.js';
import { USER } from './account.js';
import { h, clockWords, ruleName, say } from './ui.js';

/** The rule sets' presets, in the order the forms list them. */
export const RULES = ['korean', 'japanese', 'chinese', 'aga', 'ing', 'nz', 'tromp-taylor', 'jk', 'kang'];

/** The reasons a player may give for declining (the server's `reason.code`). */
export const DECLINE_REASONS = ['generic', 'later', 'too_fast', 'too_slow', 'time_control', 'rated', 'casual', 'size', 'rules'];

const CLOCKS = ['none', 'byo-yomi', 'absolute', 'canadian', 'fischer'];

/** The clock a form's clock fields say (`clock`, `main` in minutes, `periods`, `stones`, `period`, `increment`). */
export function clockString(form) {
  const c = form.clock.value;
  const main = Math.round(parseFloat(form.main.value || '0') * 60);
  switch (c) {
    case 'absolute':
      return `absolute:${main}`;
    case 'byo-yomi':
      return `byo-yomi:${main}:${form.periods.value}:${form.period.value}`;
    case 'canadian':
      return `canadian:${main}:${form.stones.value}:${form.period.value}`;
    case 'fischer':
      return `fischer:${main}:${form.increment.value}`;
    case 'ing':
      return `ing:${main}`;
    case 'correspondence':
      return `correspondence:${form.days.value}:${form.max_days.value}`;
    default:
      return 'none';
  }
}

/** Shows the clock fields (`.clockf`, `data-for` the clocks using them) the chosen clock uses. */
export function syncClockFields(form) {
  const clock = form.clock.value;
  for (const el of form.querySelectorAll('.clockf')) el.hidden = !el.dataset.for.split(' ').includes(clock);
}

const field = (key, control, attrs = {}) => h('label', { class: 'field', ...attrs }, h('span', { 'data-i18n': key }, t(key)), control);
const option = (value, key, selected = false) => h('option', { value, ...(key ? { 'data-i18n': key } : {}), ...(selected ? { selected: true } : {}) }, key ? t(key) : value);

/**
 * The challenge form: size, rules, komi, handicap, clock, rated, colour (Go; the lobby's New-game
 * fields by the same names), and a button. `onSubmit(settings)` gets what `POST /api/challenges`
 * takes beside `to`.
 */
export function challengeForm({ id, submitKey = 'ch.send', onSubmit, guest = false }) {
  const clockFields = [
    ['absolute byo-yomi canadian fischer', 'form.main', 'main', { min: 0, step: 0.5, value: 10 }],
    ['byo-yomi', 'form.periods', 'periods', { min: 1, value: 5 }],
    ['canadian', 'form.stones', 'stones', { min: 1, value: 10 }],
    ['byo-yomi canadian', 'form.period', 'period', { min: 1, value: 30 }],
    ['fischer', 'form.increment', 'increment', { min: 0, value: 10 }],
  ].map(([uses, key, name, a]) => field(key, h('input', { name, type: 'number', ...a }), { class: 'field clockf', 'data-for': uses }));
  const form = h(
    'form',
    { class: 'challenge-form', id, novalidate: true },
    h('div', { class: 'form-error', role: 'alert', 'data-challenge-error': '' }),
    h(
      'div',
      { class: 'inline' },
      field('form.size', h('select', { name: 'size' }, ...[9, 13, 19].map((n) => h('option', { value: n, ...(n === 19 ? { selected: true } : {}) }, `${n}×${n}`)))),
      field('form.rules', h('select', { name: 'preset' }, ...RULES.map((r) => option(r, `rules.${r}`, r === 'japanese')))),
    ),
    h(
      'div',
      { class: 'inline' },
      field('form.komi', h('input', { name: 'komi', type: 'number', step: 0.5, min: -150, max: 150, 'data-i18n-placeholder': 'form.komi.hint', placeholder: t('form.komi.hint') })),
      field('form.handicap', h('select', { name: 'handicap' }, ...[0, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => h('option', { value: n }, String(n))))),
    ),
    h('div', { class: 'inline' }, field('form.clock', h('select', { name: 'clock' }, ...CLOCKS.map((c) => option(c, `form.clock.${c}`, c === 'byo-yomi')))), ...clockFields),
    field('ch.colour', h('select', { name: 'colour' }, option('random', 'ch.colour.random', true), option('black', 'ch.colour.black'), option('white', 'ch.colour.white'))),
    h('label', { class: 'check', hidden: guest }, h('input', { type: 'checkbox', name: 'rated' }), ' ', h('span', { 'data-i18n': 'form.rated' }, t('form.rated'))),
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary', 'data-i18n': submitKey }, t(submitKey))),
  );
  form.clock.onchange = () => syncClockFields(form);
  syncClockFields(form);
  form.onsubmit = (e) => {
    e.preventDefault();
    onSubmit(formSettings(form));
  };
  return form;
}

/** The settings of the challenge form (or of the lobby's New-game form: `size` may be custom there). */
export function formSettings(form) {
  const size = form.size.value === 'custom' ? [parseInt(form.cols.value, 10), parseInt(form.rows.value, 10)] : parseInt(form.size.value, 10);
  const s = { game: 'go', size, rules: form.preset.value, handicap: parseInt(form.handicap.value, 10) || 0, clock: clockString(form), rated: !!form.rated?.checked };
  if (form.colour) s.colour = form.colour.value;
  if (form.komi.value.trim() !== '') s.komi = parseFloat(form.komi.value);
  return s;
}

function sizeWords(size) {
  if (Array.isArray(size)) return size[0] === size[1] ? `${size[0]}×${size[0]}` : `${size[0]}×${size[1]}`;
  if (size && typeof size === 'object') return `${size.cols}×${size.rows}`;
  return size ? `${size}×${size}` : '';
}

/** A challenge's settings in a line: `Go 19×19 · Japanese · Komi 6.5 · byo-yomi … · Rated`. */
export function settingsWords(s = {}) {
  const go = (s.game || 'go') === 'go';
  return [
    go ? `${t('game.go')} ${sizeWords(s.size)}` : t('game.wallgo'),
    go && s.rules ? ruleName(s.rules) : '',
    go && s.komi !== null && s.komi !== undefined ? t('komi', s.komi) : '',
    s.handicap ? t('handicap', s.handicap) : '',
    go ? clockWords(s.clock) || t('form.clock.none') : '',
    s.rated ? t('rated') : t('unrated'),
  ]
    .filter(Boolean)
    .join(' · ');
}

const sameName = (a, b) => !!a && !!b && String(a).toLowerCase() === String(b).toLowerCase();

/** Whether `me` (an account) made the challenge. */
export const isChallenger = (ch, me) => sameName(ch?.challenger?.name, me?.name);

/** The colour `me` plays in a challenge, in words (the challenge's `colour` is the challenger's). */
export function colourWords(ch, me) {
  const c = ch.colour || 'random';
  if (c === 'random') return t('ch.colour.drawn');
  if (isChallenger(ch, me)) return t('ch.you_play', t(`color.${c}`));
  if (me && (ch.to ? sameName(ch.to.name, me.name) : true)) return t('ch.you_play', t(`color.${c === 'black' ? 'white' : 'black'}`));
  return t('ch.they_play', t(`color.${c}`));
}

/** A reason given for a decline, in the page's language, and the decliner's own words (user text) after it. */
export function reasonWords(reason) {
  if (!reason) return [];
  const code = reason.code || 'generic';
  const said = has(`ch.reason.${code}`) ? t(`ch.reason.${code}`) : code;
  return [said, reason.text ? h('span', USER, ` — ${reason.text}`) : ''];
}

/** A date-time in the page's language (a cooldown's end). */
function timeText(ms) {
  const d = new Date(Number(ms));
  if (Number.isNaN(d.getTime())) return String(ms);
  return new Intl.DateTimeFormat(lang() === 'ko' ? 'ko-KR' : 'en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(d);
}

/** A refusal of a challenge (or of its answer) in the page's language, by its code. */
export function challengeError(e) {
  if (!e?.status) return t('error.network');
  const a = { ...(e.args || {}) };
  if (e.code === 'challenge.cooldown' && a.until !== undefined) a.until = timeText(a.until);
  if (e.code === 'challenge.not_accepted' && a.what) a.what = t(`ch.what.${a.what}`);
  return say(e.code, a, e.message);
}

let going = null;

/**
 * Opens the game a challenge made, once: its acceptance and the game's start may both say so,
 * and a second navigation would abort the first.
 */
export function goToGame(game) {
  if (!game || going) return;
  going = game;
  location.href = `/g/${encodeURIComponent(game)}`;
}

/** Accepts a challenge and goes to its game; a refusal goes to `fail(message)`. */
export async function acceptAndGo(id, fail) {
  try {
    const r = await api.acceptChallenge(id);
    goToGame(r.game || r.challenge?.game);
  } catch (e) {
    fail(challengeError(e));
  }
}

/** A challenge as an event carries it, whichever way it came (the lobby's socket may wrap it). */
export function eventOf(msg) {
  return msg && msg.type === 'event' && msg.event ? msg.event : msg;
}

/**
 * Whether one of the challenges `ids` (made here) has been accepted: asked of the server when a
 * `gameStart` comes (the event names the game, not the challenge). Resolves to its game or null.
 */
export async function acceptedGame(ids) {
  for (const id of ids) {
    try {
      const r = await api.getChallenge(id);
      if (r.challenge?.status === 'accepted' && r.challenge.game) return r.challenge.game;
    } catch {
      /* gone or unreachable: the next */
    }
  }
  return null;
}

/** A challenge as the server has it now (the one given where it cannot be read). */
export async function fresh(ch) {
  try {
    return (await api.getChallenge(ch.id)).challenge || ch;
  } catch {
    return ch;
  }
}
