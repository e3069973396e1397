// "Rematch" at the end of a game (the game page): for its two players, both accounts with a
// name. It is a challenge with `rematch_of` (the server swaps the colours and keeps the
// settings); the opponent still on the page sees "X offers a rematch — Accept / Decline" there,
// live (the account's events), and the game the accepted rematch makes opens for both.

import { api, account, eventStream } from './api.js';
import { t } from './i18n.js';
import { h } from './ui.js';
import { userName, isGuest } from './account.js';
import { challengeError, reasonWords, acceptAndGo, acceptedGame, isChallenger, eventOf, fresh, goToGame } from './challenges.js';

const sameName = (a, b) => String(a || '').toLowerCase() === String(b || '').toLowerCase();

export class Rematch {
  /** `box`: the element it draws in; `gameId`: the finished game. */
  constructor(box, gameId) {
    this.box = box;
    this.gameId = gameId;
    this.opponent = null; // the other player's name, once the game is finished and both are accounts
    this.mine = null; // the rematch offered from here (or found open on load)
    this.theirs = null; // the opponent's offer of a rematch
    this.error = '';
    this.stream = null;
  }

  /** Called with each state the page draws: shows the way to a rematch once it is finished. */
  update(st) {
    const me = account();
    if (st.status !== 'finished' || !me || me.guest) return this.paint();
    const players = Object.values(st.seats || {}).map((i) => i.player?.name).filter(Boolean);
    const opp = players.find((n) => !sameName(n, me.name));
    const seated = players.some((n) => sameName(n, me.name));
    if (!seated || players.length !== 2 || !opp || isGuest(opp)) return this.paint();
    if (!this.opponent) {
      this.opponent = opp;
      this.start();
    }
    this.paint();
  }

  /** The rematches open already (a reload), then the account's events, live. */
  async start() {
    try {
      const r = await api.challenges();
      this.mine = (r.outgoing || []).find((c) => c.rematch_of === this.gameId) || this.mine;
      this.theirs = (r.incoming || []).find((c) => c.rematch_of === this.gameId) || this.theirs;
    } catch {
      /* the events say it too */
    }
    this.paint();
    this.stream = eventStream({
      onEvent: (msg) => this.onEvent(eventOf(msg)),
      // The rematch offered from here may have been answered while the stream was not open.
      onStatus: async (s) => {
        if (s !== 'open' || this.mine?.status !== 'open') return;
        const ch = await fresh(this.mine);
        if (ch.status !== 'open') this.onEvent({ type: 'challenge', challenge: ch });
      },
    });
  }

  async onEvent(ev) {
    const ch = ev?.challenge;
    if (ev?.type === 'gameStart') {
      const ids = [this.mine, this.theirs].filter((c) => c?.status === 'open').map((c) => c.id);
      const game = ids.length ? await acceptedGame(ids) : null;
      if (game) goToGame(game);
      return;
    }
    if (!ch || ch.rematch_of !== this.gameId) return;
    const status = { challengeCanceled: 'canceled', challengeDeclined: 'declined', challengeAccepted: 'accepted' }[ev.type] || ch.status || 'open';
    const c = { ...ch, status };
    if (status === 'accepted' && ch.game) {
      goToGame(ch.game);
      return;
    }
    if (isChallenger(ch, account())) this.mine = c;
    else this.theirs = status === 'open' ? c : null;
    this.paint();
  }

  async offer() {
    this.error = '';
    try {
      const r = await api.challenge({ to: this.opponent, rematch_of: this.gameId });
      this.mine = r.challenge;
    } catch (e) {
      this.error = challengeError(e);
    }
    this.paint();
  }

  paint() {
    const box = this.box;
    if (!this.opponent) {
      box.replaceChildren();
      return;
    }
    const kids = [];
    const name = userName(this.opponent);
    const theirs = this.theirs?.status === 'open' ? this.theirs : null;
    if (theirs) {
      const accept = h('button', { type: 'button', class: 'small primary', 'data-action': 'rematch-accept' }, t('ch.accept'));
      accept.onclick = () => {
        accept.disabled = true;
        acceptAndGo(theirs.id, (msg) => {
          this.error = msg;
          this.theirs = null;
          this.paint();
        });
      };
      const decline = h('button', { type: 'button', class: 'small', 'data-action': 'rematch-decline' }, t('ch.decline'));
      decline.onclick = async () => {
        try {
          await api.declineChallenge(theirs.id, 'generic');
        } catch (e) {
          this.error = challengeError(e);
        }
        this.theirs = null;
        this.paint();
      };
      kids.push(h('p', { class: 'rematch-offer', 'data-rematch': 'offered', 'data-challenge': theirs.id }, t('ch.rematch.offered.a'), name, t('ch.rematch.offered.b'), ' ', accept, ' ', decline));
    } else if (this.mine?.status === 'open') {
      const cancel = h('button', { type: 'button', class: 'small', 'data-action': 'rematch-cancel' }, t('btn.cancel'));
      cancel.onclick = async () => {
        try {
          await api.cancelChallenge(this.mine.id);
          this.mine = { ...this.mine, status: 'canceled' };
        } catch (e) {
          this.error = challengeError(e);
        }
        this.paint();
      };
      kids.push(h('p', { 'data-rematch': 'sent', 'data-challenge': this.mine.id }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' ', t('ch.rematch.sent.a'), name, t('ch.rematch.sent.b'), ' ', cancel));
    } else {
      if (this.mine?.status === 'declined') kids.push(h('p', { 'data-rematch': 'declined' }, t('ch.rematch.declined.a'), name, t('ch.rematch.declined.b'), ' ', ...reasonWords(this.mine.reason)));
      const b = h('button', { type: 'button', class: 'primary', 'data-action': 'rematch' }, t('ch.rematch.offer'));
      b.onclick = () => {
        b.disabled = true;
        this.offer();
      };
      kids.push(b);
    }
    if (this.error) kids.push(h('p', { class: 'form-error', role: 'alert' }, this.error));
    box.replaceChildren(...kids);
  }
}
