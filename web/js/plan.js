// Conditional moves on the game page ("Plan"): while the opponent is to move, a player taps the
// move they expect, then their reply, and may go on deeper; Save sends the plan (PUT
// /api/games/{id}/conditional), merged into the one already saved. The saved plan is shown to its
// owner alone (small numbered stones on the board and a line under it) and can be cleared. The
// server checks every move; this page only keeps taps off occupied points.

import { api } from './api.js';
import { h, say } from './ui.js';
import { t } from './i18n.js';

/** `line` (opponent's move, reply, opponent's move, reply…) added to the plan `tree`. */
function withLine(tree, line) {
  const out = structuredClone(tree || {});
  let level = out;
  for (let i = 0; i + 1 < line.length; i += 2) {
    const [k, r] = [line[i], line[i + 1]];
    if (!level[k] || level[k].reply !== r) level[k] = { reply: r };
    level[k].then = level[k].then || {};
    level = level[k].then;
  }
  return out;
}

/** The first level of a plan in words: "E5 → C3 …, D4 → F6". */
function planWords(tree) {
  return Object.entries(tree || {})
    .map(([k, n]) => `${k} → ${n.reply}${n.then && Object.keys(n.then).length ? ' …' : ''}`)
    .join(', ');
}

export class Planner {
  /**
   * @param {string} id the game
   * @param {{render: () => void, message: (text: string) => void, token: (seat: string) => string|undefined}} hooks
   */
  constructor(id, hooks) {
    this.id = id;
    this.hooks = hooks;
    this.on = false;
    this.line = [];
    this.saved = {};
    this.seat = null; // the seat whose plan is shown
    this.loadedAt = null; // the state's version the saved plan was read at
  }

  /** Whether `seat` may plan in state `st` now: Go in play, the other side to move. */
  static allowed(st, seat) {
    return !!seat && st.game === 'go' && st.status !== 'finished' && st.phase === 'play' && !!st.to_move && st.to_move !== seat;
  }

  /** Reads the saved plan again when the game moved (the server may have played from it). */
  sync(st, seat) {
    if (!seat || st.game !== 'go' || st.status === 'finished') {
      this.on = false;
      this.saved = {};
      return;
    }
    if (!Planner.allowed(st, seat)) this.on = false;
    if (this.loadedAt === st.version && this.seat === seat) return;
    this.loadedAt = st.version;
    this.seat = seat;
    api.plan(this.id, this.hooks.token(seat)).then(
      (r) => {
        this.saved = r.moves || {};
        this.hooks.render();
      },
      () => {},
    );
  }

  /** The colour of the next stone of the line being entered. */
  nextColor() {
    const mine = this.seat === 'black' ? 'black' : 'white';
    const theirs = mine === 'black' ? 'white' : 'black';
    return this.line.length % 2 ? mine : theirs;
  }

  /** The points a tap may take now: empty on the board and not in the line. */
  legal(st) {
    const taken = new Set(this.line);
    const out = new Set();
    for (let y = 0; y < st.size.rows; y++) {
      for (let x = 0; x < st.size.cols; x++) {
        const name = `${st.columns[x]}${st.size.rows - y}`;
        if (st.board[y][x] === '.' && !taken.has(name)) out.add(name);
      }
    }
    return out;
  }

  /** The stones the board shows for the plan: the line being entered, or the saved first level. */
  marks() {
    const mine = this.seat === 'black' ? 'black' : 'white';
    const theirs = mine === 'black' ? 'white' : 'black';
    if (this.on) return this.line.map((name, i) => ({ name, color: i % 2 ? mine : theirs, label: String(i + 1) }));
    const out = [];
    for (const [k, n] of Object.entries(this.saved || {})) {
      out.push({ name: k, color: theirs, label: '1' });
      out.push({ name: n.reply, color: mine, label: '2' });
    }
    return out;
  }

  /** A tap on the board in plan mode. */
  click(name) {
    this.line.push(name);
    this.hooks.render();
  }

  async save() {
    if (this.line.length < 2) {
      this.hooks.message(t('plan.empty'));
      return;
    }
    try {
      const r = await api.savePlan(this.id, withLine(this.saved, this.line), this.hooks.token(this.seat));
      this.saved = r.moves || {};
      this.on = false;
      this.line = [];
      this.hooks.message('');
    } catch (e) {
      this.hooks.message(say(e.code, e.args, e.message));
    }
    this.hooks.render();
  }

  async clear() {
    try {
      const r = await api.clearPlan(this.id, this.hooks.token(this.seat));
      this.saved = r.moves || {};
    } catch (e) {
      this.hooks.message(say(e.code, e.args, e.message));
    }
    this.hooks.render();
  }

  /** The plan's buttons and words for `seat` in state `st`, appended to `box`. */
  controls(box, st, seat) {
    const b = (label, f, action, cls = '') => {
      const e = h('button', { type: 'button', class: cls, 'data-action': action }, label);
      e.onclick = f;
      return e;
    };
    const allowed = Planner.allowed(st, seat);
    if (this.on) {
      const n = this.line.length;
      const help = n === 0 ? t('plan.help.opponent') : n % 2 ? t('plan.help.reply', this.line[n - 1]) : t('plan.help.more', planWords(withLine({}, this.line)));
      box.append(
        h('p', { class: 'note plan-help', 'data-plan-help': String(n) }, help),
        h(
          'div',
          { class: 'row plan-row' },
          b(t('plan.save'), () => this.save(), 'plan-save', 'primary'),
          b(t('plan.back'), () => {
            this.line.pop();
            this.hooks.render();
          }, 'plan-back'),
          b(t('plan.cancel'), () => {
            this.on = false;
            this.line = [];
            this.hooks.render();
          }, 'plan-cancel', 'quiet'),
        ),
      );
      return;
    }
    const row = h('div', { class: 'row plan-row' });
    if (allowed) {
      const start = b(t('plan.start'), () => {
        this.on = true;
        this.line = [];
        this.seat = seat;
        this.hooks.render();
      }, 'plan');
      start.title = t('plan.start.title');
      row.append(start);
    }
    const words = planWords(this.saved);
    if (words) row.append(b(t('plan.clear'), () => this.clear(), 'plan-clear', 'quiet'));
    if (row.childNodes.length) box.append(row);
    if (words) box.append(h('p', { class: 'hint plan-saved', 'data-plan': words, title: t('plan.saved.note') }, t('plan.saved', words)));
  }
}
