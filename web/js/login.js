// Sign in / sign up (/login): the server's answer, or its reason in the page's language. A guest
// who signs up keeps the guest's games and ratings (the server turns the guest into the account).

import { api, session, account } from './api.js';
import { t, applyStatic } from './i18n.js';
import { initChrome, say } from './ui.js';
import { initAccount } from './account.js';

const $ = (s) => document.querySelector(s);
const form = $('#auth');
const params = new URLSearchParams(location.search);
let mode = params.get('mode') === 'signup' ? 'signup' : 'signin';

/**
 * Where to go afterwards: a page of this site only. `next` is resolved as the browser would
 * resolve it (it drops tabs and newlines and reads `\` as `/`, so `/%09/evil.example` is another
 * site) and kept only when it stays on our origin and is not the login page itself.
 */
function nextPath() {
  let u;
  try {
    u = new URL(params.get('next') || '/', location.origin);
  } catch {
    return '/';
  }
  if (u.origin !== location.origin || u.pathname.startsWith('/login')) return '/';
  return u.pathname + u.search + u.hash;
}

function setMode(m) {
  mode = m;
  $('#tab-signin').setAttribute('aria-selected', String(m === 'signin'));
  $('#tab-signup').setAttribute('aria-selected', String(m === 'signup'));
  for (const el of ['#title', '#auth-h', '#auth-btn']) $(el).dataset.i18n = m === 'signup' ? 'auth.signup' : 'auth.signin';
  $('#name-hint').hidden = m !== 'signup';
  $('#pw-hint').hidden = m !== 'signup';
  $('#guest-note').hidden = !(m === 'signup' && account()?.guest);
  $('#forgot-link').hidden = m === 'signup';
  form.password.autocomplete = m === 'signup' ? 'new-password' : 'current-password';
  form.dataset.mode = m;
  $('#auth-error').textContent = '';
  applyStatic();
  document.title = `${t(m === 'signup' ? 'auth.signup' : 'auth.signin')} — baduk`;
}

async function submit(e) {
  e.preventDefault();
  const err = $('#auth-error');
  err.textContent = '';
  const username = form.username.value.trim();
  const password = form.password.value;
  if (!username || !password) {
    err.textContent = t('auth.fill');
    (username ? form.password : form.username).focus();
    return;
  }
  const btn = $('#auth-btn');
  btn.disabled = true;
  try {
    await session(); // a guest's session first: signing up turns that guest into the account
    if (mode === 'signup') await api.signup(username, password);
    else await api.login(username, password);
    location.href = nextPath();
  } catch (ex) {
    err.textContent = ex.status ? say(ex.code, ex.args, ex.message) : t('error.network');
    err.dataset.code = ex.code || '';
    (ex.code === 'auth.name' || ex.code === 'auth.taken' ? form.username : form.password).focus();
  } finally {
    btn.disabled = false;
  }
}

initChrome(() => setMode(mode));
$('#tab-signin').onclick = () => setMode('signin');
$('#tab-signup').onclick = () => setMode('signup');
form.onsubmit = submit;
setMode(mode);
initAccount().then(() => setMode(mode));
form.username.focus();
