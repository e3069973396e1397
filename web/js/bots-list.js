// The lobby's list of bot accounts (GET /api/bots): online first, each marked BOT, with its
// ratings, the sizes it accepts and a Challenge button that sends the "New game" form's settings
// (POST /api/challenges, docs/api.md "Challenges"); a refusal is shown by its code.

import { api } from './api.js';
import { t } from './i18n.js';
import { h, say } from './ui.js';
import { playerLink, botMark, ratingShort, KINDS } from './account.js';

let shown = null;

/** Loads and paints the list (`force`: repaint even when nothing changed, after a language switch). */
export async function loadBots(settings, force = false) {
  const list = document.querySelector('#bots');
  if (!list) return;
  let r;
  try {
    r = await api.bots();
  } catch (e) {
    shown = null;
    list.replaceChildren(h('li', { class: 'empty' }, e.status ? say(e.code, e.args, e.message) : t('error.network')));
    return;
  }
  const bots = r.bots || [];
  const key = JSON.stringify(bots);
  // Unchanged: left alone, so a challenge's answer under its button stays.
  if (!force && key === shown) return;
  shown = key;
  list.replaceChildren(...bots.map((b) => item(b, settings)));
  if (!bots.length) list.append(h('li', { class: 'empty' }, t('lobby.bots.none')));
}

function item(b, settings) {
  const ranks = KINDS.filter((k) => b.ratings?.[k]?.games).map((k) => `${t(`kind.${k}.short`)} ${ratingShort(k, b.ratings[k])}`);
  const notes = [...ranks];
  if (Array.isArray(b.accepts?.sizes)) notes.push(t('bots.sizes', b.accepts.sizes.map((n) => `${n}×${n}`).join(', ')));
  if (b.playing) notes.push(t('bots.playing', b.playing));
  const status = h('span', { class: `badge ${b.online ? 'online' : 'offline'}`, 'data-bot-online': b.online ? '1' : '0' }, t(b.online ? 'bots.online' : 'bots.offline'));
  const msg = h('span', { class: 'bot-msg', role: 'status' });
  const btn = h('button', { type: 'button', class: 'small', 'data-challenge': b.name, 'aria-label': t('bots.challenge.label', b.name) }, t('bots.challenge'));
  btn.onclick = async () => {
    btn.disabled = true;
    msg.textContent = '';
    delete msg.dataset.error;
    try {
      const r = await api.challenge({ to: b.name, ...settings() });
      msg.textContent = t('bots.sent', b.name);
      if (r?.challenge?.id) msg.dataset.challenge = r.challenge.id;
    } catch (e) {
      msg.dataset.error = e.code || String(e.status || 'network');
      msg.textContent = e.status ? say(e.code, e.args, e.message) : t('error.network');
    } finally {
      btn.disabled = false;
    }
  };
  return h('li', { 'data-bot': b.name }, playerLink(b.name), botMark(), status, notes.length ? h('small', {}, notes.join(' · ')) : '', btn, msg);
}
