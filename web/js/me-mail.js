// The email card of the account page (/me): the address and whether it is verified, the
// notifications chosen and the daily digest; with email off on the server, a line saying so.

import { call } from './api.js';
import { t } from './i18n.js';
import { say } from './ui.js';

const $ = (s) => document.querySelector(s);
let state = null; // GET /api/mail
let note = null; // [key, arg] of the last success

function fail(e) {
  note = null;
  const box = $('#mail-error');
  box.textContent = e.status ? say(e.code, e.args, e.message) : t('error.network');
  box.dataset.code = e.code || '';
  paintMail();
}

function ok(data, key, arg) {
  state = { ...state, ...data };
  note = key ? [key, arg] : null;
  $('#mail-error').textContent = '';
  paintMail();
}

/** Paints the card from the last answer (again on a change of language). */
export function paintMail() {
  const card = $('#mail-card');
  if (!card) return;
  card.hidden = !state || state.email === undefined;
  if (card.hidden) return;
  $('#mail-off').hidden = state.enabled !== false;
  $('#mail-form').hidden = state.enabled === false && !state.email;
  const form = $('#mail-form');
  if (document.activeElement !== form.email) form.email.value = state.email || '';
  const status = $('#mail-verified');
  status.textContent = state.email ? t(state.verified ? 'mail.verified' : 'mail.unverified') : '';
  status.dataset.verified = state.verified ? '1' : '0';
  $('#mail-remove').hidden = !state.email;
  $('#mail-note').textContent = note ? t(note[0], note[1] === undefined ? '' : note[1]) : '';
  const p = state.prefs || {};
  const prefs = $('#mail-prefs');
  prefs.hidden = state.enabled === false;
  const sel = prefs.your_move;
  for (const o of sel.options) o.textContent = o.value === '' ? t('mail.your_move.never') : o.value;
  sel.value = p.your_move == null ? '' : String(p.your_move);
  if (sel.value === '' && p.your_move != null) {
    sel.append(new Option(String(p.your_move), String(p.your_move)));
    sel.value = String(p.your_move);
  }
  for (const k of ['game_start', 'clock_low', 'challenge', 'digest']) prefs[k].checked = !!p[k];
}

/** Loads the card for the signed-in account `me` (a named account; guests have no email). */
export async function initMail(me) {
  if (!me || me.guest) return;
  try {
    state = await call('GET', '/api/mail');
  } catch (e) {
    return fail(e);
  }
  paintMail();
}

$('#mail-form').onsubmit = async (e) => {
  e.preventDefault();
  const email = e.target.email.value.trim();
  if (!email) return e.target.email.focus();
  try {
    ok(await call('PUT', '/api/mail/email', { email }), 'mail.sent', email);
  } catch (ex) {
    fail(ex);
  }
};

$('#mail-remove').onclick = async () => {
  try {
    ok(await call('DELETE', '/api/mail/email'));
  } catch (ex) {
    fail(ex);
  }
};

$('#mail-prefs').onsubmit = async (e) => {
  e.preventDefault();
  const f = e.target;
  const body = {
    your_move: f.your_move.value === '' ? null : Number(f.your_move.value),
    game_start: f.game_start.checked,
    clock_low: f.clock_low.checked,
    challenge: f.challenge.checked,
    digest: f.digest.checked,
  };
  try {
    ok(await call('PUT', '/api/mail/prefs', body), 'mail.prefs.saved');
  } catch (ex) {
    fail(ex);
  }
};
