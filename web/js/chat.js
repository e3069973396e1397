// A game's chat (docs/api.md, "Chat"): the players' channel (the two seats only) and the
// spectators' (everyone; a player may mute it). Messages go over the game's socket and come back
// from the server; their text is put on the page as text (textContent), never as HTML. A line
// written while the socket is down waits in the outbox, shown as pending, and goes out when the
// socket is back; one the server never answered is sent again then, unless the history shows it.

import { api } from './api.js';
import { t, lang } from './i18n.js';
import { h, say } from './ui.js';
import { playerLink, USER, botMark } from './account.js';

const MAX = 500;

export class Chat {
  constructor(box, { id, send, isPlayer, canWrite }) {
    this.box = box;
    this.id = id;
    this.sendMsg = send;
    this.isPlayer = isPlayer;
    this.canWrite = canWrite;
    this.messages = new Map(); // `${channel}:${seq}` → message
    this.unread = { players: 0, spectators: 0 };
    this.muted = localStorage.getItem(`baduk.mute.${id}`) === 'on';
    this.channel = null;
    // Lines of ours the server has not echoed yet, in order: {id, channel, text, sent, seq, known}.
    this.outbox = [];
    this.build();
  }

  build() {
    this.head = h('h2', { class: 'chat-title', id: 'chat-h' }, t('chat.title'));
    this.tabs = h('div', { class: 'tabs', role: 'tablist', 'aria-labelledby': 'chat-h' });
    this.tabBtn = {};
    for (const ch of ['players', 'spectators']) {
      const b = h('button', { type: 'button', role: 'tab', class: 'small', 'data-channel': ch, 'aria-selected': 'false' });
      b.onclick = () => this.show(ch);
      this.tabBtn[ch] = b;
      this.tabs.append(b);
    }
    this.muteBox = h('input', { type: 'checkbox', 'data-mute': 'spectators' });
    this.muteBox.checked = this.muted;
    this.muteBox.onchange = () => this.mute(this.muteBox.checked);
    this.muteLabel = h('span', {});
    this.muteRow = h('label', { class: 'switch mute' }, this.muteBox, ' ', this.muteLabel);
    this.list = h('ol', { class: 'chat-log', 'aria-live': 'polite', tabindex: '0' });
    this.input = h('input', { type: 'text', name: 'chat', maxlength: String(MAX), autocomplete: 'off', enterkeyhint: 'send' });
    this.sendBtn = h('button', { type: 'submit', class: 'small primary', 'data-chat-send': '' });
    this.error = h('p', { class: 'chat-error', role: 'alert' });
    this.form = h('form', { class: 'chat-form' }, this.input, this.sendBtn);
    this.form.onsubmit = (e) => {
      e.preventDefault();
      this.submit();
    };
    this.note = h('p', { class: 'hint chat-note' });
    this.box.replaceChildren(this.head, this.tabs, this.muteRow, this.list, this.error, this.form, this.note);
    this.box.hidden = false;
    this.relabel();
  }

  /** The words, again, after a language switch. */
  relabel() {
    this.head.textContent = t('chat.title');
    this.muteLabel.textContent = t('chat.mute');
    this.sendBtn.textContent = t('chat.send');
    this.input.placeholder = t('chat.placeholder');
    this.input.setAttribute('aria-label', t('chat.placeholder'));
    this.sync();
    this.paint();
  }

  /** Tabs as the role now is: a spectator has only the spectators' channel. */
  sync() {
    const player = this.isPlayer();
    this.box.dataset.role = player ? 'player' : 'spectator';
    this.tabBtn.players.hidden = !player;
    if (!this.channel || (this.channel === 'players' && !player)) this.channel = player ? 'players' : 'spectators';
    for (const [ch, b] of Object.entries(this.tabBtn)) {
      b.setAttribute('aria-selected', String(ch === this.channel));
      b.textContent = t(`chat.${ch}`) + (this.unread[ch] ? ` (${this.unread[ch]})` : '');
    }
    this.muteRow.hidden = !(player && this.channel === 'spectators');
    const writable = this.canWrite() && !(this.channel === 'spectators' && this.muted && player);
    this.input.disabled = !writable;
    this.sendBtn.disabled = !writable;
    this.note.textContent = this.canWrite() ? '' : t('chat.signin');
    this.note.hidden = !this.note.textContent;
  }

  show(ch) {
    this.channel = ch;
    this.unread[ch] = 0;
    this.sync();
    this.paint();
  }

  /** The history the server kept (the players' channel only for the players). */
  async load() {
    try {
      const r = await api.chat(this.id);
      for (const m of r.messages || []) this.add(m, true);
      this.paint();
    } catch {
      /* no history: the live messages still come */
    }
  }

  /** The socket is open again: the lines never sent go now; a line sent without an answer goes
   * again unless the history (read first) holds it. */
  async reconnected() {
    if (this.muted && this.isPlayer()) this.sendMsg({ type: 'mute', channel: 'spectators', on: true });
    // Sent on the socket that went down and never answered: maybe lost, maybe taken.
    const unsure = this.outbox.filter((o) => o.sent && o.seq === null);
    this.flush();
    await this.load();
    for (const o of unsure) if (this.outbox.includes(o) && o.seq === null) o.sent = false;
    this.flush();
    this.paint();
  }

  /** Sends the outbox's unsent lines in order while the socket takes them. */
  flush() {
    for (const o of this.outbox) {
      if (o.sent) continue;
      if (!this.sendMsg({ type: 'chat', id: o.id, channel: o.channel, text: o.text })) break;
      o.sent = true;
    }
  }

  /** The server took a line of ours (`chat_ack`): its echo will carry this seq. */
  acked(msg) {
    const o = this.outbox.find((x) => x.id === msg.id);
    if (o) o.seq = msg.seq;
  }

  add(m, quiet = false) {
    const key = `${m.channel}:${m.seq}`;
    if (this.messages.has(key)) return;
    this.messages.set(key, m);
    // Our own line come back: by the seq the server answered, or (its answer lost with the
    // socket) a new line of the same text.
    const i = this.outbox.findIndex((o) => o.channel === m.channel && (o.seq === m.seq || (o.sent && o.seq === null && o.text === m.text && !o.known.has(key))));
    if (i >= 0) this.outbox.splice(i, 1);
    if (quiet) return;
    if (m.channel !== this.channel) {
      this.unread[m.channel] = (this.unread[m.channel] || 0) + 1;
      this.sync();
    } else this.paint();
  }

  paint() {
    const list = this.list;
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 30;
    const shown = [...this.messages.values()].filter((m) => m.channel === this.channel).sort((a, b) => (a.at ?? 0) - (b.at ?? 0) || a.seq - b.seq);
    list.replaceChildren(...shown.map((m) => this.item(m)));
    const waiting = this.outbox.filter((o) => o.channel === this.channel);
    for (const o of waiting) list.append(this.pendingItem(o));
    if (!shown.length && !waiting.length) list.append(h('li', { class: 'empty' }, t(this.channel === 'spectators' && this.muted && this.isPlayer() ? 'chat.muted' : 'chat.empty')));
    if (atEnd) list.scrollTop = list.scrollHeight;
    this.box.dataset.channel = this.channel;
  }

  item(m) {
    const time = m.at ? new Intl.DateTimeFormat(lang() === 'ko' ? 'ko-KR' : 'en', { hour: '2-digit', minute: '2-digit' }).format(new Date(m.at)) : '';
    const name = /^guest-/.test(m.name || '') ? h('span', { class: 'nm', ...USER }, m.name) : playerLink(m.name || '?', undefined, { class: 'nm plink' });
    // The text: a text node (h() never parses HTML).
    const text = h('span', { class: 'text', 'data-chat-text': '', ...USER }, m.text);
    const report = h('button', { type: 'button', class: 'link report', 'data-report': m.seq, title: t('chat.report'), 'aria-label': `${t('chat.report')}: ${m.name}` }, '⚑');
    report.onclick = () => this.reportForm(li, m);
    const li = h('li', { 'data-seq': m.seq, 'data-channel': m.channel }, h('time', {}, time), ' ', name, m.bot ? botMark() : '', ' ', text, ' ', report);
    return li;
  }

  /** A line of ours on its way: its text, and whether it waits for the connection. */
  pendingItem(o) {
    const state = o.sent ? 'sending' : 'queued';
    return h(
      'li',
      { class: 'pending', 'data-pending': o.id, 'data-state': state, 'data-channel': o.channel },
      h('span', { class: 'text', 'data-chat-text': '', ...USER }, o.text),
      ' ',
      h('small', { class: 'pending-note' }, t(`chat.${state}`)),
    );
  }

  /** Reporting a message: a reason (optional), then a report row for the moderators. */
  reportForm(li, m) {
    if (li.querySelector('form')) return;
    const reason = h('input', { type: 'text', maxlength: '200', placeholder: t('chat.report.reason'), 'aria-label': t('chat.report.reason') });
    const go = h('button', { type: 'submit', class: 'small danger', 'data-report-send': m.seq }, t('chat.report.send'));
    const cancel = h('button', { type: 'button', class: 'small quiet' }, t('btn.cancel'));
    const f = h('form', { class: 'report-form' }, reason, go, cancel);
    cancel.onclick = () => f.remove();
    f.onsubmit = async (e) => {
      e.preventDefault();
      go.disabled = true;
      try {
        await api.report(this.id, m.seq, reason.value.trim() || 'reported from the game page');
        f.replaceWith(h('span', { class: 'reported', 'data-reported': m.seq }, t('chat.reported')));
      } catch (ex) {
        go.disabled = false;
        this.error.textContent = ex.status ? say(ex.code, ex.args, ex.message) : t('error.network');
      }
    };
    li.append(f);
    reason.focus();
  }

  submit() {
    const text = this.input.value.trim();
    this.error.textContent = '';
    if (!text) return;
    if (text.length > MAX) {
      this.error.textContent = t('code.chat.long', { max: MAX });
      return;
    }
    this.n = (this.n || 0) + 1;
    // The id answers name this line; `known`: the messages before it (its echo is a new one).
    const o = { id: `chat-${this.n}`, channel: this.channel, text, sent: false, seq: null, known: new Set(this.messages.keys()) };
    this.outbox.push(o);
    this.input.value = '';
    this.flush();
    this.paint();
  }

  /** An error the socket answered while a message of ours was on its way. */
  failed(msg) {
    const i = this.outbox.findIndex((o) => o.id === msg.id);
    const p = i >= 0 ? this.outbox.splice(i, 1)[0] : null;
    this.error.textContent = say(msg.code, msg.args, msg.error) || t('chat.failed');
    if (p && !this.input.value) this.input.value = p.text;
    this.paint();
  }

  mute(on) {
    this.muted = on;
    localStorage.setItem(`baduk.mute.${this.id}`, on ? 'on' : 'off');
    this.sendMsg({ type: 'mute', channel: 'spectators', on });
    if (on) {
      for (const [k, m] of this.messages) if (m.channel === 'spectators') this.messages.delete(k);
    } else this.load();
    this.sync();
    this.paint();
  }
}
