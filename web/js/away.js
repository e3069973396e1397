// One's time zone and vacation on /me (docs/api.md, "Vacation and time zone"): correspondence
// clocks stop on the account's Saturdays and Sundays (in this time zone, where a game pauses
// weekends) and while it is on vacation; the bank accrues a day a week, at most 30.

import { api } from './api.js';
import { t, lang } from './i18n.js';
import { h, say } from './ui.js';
import { daysHours } from './clock.js';

let box = null;
let v = null;
let error = '';

/** The browser's offset from UTC, in minutes east. */
export function browserTz() {
  return -new Date().getTimezoneOffset();
}

/** `UTC+09:00` for 540. */
export function tzLabel(m) {
  const a = Math.abs(m);
  return `UTC${m < 0 ? '−' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

function when(ms) {
  return new Intl.DateTimeFormat(lang() === 'ko' ? 'ko-KR' : 'en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(ms));
}

async function act(f) {
  error = '';
  try {
    v = await f();
  } catch (e) {
    error = e.status ? say(e.code, e.args, e.message) : t('error.network');
  }
  repaintAway();
}

/** Draws the card again (after a change or in the other language). */
export function repaintAway() {
  if (!box || !v) return;
  const zones = [];
  for (let m = -720; m <= 840; m += 15) zones.push(m);
  const browser = browserTz();
  // Prefilled from the browser while the account has never said (UTC is the default).
  const chosen = v.tz === 0 && browser !== 0 ? browser : v.tz;
  const select = h('select', { name: 'tz', 'aria-label': t('away.tz') }, ...zones.map((m) => h('option', { value: String(m), ...(m === chosen ? { selected: true } : {}) }, tzLabel(m))));
  const zoneName = Intl.DateTimeFormat().resolvedOptions().timeZone || '';
  const save = h('button', { type: 'button', class: 'small', 'data-save-tz': '' }, t('away.tz.save'));
  save.onclick = () => act(() => api.setTimezone(parseInt(select.value, 10)));
  const status = v.on ? t('away.on', when(v.until)) : t('away.off');
  const toggle = h('button', { type: 'button', class: v.on ? 'small danger' : 'small primary', 'data-vacation-toggle': v.on ? 'off' : 'on' }, v.on ? t('away.stop') : t('away.start'));
  toggle.disabled = !v.on && v.bank_ms < v.min_ms;
  toggle.onclick = () => act(() => api.setVacation(!v.on));
  box.replaceChildren(
    h('h2', { id: 'away-h' }, t('away.title')),
    h('p', { class: 'hint' }, t('away.hint')),
    h('div', { class: 'inline-form' }, h('label', { class: 'field' }, h('span', {}, t('away.tz')), select), save),
    h('p', { class: 'hint', 'data-tz': String(v.tz) }, t('away.tz.now', tzLabel(v.tz), zoneName ? `${zoneName} (${tzLabel(browser)})` : tzLabel(browser))),
    h('p', { 'data-vacation': v.on ? 'on' : 'off' }, status, ' · ', t('away.bank', daysHours(v.bank_ms))),
    toggle,
    h('div', { class: 'form-error', role: 'alert' }, error),
  );
}

/** Adds the time zone and vacation card to `main` (a signed-in account's page). */
export async function mountAway(main) {
  try {
    v = await api.vacation();
  } catch {
    return;
  }
  box = h('section', { class: 'card away', id: 'away-card', 'aria-labelledby': 'away-h' });
  main.append(box);
  repaintAway();
}
