// The review room's panel: who owns the room, who has control and how many watch; the owner's
// "give control" and "take it back"; "Explore alone" and "Back to the shared board"; "Review
// together" (the owner makes the room public and copies its link, anyone else gets a copy of
// their own); and the room's chat. Texts go on the page as text, never as HTML.

import { t } from './i18n.js';
import { h, put, say, copyButton } from './ui.js';

const MAX_CHAT = 500;

export class RoomPanel {
  /**
   * @param {HTMLElement} box
   * @param {import('./review-room.js').Room} room
   * @param {{here: () => number, error: (e) => void, redraw: () => void}} page
   */
  constructor(box, room, page) {
    this.box = box;
    this.room = room;
    this.page = page;
    this.log = h('ol', { class: 'chat-log room-chat', id: 'room-chat', 'aria-live': 'polite', tabindex: '0' });
    this.input = h('input', { type: 'text', id: 'room-chat-text', maxlength: String(MAX_CHAT), autocomplete: 'off', enterkeyhint: 'send' });
    this.send = h('button', { type: 'submit', class: 'small primary', id: 'room-chat-send' });
    this.form = h('form', { class: 'chat-form', id: 'room-chat-form' }, this.input, this.send);
    this.form.onsubmit = (e) => {
      e.preventDefault();
      this.#say();
    };
  }

  render() {
    const r = this.room;
    if (!r.live) {
      put(this.box);
      this.box.hidden = true;
      return;
    }
    this.box.hidden = false;
    const who = (name) => h('b', { 'data-user': '', translate: 'no' }, name || t('rv.nobody'));
    const people = h(
      'p',
      { class: 'room-people', id: 'room-people' },
      t('rv.owner'), ' ', who(r.owner), ' · ', t('rv.control'), ' ', h('b', { id: 'room-controller', 'data-user': '', translate: 'no' }, r.controller || t('rv.nobody')), ' · ',
      h('span', { id: 'room-watchers', 'data-n': r.watchers }, t('rv.watchers', r.watchers)),
    );
    const state = r.alone ? t('rv.alone_now') : r.inControl() ? t('rv.in_control') : r.controller ? t('rv.following', r.controller) : t('rv.nobody_controls');
    const acts = h('div', { class: 'row room-acts' });
    if (r.alone) {
      const back = h('button', { type: 'button', class: 'primary small', id: 'back-shared' }, t('rv.back'));
      back.onclick = () => r.backToShared();
      acts.append(back);
    } else if (!r.inControl()) {
      const alone = h('button', { type: 'button', class: 'small', id: 'explore-alone' }, t('rv.explore'));
      alone.onclick = () => r.exploreAlone(this.page.here());
      acts.append(alone);
    }
    const together = this.#together();
    if (together) acts.append(together);
    put(this.box, h('h2', { 'data-user': '', translate: 'no' }, r.title || t('rv.room')), people, h('p', { class: 'hint', id: 'room-state', 'data-state': r.alone ? 'alone' : r.inControl() ? 'control' : 'follow' }, state), acts, this.#control(), this.#share(), this.#title(), this.#chat());
  }

  /** "Review together": the owner opens the room to everyone; anyone else makes a copy. */
  #together() {
    const r = this.room;
    if (r.isOwner() && r.public) return null;
    const b = h('button', { type: 'button', class: 'small', id: 'review-together' }, t(r.isOwner() ? 'rv.together_owner' : 'rv.together_fork'));
    b.onclick = async () => {
      b.disabled = true;
      try {
        if (r.isOwner()) await r.setMeta({ public: true });
        else location.href = `/r/${encodeURIComponent(await r.fork())}`;
      } catch (e) {
        this.page.error(e);
      }
      b.disabled = false;
    };
    return b;
  }

  /** The room's link (with a copy button) and the owner's switch back to private. */
  #share() {
    const r = this.room;
    if (!r.isOwner() || !r.public) return null;
    const url = `${location.origin}/r/${encodeURIComponent(r.id)}`;
    const priv = h('button', { type: 'button', class: 'small quiet', id: 'room-private' }, t('rv.private'));
    priv.onclick = () => r.setMeta({ public: false }).catch((e) => this.page.error(e));
    return h('div', { class: 'room-share', id: 'room-share' }, h('p', { class: 'hint' }, t('rv.public_now')), h('input', { type: 'text', readonly: true, value: url, class: 'link', 'aria-label': t('rv.link') }), h('div', { class: 'row' }, copyButton(url, t('lobby.copy'), { id: 'copy-room' }), priv));
  }

  /** The owner names the room (the lobby's list shows the name). */
  #title() {
    const r = this.room;
    if (!r.isOwner()) return null;
    // A name being typed stays while the panel is drawn again.
    if (!this.titleInput) this.titleInput = h('input', { type: 'text', id: 'room-title', maxlength: '100', autocomplete: 'off' });
    const input = this.titleInput;
    if (document.activeElement !== input) input.value = r.title || '';
    input.setAttribute('aria-label', t('rv.title'));
    input.placeholder = t('rv.title');
    const save = h('button', { type: 'submit', class: 'small', id: 'room-title-save' }, t('rv.title_save'));
    const form = h('form', { class: 'row give-form' }, input, save);
    form.onsubmit = (e) => {
      e.preventDefault();
      r.setMeta({ title: input.value.trim() }).catch((x) => this.page.error(x));
    };
    return form;
  }

  /** The owner's control: a name to give it to (those seen in the chat offered), and "take it back". */
  #control() {
    const r = this.room;
    if (!r.isOwner()) return null;
    const names = [...new Set(r.chat.map((l) => l.name).filter((n) => n && n !== r.you))];
    const list = h('datalist', { id: 'room-names' }, ...names.map((n) => h('option', { value: n })));
    const input = h('input', { type: 'text', id: 'give-to', list: 'room-names', autocomplete: 'off', 'aria-label': t('rv.give_to') });
    input.placeholder = t('rv.give_to');
    const give = h('button', { type: 'submit', class: 'small', id: 'give-control' }, t('rv.give'));
    const form = h('form', { class: 'row give-form' }, input, give, list);
    form.onsubmit = (e) => {
      e.preventDefault();
      const name = input.value.trim();
      if (name) r.give(name).catch((x) => this.page.error(x));
    };
    if (r.controller && r.controller !== r.owner) {
      const take = h('button', { type: 'button', class: 'small', id: 'take-control' }, t('rv.take'));
      take.onclick = () => r.give(r.owner).catch((x) => this.page.error(x));
      form.append(take);
    }
    return form;
  }

  #chat() {
    const lines = this.room.chat.map((l) =>
      h('li', { 'data-chat': '' }, h('b', { 'data-user': '', translate: 'no' }, l.name || '?'), ': ', h('span', { 'data-user': '', translate: 'no' }, l.text)),
    );
    const atEnd = this.log.scrollTop + this.log.clientHeight >= this.log.scrollHeight - 4;
    put(this.log, ...lines);
    if (atEnd) this.log.scrollTop = this.log.scrollHeight;
    this.input.placeholder = t('rv.chat_placeholder');
    this.input.setAttribute('aria-label', t('rv.chat'));
    this.send.textContent = t('chat.send');
    return h('section', { class: 'room-chat-box', 'aria-label': t('rv.chat') }, h('h3', {}, t('rv.chat')), this.log, this.form);
  }

  async #say() {
    const text = this.input.value.trim();
    if (!text) return;
    this.send.disabled = true;
    try {
      await this.room.say(text);
      this.input.value = '';
    } catch (e) {
      this.page.error(e);
    }
    this.send.disabled = false;
    this.input.focus();
  }
}

/** A refusal in the page's language by its code (or the server's sentence). */
export function refusal(e) {
  return say(e.code, e.args, e.message);
}
