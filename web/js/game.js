// The game page (/g/{id}): one Go or Wall Go game, live over the WebSocket. The page holds no
// game logic: it draws the server's state, sends the player's clicks as actions, and shows the
// server's answer (a new state, or a 4xx message in place).

import { api, connect, mergeChange, heldSeats, holdSeat, forgetSeat, invites, saveInvite, seatLink, account, inviteSecret, keepInviteSecret } from './api.js';
import { initAccount, repaintAccount, kindOf, ratingShort, ratingLong, playerLink, displayName, userName, botMark } from './account.js';
import { Chat } from './chat.js';
import { t, lang, setLang, applyStatic } from './i18n.js';
import { clockView } from './clock.js';
import { GoBoard } from './go-board.js';
import { WallBoard } from './wall-board.js';
import { Rematch } from './rematch.js';
import { Planner } from './plan.js';
import { watchTurns, titled, nextGame, onTurns, refreshTurns } from './turns.js';
import { h, fmtNum, seatName, kindLabel, resultText, resultShort, noteText, sound, initChrome, ruleName, clockWords, clockOf, say, copyButton, variantWords, notFoundView } from './ui.js';

const id = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] || '');
const $ = (sel) => document.querySelector(sel);

// Seat tokens from the link (#token=…&seat=…) go to local storage, so a reload without the
// fragment, or a new tab from the lobby, finds the seat again; the address bar is then set to
// the spectator URL (/g/ID) at once, so the token is never left there to be copied or shared.
function takeToken() {
  const frag = new URLSearchParams(location.hash.slice(1));
  // An invite-only game's link carries its invite secret: kept for "Join as yourself", and
  // taken out of the address bar like a seat token.
  const invite = frag.get('invite');
  if (invite) {
    keepInviteSecret(id, invite);
    history.replaceState(null, '', location.pathname + location.search);
  }
  const token = frag.get('token');
  if (!token) return false;
  history.replaceState(null, '', location.pathname + location.search);
  const held = heldSeats(id);
  if (Object.values(held).includes(token)) return false;
  holdSeat(id, frag.get('seat') || '?', token);
  return true;
}
takeToken();
// Another seat's link opened in this tab changes only the fragment: start again with it.
window.addEventListener('hashchange', () => {
  if (takeToken()) location.reload();
});

const page = {
  state: null,
  at: 0, // performance.now() when `state.clocks` was received
  board: null,
  ws: null,
  replay: null, // {n, states: Map} while replaying a finished game
  message: null, // {text, kind}
  resignArmed: false,
  lastSeq: -1,
  pending: null, // {t0, version} of the action in flight
  rematch: new Rematch(document.getElementById('rematch'), id),
  planner: null, // conditional moves (plan.js), made once the page's functions exist
};

page.planner = new Planner(id, {
  render: () => render(),
  message: (text) => showMessage(text || null),
  token: (seat) => (seat && heldSeats(id)[seat]) || undefined,
});

// What tests and curious people can read: round-trip times of this page's own actions.
// review-game.js acts through the same path (review mode's `review` and `resume`).
window.__baduk = { rtts: [], sounds: [], page, act: (action, seat) => act(action, seat), mySeats: () => mySeats() };

/**
 * The seats of the signed-in account ("Seats of accounts"): the one the server named as `you`
 * for the cookie, and every seat whose player is this account. They act without a seat token.
 */
function accountSeats() {
  const st = page.state;
  const me = account();
  const seats = Object.keys(st?.seats || {});
  return seats.filter((s) => (page.cookieYou === s) || (me && st.seats[s]?.player?.name === me.name));
}

function mySeats() {
  const st = page.state;
  const held = heldSeats(id);
  const seats = Object.keys(st?.seats || {});
  const acc = accountSeats();
  const mine = seats.filter((s) => held[s] || acc.includes(s));
  if (held['?']) {
    // A bare token: if only one human seat could be it, it is that one.
    const cand = seats.filter((s) => st.seats[s].kind === 'human' && !held[s]);
    if (cand.length === 1) {
      holdSeat(id, cand[0], held['?']);
      forgetSeat(id, '?');
      mine.push(cand[0]);
    }
  }
  return mine;
}

function tokenFor(seat) {
  const held = heldSeats(id);
  return held[seat] || held['?'];
}

function hasUnknownToken() {
  return !!heldSeats(id)['?'];
}

/** The seat this browser acts for now: the side to move if it holds it. */
function actingSeat(prefer) {
  const mine = mySeats();
  if (prefer && mine.includes(prefer)) return prefer;
  const st = page.state;
  if (st.to_move && mine.includes(st.to_move)) return st.to_move;
  if (hasUnknownToken() && st.to_move) return st.to_move;
  return mine[0] || (hasUnknownToken() ? '?' : null);
}

function showMessage(text, kind = 'error') {
  page.message = text ? { text, kind } : null;
  const box = $('#message');
  box.replaceChildren();
  if (page.message) {
    box.className = `message ${kind}`;
    box.textContent = text;
  } else {
    box.className = 'message';
  }
}

async function act(action, seat) {
  const st = page.state;
  const s = seat || actingSeat();
  const token = s ? tokenFor(s) : null;
  // No token: the account's own seat acts with the cookie (and its CSRF value).
  if (!token && !(s && accountSeats().includes(s))) return;
  showMessage(null);
  page.pending = { t0: performance.now(), version: st.version };
  const before = st.to_move;
  try {
    const next = await api.act(id, token, action);
    // A bare token that just moved for the side to move belongs to that side.
    if (heldSeats(id)['?'] && before && s === before) {
      holdSeat(id, before, heldSeats(id)['?']);
      forgetSeat(id, '?');
    }
    // The reply is the change this action made (its history spliced, not the whole log).
    if (next && next.id) applyChange(next);
  } catch (e) {
    page.pending = null;
    showMessage(e.status ? say(e.code, e.args, e.message) : t('error.network'), 'error');
    sound('error');
  }
}

/**
 * A change (a socket's `delta`, or the reply to an action): applied to the state held when it
 * follows it; one this page already has is dropped; one that does not follow it (a delta
 * missed) is never applied on the wrong base: the page asks for the full state instead.
 */
function applyChange(change) {
  const st = page.state;
  if (!st || change.version <= st.version) return;
  if (change.base !== st.version) return resync();
  apply(mergeChange(st, change));
}

/** Asks for the full state: over the socket (`sync`), or by HTTP when it is not open. */
function resync() {
  const now = performance.now();
  if (page.syncAt && now - page.syncAt < 1000) return; // one asked already; its answer comes
  page.syncAt = now;
  if (page.ws?.send({ type: 'sync' })) return;
  api.state(id).then(apply, () => {});
}

function apply(next) {
  const st = page.state;
  if (st && next.version < st.version) return; // an older snapshot than what is shown
  const moved = st && next.version > st.version;
  page.state = next;
  page.at = performance.now();
  // Server-side automatic actions (the turn clock ran out).
  if (st) {
    for (const a of next.actions || []) {
      // `auto` marks what the server's clock played: a timeout or an expired Wall Go turn.
      if (a.seq > page.lastSeq && a.auto && next.seats?.[a.seat]?.kind !== 'bot') showMessage(t('auto', a.action, seatName(next, a.seat)), 'info');
    }
  }
  const seqs = (next.actions || []).map((a) => a.seq);
  if (seqs.length) page.lastSeq = Math.max(page.lastSeq, ...seqs);
  else page.lastSeq = Math.max(page.lastSeq, next.version - 1);
  if (moved) {
    page.resignArmed = false;
    sound('move');
    // It became this player's move: "Your move" everywhere (the count, a sound, a notification).
    if (next.to_move && mySeats().includes(next.to_move)) refreshTurns();
  }
  // An opponent who shows up: say so, clearly (and with a sound where sound is on).
  if (st) {
    for (const [seat, info] of Object.entries(next.seats || {})) {
      const was = st.seats?.[seat];
      if (was && !was.joined && info.joined && info.kind !== 'bot' && !mySeats().includes(seat)) {
        showMessage(t('joined', seatName(next, seat)), 'info');
        sound('join');
      }
    }
  }
  if (page.replay && next.status !== 'finished') page.replay = null;
  if (next.phase !== 'marking') page.disputeOpen = false;
  render();
  if (!st) performance.mark('baduk-board-drawn');
  if (page.pending && next.version > page.pending.version) {
    const t0 = page.pending.t0;
    page.pending = null;
    requestAnimationFrame(() => {
      const ms = performance.now() - t0;
      window.__baduk.rtts.push(ms);
      document.body.dataset.rtt = ms.toFixed(1);
    });
  }
}

// ---- rendering -------------------------------------------------------------------------------

function render() {
  const st = page.state;
  if (!st) return;
  page.planner.sync(st, planSeat());
  document.body.dataset.version = st.version;
  document.body.dataset.phase = st.phase;
  document.body.dataset.status = st.status;
  document.body.dataset.game = st.game;
  const mine = mySeats();
  document.body.dataset.role = mine.length || hasUnknownToken() ? 'player' : 'spectator';
  const title = st.game === 'go' ? `${t('game.go')} ${st.size.cols}×${st.size.rows} · ${ruleName(st.rules)}` : t('game.wallgo');
  $('#title').textContent = title;
  document.title = titled(`${title} — baduk`);
  renderInfo();
  renderPlayers();
  renderBoard();
  renderStatus();
  renderControls();
  renderResult();
  page.rematch.update(st);
  renderMoves();
  renderReplayBar();
  renderInvites();
  hello();
  page.chat?.sync();
  tick();
  document.dispatchEvent(new CustomEvent('baduk:render'));
}

/**
 * Tells the socket which seats this page holds (`hello`: the account's own, without a token;
 * a seat token's), so that it carries the players' chat. Sent again when the seats change.
 */
function hello() {
  const ws = page.ws;
  const st = page.state;
  if (!ws || !st) return;
  const held = heldSeats(id);
  const acc = accountSeats();
  const key = `${acc.join(',')}|${Object.keys(held).join(',')}`;
  if (page.helloSent === key) return;
  let sent = false;
  if (acc.length) sent = ws.send({ type: 'hello', id: 'hello' }) || sent;
  for (const [seat, token] of Object.entries(held)) if (seat !== '?' && !acc.includes(seat)) sent = ws.send({ type: 'hello', id: `hello-${seat}`, token }) || sent;
  if (sent || (!acc.length && !Object.keys(held).length)) page.helloSent = key;
}

function renderInfo() {
  const st = page.state;
  const parts = [];
  // A rated game that ended before two moves each moves no rating: it says so (docs/api.md).
  if (st.rated) parts.push(st.aborted ? t('rated.aborted') : t('rated'));
  if (st.game === 'go') {
    parts.push(t('komi', st.komi));
    if (st.handicap) parts.push(t('handicap', st.handicap));
    parts.push(ruleName(st.rules));
    const clock = clockWords(clockOf(st.rules));
    if (clock) parts.push(clock);
  } else {
    // The variant line in words: placement order, staying in place, equal scores, turn time.
    parts.push(...variantWords(st.variant));
    if (st.clocks?.A?.kind === 'turn') parts.push(t('tc.sec', Math.round(turnMs(st) / 1000)));
  }
  $('#info').textContent = parts.join(' · ');
  $('#info').title = st.game === 'go' ? st.rules : st.variant;
}

function renderPlayers() {
  const st = page.state;
  const shown = boardState(); // a replay's position: its captures and clocks
  const mine = mySeats();
  const box = $('#players');
  box.replaceChildren();
  for (const seat of Object.keys(st.seats)) {
    const info = st.seats[seat];
    const toMove = st.to_move === seat && st.status !== 'finished';
    const card = h('div', { class: `player seat-${seat}${toMove ? ' to-move' : ''}`, 'data-seat': seat });
    const chip = h('span', { class: `chip ${seat}`, 'aria-hidden': 'true' }, st.game === 'wallgo' ? seat : '');
    const name = h('div', { class: 'pname' }, chip, h('strong', {}, seatName(st, seat)), h('span', { class: 'kind' }, mine.includes(seat) ? t('kind.you') : kindLabel(info)));
    card.append(name);
    if (info.player) {
      const kind = st.rating_kind || kindOf(st.game, st.game === 'go' ? st.size : null);
      const rank = kind ? ratingShort(kind, info.player) : '';
      card.append(h('div', { class: 'who', 'data-player-seat': seat }, playerLink(info.player.name, displayName(info.player.name), { title: info.player.name }), info.player.bot ? botMark() : '', rank ? h('span', { class: 'rank' }, rank) : '', info.player.vacation ? h('span', { class: 'vacation', 'data-vacation': seat }, t('seat.vacation')) : ''));
    } else if (info.kind === 'bot' && typeof info.rating?.rating === 'number') {
      // A rated bot's fixed rating: its rank and number for Go, the number for Wall Go.
      const kind = kindOf(st.game, st.game === 'go' ? st.size : null);
      const n = Math.round(info.rating.rating);
      const words = kind === 'wallgo' || !kind ? String(n) : `${ratingShort(kind, info.rating)} (${n})`;
      card.append(h('div', { class: 'who', 'data-bot-rating': n }, h('span', { class: 'rank' }, t('kind.bot.rating', words))));
    }
    if (info.kind === 'open' && !info.joined && !mine.includes(seat)) {
      const b = h('button', { class: 'small', 'data-sit': seat }, account() ? t('sit.self') : t('sit'));
      b.onclick = () => sit(seat);
      card.append(b);
    }
    const meta = h('div', { class: 'pmeta' });
    if (st.game === 'go' && shown.captures) meta.append(h('span', { class: 'caps', 'data-caps': seat }, `${t('captures')} ${shown.captures[seat] ?? 0}`));
    if (st.phase === 'marking' && st.marking?.accepted) {
      const ok = st.marking.accepted[seat];
      meta.append(h('span', { class: `acc ${ok ? 'yes' : 'no'}` }, ok ? `✓ ${t('btn.accept')}` : '…'));
    }
    card.append(meta);
    const c = shown.clocks?.[seat];
    if (c) {
      const clock = h('div', { class: 'clock', 'data-clock': seat }, h('span', { class: 'main' }), h('span', { class: 'extra' }));
      if (c.kind === 'turn') clock.append(h('div', { class: 'bar' }, h('div', { class: 'fill' })));
      card.append(clock);
    }
    box.append(card);
  }
}

function tick() {
  const st = page.state;
  if (!st || !st.clocks) return;
  const shown = boardState();
  const elapsed = st.status === 'finished' ? 0 : performance.now() - page.at;
  for (const [seat, c] of Object.entries(shown.clocks || st.clocks)) {
    const node = document.querySelector(`[data-clock="${seat}"]`);
    if (!node || !c) continue;
    if (c.kind === 'turn') {
      page.turnTotal = Math.max(page.turnTotal || 0, turnMs(st), c.main_ms || 0);
      c.turn_ms = page.turnTotal;
    }
    const v = clockView(c, elapsed);
    countdown(seat, c, v);
    node.querySelector('.main').textContent = v.main;
    node.querySelector('.extra').textContent = v.extra;
    node.classList.toggle('low', !!v.low && !!c.running);
    node.classList.toggle('running', !!c.running);
    const fill = node.querySelector('.fill');
    if (fill) fill.style.width = `${((c.running ? v.fraction : c.main_ms / c.turn_ms) * 100).toFixed(1)}%`;
  }
}

/** The byo-yomi countdown: a beep a second over the last 10 s of one's own period (with sound on). */
function countdown(seat, c, v) {
  if (!c.running || c.kind !== 'byo-yomi' || !v.low || !mySeats().includes(seat)) return;
  const s = Math.ceil(v.ms / 1000);
  if (s > 10 || s < 1 || page.beeped === `${seat}:${page.state.version}:${s}`) return;
  page.beeped = `${seat}:${page.state.version}:${s}`;
  sound('tick');
}

function turnMs(st) {
  if (st.turn_seconds) return st.turn_seconds * 1000;
  const m = /seconds=(\d+)/.exec(st.variant || '');
  return (m ? +m[1] : 60) * 1000;
}

function boardState() {
  const r = page.replay;
  if (r && r.n < total() && r.states.has(r.n)) {
    // A position of the replay: the final marks and regions do not belong on it.
    return { ...r.states.get(r.n), marking: null, regions: null };
  }
  return page.state;
}

function renderBoard() {
  const st = page.state;
  const host = $('#board');
  const want = st.game === 'go' ? GoBoard : WallBoard;
  if (!(page.board instanceof want)) {
    host.replaceChildren();
    page.board =
      st.game === 'go'
        ? new GoBoard(host, { onPoint, onPending: () => renderControls(), onHover: hoverWhy })
        : new WallBoard(host, { onAction: (a) => act(a), onStage: () => renderWallControls() });
  }
  const shown = boardState();
  const replaying = shown !== st;
  const seat = actingSeat();
  const myTurn = !replaying && st.status !== 'finished' && !!seat && (st.to_move === seat || st.phase === 'marking');
  document.body.dataset.myturn = myTurn ? '1' : '0';
  if (st.game === 'go') {
    const mode = st.phase === 'marking' ? 'marking' : 'play';
    const plan = page.planner;
    // Plan mode: taps enter the expected moves and replies, not moves.
    page.board.render(shown, {
      interactive: myTurn || (plan.on && !replaying),
      mode,
      legal: plan.on ? plan.legal(st) : new Set(st.legal || []),
      hoverColor: plan.on ? plan.nextColor() : st.to_move === 'white' ? 'white' : 'black',
      confirm: !plan.on && confirmOn(),
      plan: replaying ? [] : plan.marks(),
    });
  } else {
    page.board.render(shown, { interactive: myTurn && st.phase !== 'finished', showRegions: !replaying && st.phase === 'finished' });
  }
}

/** Whether a tap needs confirming (a second tap or the button): on by default for touch. */
function confirmOn() {
  const saved = localStorage.getItem('baduk.confirm');
  if (saved === 'on' || saved === 'off') return saved === 'on';
  return !!window.matchMedia?.('(pointer: coarse)').matches;
}

function confirmSwitch() {
  const box = h('input', { type: 'checkbox', name: 'confirm-moves', 'data-setting': 'confirm' });
  box.checked = confirmOn();
  box.onchange = () => {
    localStorage.setItem('baduk.confirm', box.checked ? 'on' : 'off');
    page.board?.cancelPending?.();
    renderBoard();
    renderControls();
  };
  return h('label', { class: 'switch' }, box, ' ', t('confirm.moves'));
}

/** Says, under the board, why the point under the pointer cannot be played (or nothing). */
function hoverWhy(name, legal) {
  const el = $('#why');
  if (!el) return;
  const st = page.state;
  let why = '';
  if (name && !legal && st?.phase === 'play') {
    const x = page.board.parse(name);
    const c = x && st.board[x.y]?.[x.x];
    if (c === 'B' || c === 'W') why = t('why.occupied', name);
    else if (st.ko === name) why = t('why.ko', name);
    else why = t('why.illegal', name, ruleName(st.rules));
  }
  el.textContent = why;
  el.hidden = !why;
}

function onPoint(name) {
  const st = page.state;
  if (page.planner.on) return page.planner.click(name);
  if (st.phase === 'marking') {
    const dead = new Set(st.marking?.dead ?? st.marking?.proposed ?? []);
    const x = page.board.parse(name);
    const c = x && st.board[x.y][x.x];
    if (c !== 'B' && c !== 'W') return;
    act(`${dead.has(name) ? 'alive' : 'dead'} ${name}`, actingSeat());
    return;
  }
  act(name);
}

function renderStatus() {
  const st = page.state;
  const el = $('#status');
  const seat = actingSeat();
  const mine = mySeats();
  let text = '';
  if (st.status === 'finished') text = t('phase.finished');
  else if (st.phase === 'marking') text = t('marking.short');
  else if (st.to_move && (mine.includes(st.to_move) || (hasUnknownToken() && seat === st.to_move))) {
    if (st.game === 'wallgo') {
      const s = page.board?.stage?.().stage;
      text = s === 'place' ? t('turn.you.place') : s === 'dest' ? t('turn.you.dest') : s === 'wall' ? t('turn.you.wall') : t('turn.you.piece');
    } else text = t('turn.you');
  } else if (st.to_move) text = t('turn.other', seatName(st, st.to_move));
  if (st.status === 'open') text = `${text} · ${t('kind.waiting')}`;
  el.replaceChildren();
  if (!mine.length && !hasUnknownToken()) el.append(h('span', { class: 'badge' }, t('spectator')), ' ');
  if (st.phase && st.status !== 'finished') el.append(h('span', { class: 'phase' }, t(`phase.${st.phase}`) + (st.handicap_left ? ` · ${st.handicap_left}` : '')), ' ');
  el.append(h('span', { class: 'turn' }, text));
  // "Next game": the next game where it is this account's move.
  const next = nextGame(id);
  if (next) el.append(h('a', { class: 'button small next-game', href: next.url, 'data-next-game': next.id, title: t('turns.next.title') }, t('turns.next')));
}

/** The seat this page plans for: the account's (or a held token's) seat that is not to move. */
function planSeat() {
  const st = page.state;
  const mine = mySeats();
  return mine.find((s) => s !== st.to_move) || null;
}

function renderControls() {
  const st = page.state;
  const box = $('#controls');
  box.replaceChildren();
  const mine = mySeats();
  const player = mine.length || hasUnknownToken();
  if (!player || st.status === 'finished' || page.replay?.active) return;
  const seat = actingSeat();
  if (st.game === 'go') {
    if (st.phase === 'marking') return renderMarking(box);
    const myTurn = st.to_move && (mine.includes(st.to_move) || hasUnknownToken());
    if (st.undo_request) {
      if (mine.includes(st.undo_request)) box.append(h('p', { class: 'note' }, t('undo.asked.you')));
      const other = mine.find((s) => s !== st.undo_request) || (hasUnknownToken() && !mine.length ? '?' : null);
      if (other) {
        box.append(
          h('p', { class: 'note ask' }, t(st.undo_moves === 2 ? 'undo.asked.other2' : 'undo.asked.other', seatName(st, st.undo_request))),
          btn(t('btn.undo_accept'), () => act('undo-accept', other), 'primary', 'undo-accept'),
          btn(t('btn.undo_decline'), () => act('undo-decline', other), '', 'undo-decline'),
        );
      }
    }
    const row = h('div', { class: 'row' });
    row.append(btn(t('btn.pass'), () => act('pass'), '', 'pass', !myTurn));
    // Undo takes back one's own last move, or on one's turn one's last move and the reply (as
    // OGS allows; against a bot, which answers at once, only the second form ever applies).
    const n = (st.moves || []).length;
    const lastMover = st.to_move === 'black' ? 'white' : st.to_move === 'white' ? 'black' : null;
    const holds = (s) => s && (mine.includes(s) || (hasUnknownToken() && !mine.length));
    const undoSeat = n >= 1 && holds(lastMover) ? lastMover : n >= 2 && holds(st.to_move) ? st.to_move : null;
    row.append(btn(t('btn.undo'), () => act('undo', undoSeat), '', 'undo', !!st.undo_request || st.phase !== 'play' || !undoSeat));
    row.append(resignButton());
    const pending = page.board?.pendingName?.();
    if (pending) {
      const conf = h('div', { class: 'row confirm-row' });
      conf.append(btn(t('btn.play', pending), () => page.board.confirmPending(), 'primary', 'confirm-move', !myTurn));
      conf.append(btn(t('btn.cancel'), () => page.board.cancelPending(), 'quiet', 'cancel-move'));
      box.append(conf);
    }
    box.append(row);
    page.planner.controls(box, st, planSeat());
    box.append(h('p', { class: 'hint' }, t('lastmove', st.last_move || '—'), ' · ', confirmSwitch()));
  } else {
    renderWallControls();
  }
}

function resignButton() {
  const b = btn(page.resignArmed ? t('confirm.resign') : t('btn.resign'), () => {
    if (!page.resignArmed) {
      page.resignArmed = true;
      renderControls();
      setTimeout(() => {
        if (page.resignArmed) {
          page.resignArmed = false;
          renderControls();
        }
      }, 4000);
      return;
    }
    page.resignArmed = false;
    act('resign', actingSeat());
  }, page.resignArmed ? 'danger' : 'quiet', 'resign');
  return b;
}

function btn(label, onclick, cls = '', action = '', disabled = false) {
  const b = h('button', { class: cls, type: 'button', ...(action ? { 'data-action': action } : {}) }, label);
  b.disabled = !!disabled;
  b.onclick = onclick;
  return b;
}

function disputePath(st) {
  // The server says which way a dispute goes (marking.dispute); else read it from the rules.
  const d = st.marking?.dispute;
  if (d) return d === 'disputed' ? 'japanese' : d;
  const m = /life=([a-z-]+)/.exec(st.rules || '');
  const life = m ? m[1] : /korean|kang/.test(st.rules_name || '') ? 'verify' : /japanese/.test(st.rules_name || '') ? 'japanese' : 'resume';
  return life === 'verify' ? 'verify' : life === 'japanese' ? 'japanese' : 'resume';
}

function renderMarking(box) {
  const st = page.state;
  const mine = mySeats();
  box.append(h('p', { class: 'note' }, t('marking.help')));
  const rest = st.marking?.restored;
  if (rest) box.append(h('p', { class: 'note ask', 'data-restored': rest.seat }, t('marking.restored', seatName(st, rest.seat), rest.chains.join(', '))));
  const acc = st.marking?.accepted || {};
  const list = h('ul', { class: 'accepts' });
  for (const s of Object.keys(st.seats)) list.append(h('li', { class: acc[s] ? 'yes' : 'no' }, acc[s] ? `✓ ${t('marking.accepted', seatName(st, s))}` : t('marking.waiting', seatName(st, s))));
  box.append(list);
  const row = h('div', { class: 'row' });
  const seats = mine.length ? mine : ['?'];
  for (const s of seats) {
    const label = seats.length > 1 ? `${t('btn.accept')} (${seatName(st, s)})` : t('btn.accept');
    row.append(btn(label, () => act('accept', s), 'primary', 'accept', s !== '?' && !!acc[s]));
  }
  row.append(btn(t('btn.dispute'), () => {
    page.disputeOpen = !page.disputeOpen;
    renderControls();
  }, '', 'dispute'));
  row.append(resignButton());
  box.append(row);
  box.append(h('p', { class: 'hint' }, t(`marking.dispute.${disputePath(st)}`)));
  if (page.disputeOpen) box.append(disputeDialog(st, seats[0]));
  box.append(legendGo());
}

/** The dispute's confirmation: what happens next under the game's rules, one button a way. */
function disputeDialog(st, seat) {
  const ways = st.marking?.dispute_ways || [disputePath(st) === 'verify' ? 'verify' : 'resume'];
  const japanese = disputePath(st) === 'japanese';
  const box = h('div', { class: 'dispute-box', role: 'dialog', 'aria-label': t('dispute.title') }, h('strong', {}, t('dispute.title')));
  for (const way of ways) {
    const text = japanese ? t(`dispute.jp_${way}`) : t(`dispute.${way}`);
    const b = btn(t('dispute.go'), () => {
      page.disputeOpen = false;
      act(`dispute ${way}`, seat);
    }, 'danger', `dispute-${way}`);
    box.append(h('div', { class: 'way', 'data-way': way }, h('p', {}, text), b));
  }
  box.append(btn(t('dispute.cancel'), () => {
    page.disputeOpen = false;
    renderControls();
  }, 'quiet', 'dispute-cancel'));
  return box;
}

/** The checks a dispute ran (verification play or art. 7 confirmation), in words. */
function checksList(st) {
  const checks = st.checks || [];
  if (!checks.length) return null;
  const ul = h('ul', { class: 'checks' });
  const line = (l) => {
    const what = l.moves.length ? `${l.moves.map((m) => m.replace(/^([BW]) /, (_, c) => (c === 'B' ? '●' : '○'))).join(' ')} → ${t(`check.${l.outcome}`)}` : l.outcome === 'survived' ? t('check.none') : t(`check.${l.outcome}`);
    return t('check.line', seatName(st, l.first), what);
  };
  for (const c of checks) {
    const head = t('check.head', `${t(`check.mode.${c.mode}`)} ${c.chain}`, seatName(st, c.owner), c.stones, t(`check.status.${c.status}`));
    ul.append(h('li', { 'data-check': c.chain, 'data-status': c.status }, h('strong', {}, head), h('br'), line(c.opponent_first), h('br'), line(c.owner_first)));
  }
  return ul;
}

function legendGo() {
  return h(
    'div',
    { class: 'legend' },
    h('span', {}, h('i', { class: 'sw terr-b' }), ' ', t('territory'), ' ', t('color.black')),
    h('span', {}, h('i', { class: 'sw terr-w' }), ' ', t('territory'), ' ', t('color.white')),
    h('span', {}, h('i', { class: 'sw deadx' }, '×'), ' ', t('legend.dead')),
    h('span', {}, h('i', { class: 'sw seki' }), ' ', t('seki')),
  );
}

/** A short "How to play Wall Go" (from the rules spec), open until the first turn is played. */
function wallHowTo() {
  const d = h('details', { class: 'howto', 'data-howto': 'wallgo' }, h('summary', {}, t('howto.title')));
  d.open = page.howtoOpen ?? !(page.state?.moves || []).length;
  d.ontoggle = () => {
    page.howtoOpen = d.open;
  };
  const ol = h('ol', {});
  for (let i = 1; i <= 6; i++) ol.append(h('li', {}, t(`howto.${i}`)));
  // This game's "Staying in place" rule, in words.
  const stay = /\bstay=([a-z-]+)/.exec(page.state?.variant || '')?.[1] || 'out-and-back';
  ol.append(h('li', { 'data-howto-stay': stay }, t(`howto.stay.${stay}`)));
  // Where the page offers the turn that stays, and the pass.
  ol.append(h('li', { 'data-howto-buttons': '' }, t('howto.buttons')));
  d.append(ol);
  return d;
}

function renderWallControls() {
  const st = page.state;
  const box = $('#controls');
  if (!st || st.game !== 'wallgo' || !box) return;
  box.replaceChildren();
  const mine = mySeats();
  const player = mine.length || hasUnknownToken();
  if (!player || st.status === 'finished') return;
  const stage = page.board?.stage?.() || { stage: 'idle' };
  const hint = { place: 'turn.you.place', piece: 'turn.you.piece', dest: 'turn.you.dest', wall: 'turn.you.wall' }[stage.stage];
  const row = h('div', { class: 'row' });
  if (stage.stage === 'wall') {
    const arrows = { N: '↑', E: '→', S: '↓', W: '←' };
    for (const s of ['N', 'E', 'S', 'W']) {
      const b = btn(`${arrows[s]} ${stage.to}/${s}`, () => page.board.chooseSide(s), 'wallside', `wall-${s}`, !stage.sides.includes(s));
      row.append(b);
    }
  }
  if (stage.stage === 'dest' && stage.stay) row.append(btn(t('btn.wallstay', stage.from), () => page.board.staySelected(), '', 'wallstay'));
  if (stage.stage === 'dest' && stage.pass) row.append(btn(t('btn.wallpass'), () => page.board.passSelected(), '', 'wallpass'));
  if (stage.stage === 'dest' || stage.stage === 'wall') row.append(btn(t('btn.cancel'), () => page.board.reset(), 'quiet', 'cancel'));
  row.append(resignButton());
  box.append(row);
  box.append(wallHowTo());
  // Keep the status line in step with the picker.
  const turn = $('#status .turn');
  if (turn && hint) turn.textContent = t(hint);
}

function renderResult() {
  const st = page.state;
  const box = $('#result');
  box.replaceChildren();
  $('#table').replaceChildren();
  if (st.status !== 'finished' || !st.result) return;
  const r = st.result;
  box.append(h('h2', { class: 'result-line', 'data-result': r.text, 'data-reason': r.reason }, resultText(st)));
  if (r.detail) box.append(h('p', { class: 'detail' }, say(r.code, r.args, r.detail)));
  const rc = ratingChanges(st);
  if (rc) box.append(rc);
  if (st.game === 'go') {
    if (st.marking) box.append(legendGo());
    const checks = checksList(st);
    if (checks) box.append(checks);
    if (r.rows?.length) $('#table').append(scoreTable(st));
    box.append(h('a', { class: 'button', href: api.recordUrl(id), download: `${id}.sgf`, 'data-download': 'sgf' }, t('btn.sgf')));
  } else {
    box.append(wallScore(st));
    box.append(h('a', { class: 'button', href: api.recordUrl(id), download: `${id}.wall`, 'data-download': 'record' }, t('btn.record')));
  }
}

// ---- rating changes of a rated game ---------------------------------------------------------
// The players' profiles hold their rating history, one point a rated game (`game` names it):
// this game's point and the one before it are the change.

function ratingChanges(st) {
  // The server's own account of it: `rating_changes` {seat: {kind, before, after, deviation,
  // rank_before, rank_after}} in the state of a finished rated game.
  if (st.rating_changes && typeof st.rating_changes === 'object') {
    const rows = Object.entries(st.rating_changes).map(([seat, c]) => ({
      name: st.seats?.[seat]?.player?.name || seatName(st, seat),
      kind: c.kind,
      before: { rating: c.before, rank: c.rank_before },
      after: { rating: c.after, deviation: c.deviation, rank: c.rank_after },
    }));
    if (rows.length) return ratingRows(rows[0].kind || kindOf(st.game, st.game === 'go' ? st.size : null), rows);
  }
  const named = Object.entries(st.seats || {}).filter(([, i]) => i.player && !/^guest-/.test(i.player.name) || (i.player && account()?.name === i.player.name));
  if (!named.length || st.rated === false) return null;
  const kind = kindOf(st.game, st.game === 'go' ? st.size : null);
  if (!kind) return null;
  if (!page.rc) {
    page.rc = { rows: null, tries: 0 };
    loadRatingChanges(st, kind, named);
  }
  if (!page.rc.rows || !page.rc.rows.length) return null;
  return ratingRows(kind, page.rc.rows);
}

/** Each player's rating before → after, and the change. */
function ratingRows(kind, rows) {
  const ul = h('ul', { class: 'rating-change', 'data-rating-change': '' });
  for (const r of rows) {
    const d = Math.round(r.after.rating) - Math.round(r.before.rating);
    ul.append(
      h('li', { 'data-player': r.name, 'data-delta': d, 'data-after': Math.round(r.after.rating) }, h('strong', {}, userName(r.name)), ' ', ratingLong(kind, r.before), ' → ', ratingLong(kind, r.after), ' ', h('b', { class: d >= 0 ? 'up' : 'down' }, `${d >= 0 ? '+' : '−'}${Math.abs(d)}`)),
    );
  }
  return h('div', { class: 'ratings-box' }, h('h3', {}, t('rating.change')), ul);
}

async function loadRatingChanges(st, kind, named) {
  const rows = [];
  for (const [, info] of named) {
    try {
      const p = await api.player(info.player.name);
      const hist = [...(p.history?.[kind] || [])].sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
      const i = hist.findIndex((x) => x.game === id);
      if (i < 0) continue;
      const before = i > 0 ? hist[i - 1] : { rating: 1500, deviation: 350 };
      rows.push({ name: info.player.name, before, after: hist[i] });
    } catch {
      /* a guest (no profile) or a server without profiles */
    }
  }
  page.rc.rows = rows;
  // The update is stored with the result; a profile read a moment early may not have it yet.
  if (rows.length < named.length && page.rc.tries++ < 3) {
    setTimeout(() => {
      loadRatingChanges(st, kind, named);
    }, 1500);
  }
  if (rows.length && !page.state?.rating_changes) renderResult();
}

function scoreTable(st) {
  const rows = st.result.rows;
  const table = h('table', { class: 'scores', id: 'score-table' });
  table.append(h('caption', {}, t('table.title')));
  const head = h('tr', {});
  for (const k of ['table.rules', 'table.komi', 'table.black', 'table.white', 'table.margin', 'table.result', 'table.dead', 'table.notes']) head.append(h('th', { scope: 'col' }, t(k)));
  table.append(h('thead', {}, head));
  const body = h('tbody', {});
  const own = (st.rules || '').split(',')[0];
  // A game left without a result (disputed) has no row that is "this game's result".
  const decided = !(st.result.reason === 'disputed' && !st.result.winner);
  for (const r of rows) {
    const name = String(r.rules || '');
    const mineRow = decided && (name === st.rules || name.split(',')[0] === own);
    const tr = h('tr', { class: mineRow ? 'this' : '' });
    tr.append(h('th', { scope: 'row', title: name }, ruleName(name), mineRow ? h('small', {}, ` ← ${t('table.this')}`) : ''));
    tr.append(h('td', { class: 'num' }, fmtNum(r.komi)));
    tr.append(h('td', { class: 'num' }, fmtNum(r.black)));
    tr.append(h('td', { class: 'num' }, fmtNum(r.white)));
    tr.append(h('td', { class: 'num' }, fmtNum(r.margin)));
    tr.append(h('td', { class: `res ${r.winner === 'B' || r.winner === 'black' ? 'wb' : r.winner === 'W' || r.winner === 'white' ? 'ww' : ''}`, 'data-re': r.result ?? '' }, resultShort(r.result ?? '')));
    tr.append(h('td', { class: 'num' }, String((r.dead || []).length)));
    tr.append(h('td', { class: 'notes' }, (r.notes || []).map(noteText).join('; ')));
    body.append(tr);
  }
  table.append(body);
  return h('div', { class: 'table-wrap' }, table);
}

function wallScore(st) {
  const count = { A: 0, B: 0, mixed: 0, neutral: 0 };
  for (const r of st.regions || []) count[r.kind] = (count[r.kind] || 0) + r.cells.length;
  if (st.score) {
    count.A = st.score.A ?? count.A;
    count.B = st.score.B ?? count.B;
    count.neutral = st.score.neutral ?? count.neutral;
  }
  const box = h('div', { class: 'legend regions' });
  for (const k of ['A', 'B', 'mixed', 'neutral']) {
    if (k === 'mixed' && !count.mixed) continue;
    box.append(h('span', { 'data-region': k }, h('i', { class: `sw region-${k}` }, { A: 'A', B: 'B', mixed: 'M', neutral: 'N' }[k]), ` ${t(`region.${k}`)}: `, h('b', {}, String(count[k]))));
  }
  return box;
}

function renderMoves() {
  const st = page.state;
  const list = $('#moves');
  list.replaceChildren();
  const moves = st.moves || [];
  const finished = st.status === 'finished';
  const current = page.replay ? page.replay.n : finished ? moves.length : -1;
  moves.forEach((m, i) => {
    const label = `${i + 1}. ${m === 'pass' ? t('move.pass') : m}`;
    // A finished game's moves are buttons: a click replays to that move.
    const li = h('li', { 'data-move': i + 1 }, finished ? h('button', { type: 'button', class: 'mv', title: t('moves.jump', i + 1) }, label) : label);
    if (current === i + 1) li.className = 'current';
    if (finished) li.firstChild.onclick = () => replayTo(i + 1);
    list.append(li);
  });
  list.querySelector('li.current')?.scrollIntoView?.({ block: 'nearest' });
  $('#moves-count').textContent = String(moves.length);
}

// ---- replay ---------------------------------------------------------------------------------

function total() {
  return (page.state.moves || []).length;
}

function renderReplayBar() {
  const st = page.state;
  const bar = $('#replay');
  if (st.status !== 'finished') {
    bar.hidden = true;
    return;
  }
  bar.hidden = false;
  const n = page.replay ? page.replay.n : total();
  $('#replay-pos').textContent = t('replay.move', n, total());
}

async function replayTo(n) {
  const st = page.state;
  if (!st || st.status !== 'finished') return;
  n = Math.max(0, Math.min(total(), n));
  if (!page.replay) page.replay = { n: total(), want: total(), states: new Map() };
  const r = page.replay;
  r.want = n; // keys pressed quickly count from here, not from the position still loading
  if (n < total() && !r.states.has(n)) {
    try {
      r.states.set(n, await api.state(id, n));
    } catch (e) {
      showMessage(e.message);
      return;
    }
  }
  if (r.want !== n) return; // a later key press won
  r.n = n;
  r.active = n < total();
  renderPlayers();
  tick();
  renderBoard();
  renderReplayBar();
  renderMoves();
  renderControls();
}

function setupReplay() {
  const go = (d) => () => replayTo(d === 'first' ? 0 : d === 'last' ? total() : (page.replay ? page.replay.want : total()) + d);
  $('#rp-first').onclick = go('first');
  $('#rp-prev').onclick = go(-1);
  $('#rp-next').onclick = go(1);
  $('#rp-last').onclick = go('last');
  document.addEventListener('keydown', (e) => {
    if (!page.state || page.state.status !== 'finished') return;
    if (e.target.closest && e.target.closest('input, select, textarea')) return;
    const map = { ArrowLeft: -1, ArrowRight: 1, Home: 'first', End: 'last' };
    if (e.key in map) {
      go(map[e.key])();
      e.preventDefault();
    }
  });
}

// ---- seats ----------------------------------------------------------------------------------

async function sit(seat) {
  try {
    const r = await api.join(id, seat, inviteSecret(id));
    holdSeat(id, r.seat || seat, r.token);
    showMessage(null);
    apply(await api.state(id));
  } catch (e) {
    showMessage(e.code ? say(e.code, e.args, e.message) : e.message);
  }
}

/** "Copy link": the page's own URL, the spectator's (the seat token never is in it). */
function watchLink() {
  const url = `${location.origin}/g/${encodeURIComponent(id)}`;
  return copyButton(url, t('copy.watch'), { class: 'small quiet', 'data-copy': 'watch', 'data-url': url });
}

function renderInvites() {
  const inv = invites(id);
  const box = $('#invites');
  box.replaceChildren();
  if (page.state) box.append(h('p', { class: 'watch-link' }, watchLink()));
  // Links for seats still waiting for their player (a joined seat needs no invitation).
  const seats = Object.keys(inv).filter((s) => page.state?.seats?.[s] && !page.state.seats[s].joined);
  if (!seats.length || page.state?.status === 'finished') return;
  box.append(h('h3', {}, t('share')));
  for (const s of seats) {
    const input = h('input', { readonly: '', value: inv[s], 'aria-label': seatName(page.state, s), 'data-invite': s });
    const copy = copyButton(inv[s]);
    // The game's own address (an open seat): the friend joins there as themselves.
    if (!/[#&]token=/.test(inv[s])) {
      box.append(h('label', { class: 'invite' }, h('span', {}, seatName(page.state, s)), input, copy), h('p', { class: 'hint' }, t('invite.self')));
      continue;
    }
    // A link sent to the wrong person: a new one, and the old one stops working.
    const fresh = h('button', { class: 'small quiet', type: 'button', 'data-rotate': s }, t('invite.new'));
    fresh.onclick = () => rotateInvite(s, inv[s]);
    box.append(h('label', { class: 'invite' }, h('span', {}, seatName(page.state, s)), input, copy, fresh));
  }
}

/** Asks the server for a new token for an invited seat (the old link is refused from then on). */
async function rotateInvite(seat, link) {
  const token = new URLSearchParams(new URL(link, location.origin).hash.slice(1)).get('token');
  if (!token) return;
  try {
    const r = await api.rotate(id, seat, token);
    saveInvite(id, seat, seatLink(r.url, seat));
    showMessage(t('invite.renewed', seatName(page.state, seat)), 'info');
  } catch (e) {
    showMessage(e.status === 404 ? t('invite.unavailable') : e.status ? say(e.code, e.args, e.message) : t('error.network'));
  }
  renderInvites();
}

// ---- start ----------------------------------------------------------------------------------

function notFound() {
  notFoundView(t('notfound.title'), t('notfound.body', id));
}

/**
 * The first state. Each token this browser holds for the game is shown to the server once: its
 * answer names the token's seat (`you`) and marks the seat joined. A token the server refuses
 * (another database, a typo) is forgotten, and the page opens as a spectator's.
 */
async function firstState() {
  const held = heldSeats(id);
  let st = null;
  for (const [seat, token] of Object.entries(held)) {
    try {
      st = await api.state(id, undefined, token);
    } catch (e) {
      if (e.status === 401 || e.status === 403) {
        forgetSeat(id, seat);
        continue;
      }
      throw e;
    }
    if (st.you && st.you !== seat) {
      forgetSeat(id, seat);
      holdSeat(id, st.you, token);
    }
  }
  // Without a seat token (or besides one) the cookie's account may hold a seat: `you` says which.
  const plain = await api.state(id);
  if (plain.you) page.cookieYou = plain.you;
  return st && st.version >= plain.version ? st : plain;
}

async function start() {
  initChrome(() => {
    applyStatic();
    repaintAccount();
    page.chat?.relabel();
    if (page.state) {
      render();
      renderInvites();
    } else if (!$('#notfound').hidden) notFound();
  });
  // The session and the state side by side, and the board drawn as soon as the state is here:
  // the state already says which seat the cookie's account holds (`you`), and a first visit's
  // guest holds no seat yet. The header, the "join as yourself" labels and the chat follow the
  // session when it arrives; the socket opens after it, so that it carries the session's cookie.
  const session = initAccount();
  setupReplay();
  if (!id) return notFound();
  try {
    apply(await firstState());
  } catch (e) {
    if (e.status === 404 || e.status === 400) return notFound();
    showMessage(e.status ? e.message : t('error.network'));
  }
  await session;
  if (page.state) render();
  else renderInvites();
  let dropped = false;
  page.chat = new Chat($('#chat'), {
    id,
    send: (msg) => page.ws?.send(msg),
    // The server's view: a seat of this account, or one a `hello` with a seat token proved.
    isPlayer: () => !!account() && mySeats().length > 0,
    canWrite: () => !!account(),
  });
  page.chat.load();
  page.ws = connect(id, {
    seat: () => Object.keys(heldSeats(id)).some((s) => s !== '?'),
    onMessage(msg) {
      if (msg.type === 'chat' && msg.message) page.chat.add(msg.message);
      else if (msg.type === 'error' && /^chat-/.test(String(msg.id))) page.chat.failed(msg);
      else if (msg.type === 'chat_ack') page.chat.acked(msg);
      else if (msg.type === 'muted' || msg.type === 'hello') {
        /* answers to our own mute and hello */
      }
      else if (msg.type === 'delta' && msg.delta) applyChange(msg.delta);
      else if (msg.type === 'review' && msg.id) document.dispatchEvent(new CustomEvent('baduk:review', { detail: msg }));
      else if (msg.type === 'state' && msg.state) {
        page.syncAt = 0;
        apply(msg.state);
        if (dropped) {
          dropped = false;
          if (page.message?.kind === 'conn') showMessage(null);
        }
      } else if (msg.type === 'clock' && msg.clocks && page.state) {
        page.state.clocks = msg.clocks;
        page.at = performance.now();
        tick();
      }
    },
    onStatus(s) {
      document.body.dataset.ws = s;
      if (s === 'open') {
        page.helloSent = null;
        hello();
        page.chat?.reconnected();
      }
      if (s === 'closed' && page.state && page.state.status !== 'finished') {
        dropped = true;
        showMessage(t('conn.lost'), 'conn');
      }
    },
  });
  window.__baduk.ws = page.ws;
  watchTurns();
  onTurns(() => {
    if (page.state) renderStatus();
  });
  setInterval(tick, 200);
}

start();
