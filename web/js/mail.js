// The pages of "forgot password" and of the links in mails: /forgot (asks for a reset link),
// /mail/verify, /mail/reset (a new password) and /mail/unsubscribe (one click: done on opening).
// The token is in the URL's fragment (never sent to the server but by these calls), and the
// calls go without the cookie: a link works in any browser, signed in or not.

import { ApiError } from './api.js';
import { t, applyStatic } from './i18n.js';
import { initChrome, say } from './ui.js';

const $ = (s) => document.querySelector(s);
const what = location.pathname === '/forgot' ? 'forgot' : location.pathname.split('/')[2] || '';
const token = location.hash.slice(1);
const TITLES = { forgot: 'forgot.title', reset: 'reset.title', verify: 'verify.title', unsubscribe: 'unsub.title' };
let done = null; // [key, arg] of the last success, repainted in the page's language

async function post(path, body) {
  let res;
  try {
    res = await fetch(path, { method: 'POST', credentials: 'omit', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, e.message || 'network error');
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || res.statusText, data && data.code, data && data.args);
  return data;
}

function fail(e) {
  const box = $('#mail-error');
  box.textContent = e.status ? say(e.code, e.args, e.message) : t('error.network');
  box.dataset.code = e.code || '';
}

function paint() {
  applyStatic();
  const title = t(TITLES[what] || 'mail.title');
  $('#title').textContent = title;
  $('#mail-h').textContent = title;
  document.title = `${title} — baduk`;
  if (done) $('#mail-status').textContent = t(done[0], done[1] === undefined ? '' : done[1]);
}

function succeed(key, arg) {
  done = [key, arg];
  $('#mail-error').textContent = '';
  paint();
}

async function start() {
  $('#forgot').hidden = what !== 'forgot';
  $('#reset').hidden = what !== 'reset' || !token;
  if (what === 'forgot') {
    // With email off the server sends no link: the page says so instead of the form.
    try {
      const r = await (await fetch('/api/mail', { credentials: 'omit' })).json();
      if (r && r.enabled === false) {
        $('#forgot').hidden = true;
        succeed('mail.off');
      }
    } catch {
      // The form stays; its answer will say what is wrong.
    }
    return;
  }
  if (!token) {
    $('#mail-error').textContent = t('mail.nolink');
    return;
  }
  if (what === 'verify') {
    succeed('verify.working');
    try {
      const r = await post('/api/mail/verify', { token });
      succeed('verify.done', r.email);
      $('#mail-next').hidden = false;
    } catch (e) {
      done = null;
      $('#mail-status').textContent = '';
      fail(e);
    }
  } else if (what === 'unsubscribe') {
    succeed('unsub.working');
    try {
      const r = await post(`/api/mail/unsubscribe/${encodeURIComponent(token)}`, {});
      succeed('unsub.done', t(`unsub.kind.${r.kind}`));
    } catch (e) {
      done = null;
      $('#mail-status').textContent = '';
      fail(e);
    }
  }
}

$('#forgot').onsubmit = async (e) => {
  e.preventDefault();
  const form = e.target;
  const email = form.email.value.trim();
  if (!email) return form.email.focus();
  $('#mail-error').textContent = '';
  form.querySelector('button').disabled = true;
  try {
    await post('/api/password/forgot', { email });
    succeed('forgot.sent');
  } catch (ex) {
    fail(ex);
  } finally {
    form.querySelector('button').disabled = false;
  }
};

$('#reset').onsubmit = async (e) => {
  e.preventDefault();
  const form = e.target;
  if (!form.password.value) return form.password.focus();
  $('#mail-error').textContent = '';
  form.querySelector('button').disabled = true;
  try {
    await post('/api/password/reset', { token, password: form.password.value });
    form.hidden = true;
    succeed('reset.done');
    $('#mail-next').hidden = false;
  } catch (ex) {
    fail(ex);
  } finally {
    form.querySelector('button').disabled = false;
  }
};

initChrome(paint);
paint();
start();
