// The lobby's "Challenges" panel: the challenges to this account (Accept; Decline with a reason)
// with their count as a badge, its own waiting ones (Cancel; an open one's link to copy) and
// the answers to them. Kept live by the account's events (the lobby's socket); accepting, or a
// challenge of ours being accepted, goes to the game.

import { api, account } from './api.js';
import { t } from './i18n.js';
import { h, copyButton } from './ui.js';
import { playerLink, kindOf, ratingShort, botMark } from './account.js';
import { DECLINE_REASONS, settingsWords, colourWords, reasonWords, challengeError, acceptAndGo, acceptedGame, isChallenger, eventOf, goToGame } from './challenges.js';

const EVENTS = new Set(['challenge', 'challengeAccepted', 'challengeCanceled', 'challengeDeclined', 'gameStart']);

/** A challenge's player in a few words: the name (a link), the rank for the game, BOT for a bot. */
function who(p, settings) {
  if (!p) return [t('ch.anyone')];
  const r = ratingShort(kindOf(settings?.game || 'go', settings?.size) || 'go19', p);
  return [playerLink(p.name), r ? ` (${r})` : '', p.bot ? botMark() : ''];
}

const linkOf = (ch) => `${location.origin}${ch.url || `/c/${encodeURIComponent(ch.id)}`}`;

export class ChallengePanel {
  constructor(card) {
    this.card = card;
    this.incoming = [];
    this.outgoing = [];
    this.answered = new Map(); // id → a challenge of ours declined or canceled, until dismissed
    this.picker = null; // the incoming challenge whose decline reasons are shown
    this.error = '';
  }

  /** The open challenges from the server (on load and whenever the live line comes back). */
  async load() {
    try {
      const r = await api.challenges();
      this.incoming = r.incoming || [];
      this.outgoing = r.outgoing || [];
      this.error = '';
    } catch (e) {
      // A guest or a signed-out visitor has none to list; anything else is said.
      if (e.status !== 401 && e.status !== 403) this.error = challengeError(e);
    }
    this.render();
  }

  /** Takes an event of the account's (a message of the lobby's socket); says whether it was one. */
  onEvent(msg) {
    const ev = eventOf(msg);
    // The lists whole: on the socket's connect, and after events were missed.
    if (ev?.type === 'challenges') {
      this.incoming = ev.incoming || [];
      this.outgoing = ev.outgoing || [];
      this.render();
      return true;
    }
    if (!ev || !EVENTS.has(ev.type)) return false;
    const ch = ev.challenge;
    if (ev.type === 'gameStart') {
      this.followAccepted();
      return true;
    }
    if (!ch?.id) return true;
    const mine = isChallenger(ch, account());
    this.incoming = this.incoming.filter((c) => c.id !== ch.id);
    this.outgoing = this.outgoing.filter((c) => c.id !== ch.id);
    const status = { challengeCanceled: 'canceled', challengeDeclined: 'declined', challengeAccepted: 'accepted' }[ev.type] || ch.status || 'open';
    if (status === 'open') (mine ? this.outgoing : this.incoming).push(ch);
    else if (status === 'accepted' && mine && ch.game) goToGame(ch.game);
    else if (mine && status === 'declined') this.answered.set(ch.id, { ...ch, status });
    if (this.picker === ch.id && status !== 'open') this.picker = null;
    this.render();
    return true;
  }

  /** A game of ours started: if one of our challenges made it, to the game. */
  async followAccepted() {
    if (!this.outgoing.length) return;
    const game = await acceptedGame(this.outgoing.map((c) => c.id));
    if (game) goToGame(game);
  }

  render() {
    const card = this.card;
    const n = this.incoming.length;
    // Shown while there is something in it (a profile is where a challenge starts).
    card.hidden = !n && !this.outgoing.length && !this.answered.size;
    const badge = card.querySelector('#challenge-count');
    badge.hidden = !n;
    badge.textContent = String(n);
    badge.setAttribute('aria-label', t('ch.count', n));
    card.dataset.incoming = String(n);
    const err = card.querySelector('#challenge-error');
    err.textContent = this.error;
    const inc = card.querySelector('#incoming');
    inc.replaceChildren(...this.incoming.map((c) => this.incomingItem(c)));
    if (!n) inc.append(h('li', { class: 'empty' }, t('ch.none')));
    const out = card.querySelector('#outgoing');
    out.replaceChildren(...[...this.answered.values()].map((c) => this.answeredItem(c)), ...this.outgoing.map((c) => this.outgoingItem(c)));
    card.querySelector('#outgoing-h').hidden = !out.children.length;
  }

  incomingItem(ch) {
    const acts = h('div', { class: 'gact' });
    if (this.picker === ch.id) {
      const reason = h('select', { name: 'reason', 'aria-label': t('ch.reason') }, ...DECLINE_REASONS.map((r) => h('option', { value: r }, t(`ch.reason.${r}`))));
      const go = h('button', { type: 'button', class: 'small danger', 'data-confirm-decline': ch.id }, t('ch.decline'));
      go.onclick = async () => {
        go.disabled = true;
        try {
          await api.declineChallenge(ch.id, reason.value);
          this.incoming = this.incoming.filter((c) => c.id !== ch.id);
          this.picker = null;
          this.error = '';
        } catch (e) {
          this.error = challengeError(e);
          if (e.code === 'challenge.not_open') this.incoming = this.incoming.filter((c) => c.id !== ch.id);
        }
        this.render();
      };
      const keep = h('button', { type: 'button', class: 'small quiet' }, t('ch.keep'));
      keep.onclick = () => {
        this.picker = null;
        this.render();
      };
      acts.append(h('label', { class: 'reason' }, h('span', {}, t('ch.reason')), reason), go, keep);
    } else {
      const accept = h('button', { type: 'button', class: 'small primary', 'data-accept-challenge': ch.id }, t('ch.accept'));
      accept.onclick = () => {
        accept.disabled = true;
        acceptAndGo(ch.id, (msg) => {
          this.error = msg;
          this.load();
        });
      };
      const decline = h('button', { type: 'button', class: 'small', 'data-decline-challenge': ch.id }, t('ch.decline'));
      decline.onclick = () => {
        this.picker = ch.id;
        this.render();
        this.card.querySelector(`li[data-challenge="${ch.id}"] select`)?.focus();
      };
      acts.append(accept, decline);
    }
    return this.item(ch, [t('ch.from'), ' ', ...who(ch.challenger, ch.settings)], acts);
  }

  outgoingItem(ch) {
    const acts = h('div', { class: 'gact' });
    if (!ch.to) acts.append(copyButton(linkOf(ch), t('ch.copy_link'), { 'data-copy-challenge': ch.id }));
    const cancel = h('button', { type: 'button', class: 'small', 'data-cancel-challenge': ch.id }, t('btn.cancel'));
    cancel.onclick = async () => {
      cancel.disabled = true;
      try {
        await api.cancelChallenge(ch.id);
        this.error = '';
      } catch (e) {
        this.error = challengeError(e);
      }
      this.outgoing = this.outgoing.filter((c) => c.id !== ch.id);
      this.render();
    };
    acts.append(cancel);
    const title = ch.to ? [t('ch.to'), ' ', ...who(ch.to, ch.settings)] : [h('a', { href: ch.url || `/c/${encodeURIComponent(ch.id)}` }, t('ch.open_link'))];
    return this.item(ch, title, acts, t('ch.waiting.short'));
  }

  answeredItem(ch) {
    const ok = h('button', { type: 'button', class: 'small quiet', 'data-dismiss-challenge': ch.id }, t('ch.dismiss'));
    ok.onclick = () => {
      this.answered.delete(ch.id);
      this.render();
    };
    const title = [...who(ch.to, ch.settings), ' · ', h('strong', {}, t(`ch.status.${ch.status}`)), ' ', ...reasonWords(ch.reason)];
    return this.item(ch, title, h('div', { class: 'gact' }, ok));
  }

  /** One challenge in the list: who, the settings and one's colour, the buttons. */
  item(ch, title, acts, note = '') {
    const meta = [settingsWords(ch.settings), colourWords(ch, account()), ch.rematch_of ? t('ch.rematch') : '', note].filter(Boolean).join(' · ');
    return h('li', { 'data-challenge': ch.id, 'data-status': ch.status || 'open' }, h('span', { class: 'gicon go', 'aria-hidden': 'true' }, '碁'), h('div', {}, h('div', { class: 'gtitle' }, title), h('div', { class: 'gmeta' }, meta)), acts);
  }
}

