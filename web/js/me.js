// One's own account (/me): API tokens for bots and scripts (made with the scopes chosen, shown
// once, listed with their scopes, revoked) and "sign out everywhere".

import { api } from './api.js';
import { t, lang, applyStatic } from './i18n.js';
import { h, initChrome, say, copyButton } from './ui.js';
import { initAccount, repaintAccount, playerLink } from './account.js';
import { mountAway, repaintAway } from './away.js';
import { initMail, paintMail } from './me-mail.js';

const $ = (s) => document.querySelector(s);
let me = null;
let tokens = [];

function when(v) {
  if (!v) return '';
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? String(v) : new Intl.DateTimeFormat(lang() === 'ko' ? 'ko-KR' : 'en', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }).format(d);
}

function fail(e) {
  $('#me-error').textContent = e.status ? say(e.code, e.args, e.message) : t('error.network');
}

function paint() {
  $('#title').textContent = t('me.title');
  document.title = `${t('me.title')} — baduk`;
  const who = $('#me-who');
  who.replaceChildren();
  if (!me) {
    who.append(t('me.none'), ' ', h('a', { href: '/login?next=/me' }, t('auth.signin')));
  } else if (me.guest) {
    who.append(t('me.guest', me.name), ' ', h('a', { href: '/login?mode=signup&next=/me', 'data-auth': 'signup' }, t('auth.signup')));
  } else {
    who.append(t('me.signed_in'), ' ', playerLink(me.name), me.created_at ? ` · ${t('profile.since', when(me.created_at))}` : '');
  }
  $('#tokens-card').hidden = !me || me.guest;
  // The `bot` scope is a bot account's (POST /api/account/bot makes one): offered to bots only.
  const botScope = document.querySelector('#token-scopes input[value=bot]');
  if (botScope) {
    botScope.closest('label').hidden = !me?.bot;
    if (!me?.bot) botScope.checked = false;
  }
  const list = $('#tokens');
  list.replaceChildren(
    ...tokens.map((tk) => {
      const b = h('button', { type: 'button', class: 'small danger', 'data-revoke': tk.id }, t('me.token.revoke'));
      b.onclick = async () => {
        b.disabled = true;
        try {
          await api.revokeToken(tk.id);
          await loadTokens();
        } catch (e) {
          b.disabled = false;
          fail(e);
        }
      };
      const scopes = h('small', { class: 'scopes', 'data-scopes': (tk.scopes || []).join(',') }, ` · ${t('me.token.scoped', (tk.scopes || []).join(', '))}`);
      return h('li', { 'data-token': tk.id }, h('div', {}, h('strong', {}, tk.label || '—'), h('small', {}, ` ${t('me.token.made', when(tk.created_at))}`), scopes), b);
    }),
  );
  if (!tokens.length) list.append(h('li', { class: 'empty' }, t('me.token.none')));
}

async function loadTokens() {
  if (!me || me.guest) return paint();
  try {
    tokens = (await api.tokens()).tokens || [];
  } catch (e) {
    fail(e);
  }
  paint();
}

$('#new-token').onsubmit = async (e) => {
  e.preventDefault();
  $('#me-error').textContent = '';
  const form = e.target;
  const label = form.label.value.trim();
  if (!label) {
    form.label.focus();
    return;
  }
  const scopes = [...form.querySelectorAll('input[name=scope]:checked')].map((c) => c.value);
  if (!scopes.length) {
    $('#me-error').textContent = t('me.token.scopes_none');
    form.querySelector('input[name=scope]').focus();
    return;
  }
  try {
    const r = await api.newToken(label, scopes);
    form.label.value = '';
    // Shown once: the server keeps only its hash.
    const box = $('#fresh-token');
    box.hidden = false;
    box.replaceChildren(
      h('strong', {}, t('me.token.once')),
      h('label', { class: 'invite' }, h('span', {}, r.label || label), h('input', { readonly: '', value: r.token, 'data-fresh-token': '', 'aria-label': t('me.tokens') }), copyButton(r.token)),
    );
    box.querySelector('input').select();
    await loadTokens();
  } catch (ex) {
    fail(ex);
  }
};

$('#logout-all').onclick = async () => {
  const b = $('#logout-all');
  if (b.dataset.armed !== '1') {
    b.dataset.armed = '1';
    b.textContent = t('me.logout_all.confirm');
    setTimeout(() => {
      b.dataset.armed = '';
      b.textContent = t('me.logout_all');
    }, 4000);
    return;
  }
  try {
    await api.logoutAll();
    location.href = '/';
  } catch (e) {
    fail(e);
  }
};

initChrome(() => {
  applyStatic();
  repaintAccount();
  paint();
  repaintAway();
  paintMail();
});
applyStatic();
initAccount().then((a) => {
  me = a;
  loadTokens();
  if (a) mountAway($('#main'));
  initMail(a);
});
