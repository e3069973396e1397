// The game page's ways into a review room (docs/api.md, "Review rooms"): "Review together" on a
// finished Go game (both players land in the same room), "Join the review" when the game's
// socket says a room was opened, and the live game's review mode of an unrated game between two
// people — offer it, accept the other's offer, and while the game is paused, open the room or
// resume the game. The game page (game.js) draws the game; this file only adds these buttons.

import { call } from './api.js';
import { t } from './i18n.js';
import { h, put, say } from './ui.js';

const gameId = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] || '');
const box = document.getElementById('review-room-box');
let offered = null; // the room the game's socket announced
let message = '';

/** Opens (or finds) the game's review room and goes there. */
async function openRoom(button) {
  button.disabled = true;
  try {
    const r = await call('POST', `/api/games/${encodeURIComponent(gameId)}/review`);
    location.href = `/r/${encodeURIComponent(r.id)}`;
  } catch (e) {
    message = say(e.code, e.args, e.message);
    button.disabled = false;
    render();
  }
}

function button(id, label, onclick, cls = 'small') {
  const b = h('button', { type: 'button', class: cls, id }, label);
  b.onclick = () => onclick(b);
  return b;
}

/** Review mode's part for a player: offer, accept, open the room, resume. */
function reviewMode(st, mine) {
  const rm = st.review_mode;
  const bots = Object.values(st.seats || {}).some((s) => s.kind === 'bot');
  if (!rm || st.rated || bots || st.status === 'finished') return [];
  const act = (action) => window.__baduk?.act?.(action, mine[0]);
  if (rm.paused) {
    const parts = [h('p', { class: 'review-banner', id: 'review-paused' }, t('rv.mode_paused'))];
    if (mine.length) parts.push(h('div', { class: 'row' }, button('review-open-room', t('rv.mode_open'), openRoom, 'small primary'), button('review-resume', t('rv.mode_resume'), () => act('resume'))));
    return parts;
  }
  if (!mine.length) return [];
  if (rm.offered_by && mine.includes(rm.offered_by)) return [h('p', { class: 'hint', id: 'review-offered' }, t('rv.mode_offered_you'))];
  if (rm.offered_by) return [h('p', { class: 'hint', id: 'review-offered' }, t('rv.mode_offered_other')), h('div', { class: 'row' }, button('review-accept', t('rv.mode_accept'), () => act('review'), 'small primary'), button('review-decline', t('rv.mode_decline'), () => act('review-decline')))];
  // Offered during play only (not while the dead stones are marked).
  if (st.phase !== 'play') return [];
  return [button('review-mode', t('rv.mode'), () => act('review'))];
}

function render() {
  const st = window.__baduk?.page?.state;
  if (!box || !st || st.game !== 'go') return;
  const mine = window.__baduk.mySeats?.() || [];
  const parts = [];
  if (st.status === 'finished') parts.push(button('game-review-together', t('rv.game_together'), openRoom));
  if (offered) parts.push(h('p', { class: 'hint' }, t('rv.game_offered')), h('a', { class: 'button small primary', id: 'join-review', href: `/r/${encodeURIComponent(offered)}` }, t('rv.game_join')));
  parts.push(...reviewMode(st, mine));
  if (message) parts.push(h('p', { class: 'why' }, message));
  put(box, ...parts);
}

document.addEventListener('baduk:render', render);
document.addEventListener('baduk:review', (e) => {
  offered = e.detail?.id ?? null;
  render();
});
