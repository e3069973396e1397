// A challenge's page (/c/{id}): who challenges whom, the settings and one's colour, Accept for a
// signed-in visitor it is open to (a sign-in link for anyone else), its link and Cancel for its
// challenger, and where it stands once it is no longer open. An accepted challenge takes its
// players to the game.

import { api, account, eventStream } from './api.js';
import { t, applyStatic } from './i18n.js';
import { h, initChrome, copyButton, notFoundView } from './ui.js';
import { initAccount, repaintAccount, playerLink, kindOf, ratingShort, botMark } from './account.js';
import { settingsWords, colourWords, reasonWords, challengeError, acceptAndGo, isChallenger, eventOf, fresh, goToGame } from './challenges.js';

const $ = (s) => document.querySelector(s);
const id = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] || '');
let ch = null;
let stream = null;

const sameName = (a, b) => String(a || '').toLowerCase() === String(b || '').toLowerCase();

function person(p) {
  const r = ratingShort(kindOf(ch.settings?.game || 'go', ch.settings?.size) || 'go19', p);
  return [playerLink(p.name), r ? ` (${r})` : '', p.bot ? botMark() : ''];
}

/** Whether the visitor may accept: signed in with a name, not the challenger, the addressee (or anyone for an open one). */
function mayAccept(me) {
  if (!me || me.guest || isChallenger(ch, me)) return false;
  return !ch.to || sameName(ch.to.name, me.name);
}

function render() {
  if (!ch) return;
  const me = account();
  document.body.dataset.status = ch.status;
  $('#ch-who').replaceChildren(...person(ch.challenger), ' → ', ...(ch.to ? person(ch.to) : [t('ch.anyone')]));
  $('#ch-settings').textContent = settingsWords(ch.settings);
  $('#ch-colour').textContent = [colourWords(ch, me), ch.rematch_of ? t('ch.rematch') : ''].filter(Boolean).join(' · ');
  const status = $('#ch-status');
  const acts = $('#ch-actions');
  acts.replaceChildren();
  if (ch.status === 'open') {
    status.textContent = t('ch.status.open');
    if (isChallenger(ch, me)) {
      const url = location.href.split('#')[0];
      acts.append(h('label', { class: 'invite' }, h('span', {}, t('ch.link')), h('input', { readonly: '', value: url }), copyButton(url)));
      const cancel = h('button', { type: 'button', 'data-cancel-challenge': ch.id }, t('btn.cancel'));
      cancel.onclick = async () => {
        try {
          const r = await api.cancelChallenge(ch.id);
          ch = r?.challenge || { ...ch, status: 'canceled' };
        } catch (e) {
          $('#ch-error').textContent = challengeError(e);
        }
        render();
      };
      acts.append(cancel);
    } else if (mayAccept(me)) {
      const accept = h('button', { type: 'button', class: 'primary big', id: 'accept-challenge', 'data-accept-challenge': ch.id }, t('ch.accept'));
      accept.onclick = () => {
        accept.disabled = true;
        acceptAndGo(ch.id, (msg) => {
          $('#ch-error').textContent = msg;
          load();
        });
      };
      acts.append(accept);
    } else if (!me || me.guest) {
      const next = encodeURIComponent(location.pathname);
      acts.append(
        h('a', { class: 'button primary', href: `/login?next=${next}`, 'data-auth': 'signin-accept' }, t('ch.signin_accept')),
        h('a', { class: 'button', href: `/login?mode=signup&next=${next}` }, t('auth.signup')),
      );
    } else status.textContent = t('ch.not_yours');
  } else {
    status.replaceChildren(h('strong', {}, t(`ch.status.${ch.status}`)), ' ', ...(ch.status === 'declined' ? reasonWords(ch.reason) : []));
    if (ch.game) acts.append(h('a', { class: 'button primary', href: `/g/${encodeURIComponent(ch.game)}`, 'data-game': ch.game }, t('ch.to_game')));
  }
  document.body.dataset.ready = '1';
}

function notFound() {
  notFoundView(t('ch.notfound'), t('ch.notfound.body', id));
}

async function load() {
  try {
    ch = (await api.getChallenge(id)).challenge;
    render();
    follow();
  } catch (e) {
    if (e.status === 404 || e.status === 400) notFound();
    else $('#ch-error').textContent = challengeError(e);
  }
}

/** While it is open and the visitor is its challenger: its answer, live (the game when accepted). */
function follow() {
  const me = account();
  if (stream || ch.status !== 'open' || !isChallenger(ch, me)) return;
  const took = (c) => {
    ch = c;
    if (ch.status === 'accepted' && ch.game) goToGame(ch.game);
    render();
  };
  stream = eventStream({
    onEvent: async (msg) => {
      const ev = eventOf(msg);
      if (ev.challenge?.id === id) took(ev.challenge);
      else if (ev.type === 'gameStart') took(await fresh(ch));
    },
    // An answer given while the stream was not open yet is read once it is.
    onStatus: async (s) => {
      if (s === 'open') took(await fresh(ch));
    },
  });
}

initChrome(() => {
  applyStatic();
  repaintAccount();
  if (ch) render();
  else if (!$('#notfound').hidden) notFound();
});
applyStatic();
if (!id) notFound();
else initAccount().then(load);
