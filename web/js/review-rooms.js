// The lobby's list of public review rooms: each room's title, owner and watchers, and a link in.
// The lobby's socket brings the list when it changes (lobby.js passes it on); `GET
// /api/review-rooms` reads it when the lobby opens and every 30 seconds while it is seen.

import { call } from './api.js';
import { t } from './i18n.js';
import { h, put } from './ui.js';

const col = document.querySelectorAll('main.lobby .col')[1] || document.querySelector('main.lobby');
const head = h('h2', { id: 'rooms-h' });
const list = h('ul', { class: 'gamelist roomlist', id: 'review-rooms', 'aria-live': 'polite' });
const card = h('section', { class: 'card rooms-card', id: 'rooms-card', 'aria-labelledby': 'rooms-h' }, head, list);
let rooms = [];

function paint() {
  head.textContent = t('rv.rooms');
  const items = rooms.map((r) =>
    h(
      'li',
      { 'data-room': r.id },
      h('span', { class: 'gicon go', 'aria-hidden': 'true' }, '碁'),
      h('div', {}, h('div', { class: 'gtitle', 'data-user': '', translate: 'no' }, r.title || t('rv.room')), h('div', { class: 'gmeta' }, t('rv.rooms_meta', r.owner || t('rv.nobody'), r.watchers ?? 0))),
      h('div', { class: 'gact' }, h('a', { class: 'button small', href: `/r/${encodeURIComponent(r.id)}`, 'data-join-room': r.id }, t('rv.join'))),
    ),
  );
  put(list, ...(items.length ? items : [h('li', { class: 'empty' }, t('rv.rooms_empty'))]));
}

async function load() {
  try {
    rooms = (await call('GET', '/api/review-rooms')).rooms || [];
  } catch {
    rooms = [];
  }
  paint();
}

if (col) {
  const games = col.querySelector('.games-card');
  if (games) games.after(card);
  else col.append(card);
  load();
  setInterval(() => {
    if (!document.hidden) load();
  }, 30000);
  document.addEventListener('baduk:review-rooms', (e) => {
    rooms = e.detail;
    paint();
  });
  document.getElementById('lang')?.addEventListener('click', () => setTimeout(paint));
}
