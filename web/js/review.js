// The review page (/r/{id}): a stored record and its whole tree (variations, comments, markup),
// its legality under each rule set, the rules lab — dead chains toggled on any position, the
// table of every rule set recomputed by the server (docs/api.md, "Reviews") — and the review
// room: the owner's board followed live, edits by whoever has control, a copy explored alone.
// Wall Go records replay with their regions.

import { lang, t } from './i18n.js';
import { writeHeaders, session } from './api.js';
import { h, put, addTo, fmtNum, ruleName, noteText, initChrome, say, resultShort, variantWords } from './ui.js';
import { GoBoard } from './go-board.js';
import { Room } from './review-room.js';
import { RoomPanel, refusal } from './review-room-ui.js';
import { Tools, drawMarkup } from './review-markup.js';
import { drawGraph, drawBranches, nodeWords } from './review-branches.js';
import { EditPanel } from './review-edit.js';
import { NodeEngine } from './review-node.js';

const S = {
  en: {
    title: 'Review',
    notfound: 'No such review',
    move: 'Move {0} / {1}',
    start: 'Start / {0}',
    moves: 'Moves ({0})',
    pass: 'pass',
    first: 'First move',
    prev: 'Previous move',
    next: 'Next move',
    last: 'Last move',
    slider: 'Move number',
    rules: 'Rules',
    accepted: 'Accepted by: {0}',
    rejected: 'Rejected by: {0}',
    none: 'none',
    illegal: 'Move {0} is illegal under {1}: {2}',
    illegal_here: 'The next move is illegal under {0}: {1}',
    after_illegal: 'After an illegal move under {0} (move {1}).',
    end: 'Game over: {0}',
    lab: 'Rules lab',
    lab_hint: 'Click a stone to mark its chain dead or alive; the table is recounted by the server.',
    score_here: 'Score this position',
    restore: 'Back to the proposal',
    overlay: 'Show unconditional status (Benson)',
    dead: 'Dead: {0}',
    from_estimator: 'dead stones proposed by the estimator',
    from_file: "dead stones from the file's marks",
    from_marks: 'dead stones as you marked them',
    unsettled: 'Unsettled (playout majority): {0}',
    seki: 'Seki points: {0}',
    not_finished: 'The game is not finished here: scored as if it ended now.',
    table: 'Every rule set at move {0}: counted now, as if the game ended here',
    record_first: 'The record says: {0}.',
    record_resign: 'The game ended by resignation, not by a count: the rows below count the board as it stands.',
    record_time: 'The game ended on time, not by a count: the rows below count the board as it stands.',
    record_forfeit: 'The game ended by forfeit, not by a count: the rows below count the board as it stands.',
    record_unfinished: 'The game is not over at this move: the rows below count the board as it stands.',
    record_count: 'Counted here under its own rules: {0} (komi {1}); a count can differ by the stones taken as dead, the komi or the rule set.',
    points_lost: ', {0} points',
    col_rules: 'Rules',
    col_komi: 'Komi',
    col_black: 'Black',
    col_white: 'White',
    col_result: 'Result',
    col_notes: 'Notes',
    why: 'Why they differ',
    why_line: '{0} ({1}) vs {2} ({3}): {4}',
    agree: 'Every rule set gives the same winner.',
    export: 'Download the record',
    wall_score: 'A {0} · B {1} · neutral {2}',
    wall_result: 'Result: {0}',
    legend: 'Overlay: ● alive, ✕ dead, ▲ black territory, △ white territory',
    busy: 'Counting…',
    black: 'Black',
    white: 'White',
    error: 'Error: {0}',
    engine: 'Engine review',
    run: 'Run the engine review',
    engine_hint: 'The engine searches every position of the main line on the server ({0}); results are kept.',
    queued: 'Waiting: {0} reviews before this one',
    queued_next: 'Waiting: this review is next',
    running: 'Analysing…',
    partial: 'Paused (resumes when this page is open)',
    done_all: 'Done',
    progress: '{0} / {1} positions',
    graph: 'Win rate (Black) and score lead across the game',
    graph_wall: "A's evaluation across the game (secured area and room)",
    mistakes: 'Biggest drops',
    mistake: 'Move {0} ({1} {2}): {3} — engine prefers {4}',
    best_here: 'Engine here: {0} to move, Black {1}%, lead {2}; prefers {3}',
    best_wall: 'Engine here: {0} to move, value for A {1}; best turn {2}',
    pv: 'Show the principal variation',
    pv_wall: "Show the engine's best turn on the board",
    legend_wall: 'Violet dashes: the engine’s best turn (arrow to the hollow ring, then its wall); orange: the move just played',
    wr: 'win rate',
    lead: 'lead',
    budget_go: '{0} playouts, ≤ {1} s',
    budget_wall: 'expert, {0} nodes, ≤ {1} s',
    info_rules: 'rules',
    info_komi: 'komi',
    info_result: 'result',
    info_game: 'game {0} of {1}',
    wall_place: 'place {0}',
    wall_pass: '{0} pass',
    move_var: 'Move {0} · a variation',
    tree: 'Moves and variations ({0})',
    local_only: 'This position is only in your copy: the server counts and searches positions of the shared board.',
    analyse_here: 'Search this position',
    graph_lead: "Black's score lead (and win rate) across the game",
    graph_show: 'Graph:',
    graph_lead_word: 'score lead',
    graph_wr_word: 'win rate',
  },
  ko: {
    title: '복기',
    notfound: '없는 복기입니다',
    move: '{0} / {1}수',
    start: '처음 / {0}수',
    moves: '수순 ({0})',
    pass: '패스',
    first: '첫 수',
    prev: '이전 수',
    next: '다음 수',
    last: '마지막 수',
    slider: '수 번호',
    rules: '규칙',
    accepted: '허용하는 규칙: {0}',
    rejected: '허용하지 않는 규칙: {0}',
    none: '없음',
    illegal: '{0}수는 {1}에서 반칙입니다: {2}',
    illegal_here: '다음 수는 {0}에서 반칙입니다: {1}',
    after_illegal: '{0}에서 반칙인 수({1}수) 이후입니다.',
    end: '대국 종료: {0}',
    lab: '규칙 실험실',
    lab_hint: '돌을 누르면 그 돌 무리가 죽은 돌/산 돌로 바뀌고, 서버가 모든 규칙으로 다시 계가합니다.',
    score_here: '이 국면 계가',
    restore: '제안으로 되돌리기',
    overlay: '무조건 삶·죽음 표시 (벤슨)',
    dead: '죽은 돌: {0}',
    from_estimator: '추정기가 제안한 죽은 돌',
    from_file: '기보 파일의 표시에 따른 죽은 돌',
    from_marks: '직접 표시한 죽은 돌',
    unsettled: '미정 (플레이아웃 다수결): {0}',
    seki: '세키 점: {0}',
    not_finished: '이 국면에서는 대국이 끝나지 않았습니다: 지금 끝난 것으로 계가합니다.',
    table: '{0}수에서 규칙별 결과: 지금 끝난 것으로 계가',
    record_first: '기보의 결과: {0}.',
    record_resign: '불계로 끝난 대국이라 계가한 결과가 아닙니다: 아래 표는 지금 판을 계가합니다.',
    record_time: '시간패로 끝난 대국이라 계가한 결과가 아닙니다: 아래 표는 지금 판을 계가합니다.',
    record_forfeit: '부전으로 끝난 대국이라 계가한 결과가 아닙니다: 아래 표는 지금 판을 계가합니다.',
    record_unfinished: '이 수에서는 대국이 끝나지 않았습니다: 아래 표는 지금 판을 계가합니다.',
    record_count: '기보의 규칙으로 여기서 계가하면 {0} (덤 {1}); 사석 판정, 덤, 규칙이 다르면 계가가 달라질 수 있습니다.',
    points_lost: ', {0}집',
    col_rules: '규칙',
    col_komi: '덤',
    col_black: '흑',
    col_white: '백',
    col_result: '결과',
    col_notes: '비고',
    why: '결과가 다른 이유',
    why_line: '{0} ({1}) 대 {2} ({3}): {4}',
    agree: '모든 규칙에서 승자가 같습니다.',
    export: '기보 내려받기',
    wall_score: 'A {0} · B {1} · 중립 {2}',
    wall_result: '결과: {0}',
    legend: '표시: ● 삶, ✕ 죽음, ▲ 흑 집, △ 백 집',
    busy: '계가 중…',
    black: '흑',
    white: '백',
    error: '오류: {0}',
    engine: '엔진 복기',
    run: '엔진 복기 시작',
    engine_hint: '서버의 엔진이 주 수순의 모든 국면을 탐색합니다 ({0}). 결과는 저장됩니다.',
    queued: '대기 중: 앞에 {0}개의 복기',
    queued_next: '대기 중: 다음 차례입니다',
    running: '분석 중…',
    partial: '멈춤 (이 페이지를 열면 이어서 분석)',
    done_all: '완료',
    progress: '{0} / {1} 국면',
    graph: '대국 전체의 흑 승률과 집 차이',
    graph_wall: '대국 전체에 걸친 A의 평가 (확보한 영역과 여지)',
    mistakes: '가장 큰 손해',
    mistake: '{0}수 ({1} {2}): {3} — 엔진 추천 {4}',
    best_here: '이 국면의 엔진: {0} 차례, 흑 승률 {1}%, 차이 {2}; 추천 {3}',
    best_wall: '이 국면의 엔진: {0} 차례, A 평가 {1}; 추천 {2}',
    pv: '예상 수순 보기',
    pv_wall: '판 위에 엔진의 추천 수 보기',
    legend_wall: '보라색 점선: 엔진의 추천 수 (빈 고리까지의 화살표와 그 벽) · 주황색: 방금 둔 수',
    wr: '승률',
    lead: '차이',
    budget_go: '국면마다 플레이아웃 {0}회, 최대 {1}초',
    budget_wall: '전문가 수준, 노드 {0}개, 최대 {1}초',
    info_rules: '규칙',
    info_komi: '덤',
    info_result: '결과',
    info_game: '{1}국 중 {0}국',
    wall_place: '{0} 배치',
    wall_pass: '{0} 넘김',
    move_var: '{0}수 · 변화도',
    tree: '수순과 변화도 ({0})',
    local_only: '이 국면은 내 사본에만 있습니다: 서버는 함께 보는 판의 국면만 계가하고 탐색합니다.',
    analyse_here: '이 국면 탐색',
    graph_lead: '대국 전체의 흑 집 차이 (와 승률)',
    graph_show: '그래프:',
    graph_lead_word: '집 차이',
    graph_wr_word: '승률',
    // How a replay ended (the server's `end_code`; English pages print its own sentence).
    'end.passes': '연속 착수포기로 끝남',
    'end.jk_sequence': '한일 규칙 4.3조의 끝내기 순서로 끝남',
    'end.agreement': '합의로 끝남',
    'end.resignation': '{color} 불계패',
    'end.loss.suicide': '{color} 패: {at}수의 자충수 (한일 규칙 2.4조)',
    'end.loss.repetition': '{color} 패: {at}수가 두 수 전의 모양을 되풀이함 (한일 규칙 3.2조)',
    'end.loss.time': '{color} 시간패 ({at}수 뒤)',
    'end.jk_repetition': '{first}수와 {second}수 뒤의 모양이 {third}수에서 세 번째로 나옴 (한일 규칙 3.3조). 그 사이 따낸 돌 흑 {black} 백 {white}: {outcome}',
    'end.no_result': '무승부 없는 무효: {from}수부터 {to}수까지 같은 모양이 되풀이됨',
    'end.move_limit': '수 제한에 닿음 ({limit})',
    win: '{0} 승',
    draw: '무승부',
    // Why two rule sets disagree (the server's `reasons`): what differs, and each side's value.
    'why.counting': '계산법: {0} 대 {1}',
    'why.komi': '덤 {0} 대 {1}',
    'why.seki': '빅의 공배: {0} 대 {1}',
    'why.passes': '착수포기: {0} 대 {1}',
    'why.handicap': '치석 보상: {0} 대 {1}',
    'why.life': '사활 판정: {0} 대 {1}',
    'why.settlement': '계산법은 같고 사석 판정이 다릅니다',
    'counting.territory': '집 계산',
    'counting.area': '면적 계산',
    'counting.ing': '응씨 채우기 계산',
    'counting.jk': '한일 규칙 계산',
    'counting.kang': '바둑의 정의 (강) 계산',
    'seki.none': '집이 아님',
    'seki.counted': '닿는 쪽의 집',
    'seki.halves': '반씩 나눔',
    'seki.proportional': '돌 수에 비례해 나눔',
    'passes.plain': '대가 없음',
    'passes.stones': '착수포기 돌',
    'passes.aga': '착수포기 돌 (백이 마지막에 착수포기)',
    'passes.jk': '한일 규칙의 착수포기',
    'handicap.0': '없음',
    'handicap.n': '치석 수만큼',
    'handicap.n-1': '치석 수 − 1',
    'life.as-is': '모든 돌을 산 돌로 셈',
    'life.resume': '이어 두어 가림',
    'life.verify': '검증 대국',
    'life.japanese': '일본 규칙 제7조의 확인',
    'limit.void': '{0}수, 무효',
    'limit.draw': '{0}수, 무승부',
    'limit.komi': '{0}수, 덤으로 결정',
  },
};

function tr(key, ...args) {
  const s = S[lang()][key] ?? S.en[key] ?? key;
  return s.replace(/\{(\d)\}/g, (_, k) => String(args[+k] ?? ''));
}

/** The page's own words for `key` (this language only), with `{name}` filled from `args`; null
 * where the page has none (the server's English sentence is shown then). */
function own(key, args = {}) {
  const s = S[lang()][key];
  return s === undefined ? null : s.replace(/\{(\w+)\}/g, (_, k) => String(args[k] ?? ''));
}

const colorWord = (c) => (c === 'B' ? tr('black') : c === 'W' ? tr('white') : c);

/** How an accepted record's replay ended, in the page's language. */
function endText(v) {
  const a = { ...(v.end_args || {}) };
  for (const k of ['color', 'winner']) if (a[k]) a[k] = colorWord(a[k]);
  a.outcome = a.winner ? own('win')?.replace('{0}', a.winner) : own('draw');
  const lim = /^(void|draw|komi):(\d+)$/.exec(a.limit || '');
  if (lim) a.limit = own(`limit.${lim[1]}`)?.replace('{0}', lim[2]) ?? a.limit;
  return (v.end_code && own(`end.${v.end_code}`, a)) || v.end;
}

/** Why two rule sets give different winners, in the page's language. */
function whyText(w) {
  const words = (w.reasons || []).map((r) => {
    const value = (x) => own(`${r.key}.${x}`) ?? x;
    return own(`why.${r.key}`)?.replace('{0}', value(r.a)).replace('{1}', value(r.b));
  });
  return words.length && words.every(Boolean) ? words.join('; ') : w.why;
}

/** A Wall Go record line in the page's language: a placement, a turn (as written), a pass. */
function wallMoveText(m) {
  const mv = parseTurn(m);
  if (mv?.placed) return tr('wall_place', mv.placed);
  if (mv?.pass) return tr('wall_pass', mv.pass);
  return m;
}

/** A move as the page writes it: a pass in words, a Wall Go turn as `wallMoveText` gives it. */
function moveWord(mv) {
  if (view.data.game !== 'go') return wallMoveText(mv);
  return mv === 'pass' ? tr('pass') : mv;
}

/** Points as a person reads them: to 0.1 (20.1, 5.9, 3), never a float's tail or −0. */
function points(v) {
  const r = Math.round(v * 10) / 10;
  return String(r === 0 ? 0 : r);
}

/** A win rate as a whole percent (0.537 → 54). */
function percent(v) {
  return String(Math.round(v * 100));
}

/** The engine's lead: Black's when positive (B+3.5; in Korean, 흑 +3.5), to 0.1 point. */
function leadText(score) {
  const [who, n] = score > 0 ? ['B', score] : ['W', -score];
  return lang() === 'ko' ? `${colorWord(who)} +${points(n)}` : `${who}+${points(n)}`;
}

/** An illegal move's sentence in the page's language (the rule's code), or the server's. */
function illegalText(il) {
  return say(il.code, il.args, il.message);
}

const $ = (id) => document.getElementById(id);
const id = decodeURIComponent(location.pathname.split('/').pop() || '');
const view = {
  data: null,
  pos: 0,
  rules: 0, // index into data.legality
  lab: null, // the last table from the server: {move, dead, rows, …}
  overlay: false,
  busy: false,
  message: '',
  analysis: null,
  showPv: true,
  node: 0, // Go: the node shown (review-tree.js ids)
  recLine: [], // Go: the record's main line, node ids by move number
  recPos: new Map(), // node id → its move number on the record's main line
  labAt: null, // the node view.lab was counted at
  line: [], // Go: the path from the root to the node shown, as last drawn
  graph: 'lead', // what the engine's graph draws: Black's score lead, or 'winrate'
};
let room = null;
let panel = null;
let tools = null;
let editor = null;
let engineHere = null;
let goBoard = null;
let wallBoard = null;
let parseTurn = null; // wall-board.js's, loaded for Wall Go records only

async function call(method, path, body) {
  // A write carries the session's CSRF value (the browser sends the session cookie).
  const headers = method === 'GET' ? {} : await writeHeaders();
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) throw new Error((data && data.error) || `${res.status}`);
  return data;
}

/** The tree shown: the room's, or the copy explored alone. */
const tree = () => room.tree();

/** Where node `nid` sits on the record's main line (its move number), or null off it. */
function recAt(nid) {
  const k = view.recPos.get(nid);
  return k === undefined || !tree().node(nid) ? null : k;
}

/** The record's main line in the tree: from the root, the child playing each record move. */
function findRecord(tn, d) {
  const line = [tn.root];
  for (const m of d.moves) {
    const c = tn.childWith(line[line.length - 1], m.color, m.move);
    if (!c) break;
    line.push(c.id);
  }
  view.recLine = line;
  view.recPos = new Map(line.map((nid, k) => [nid, k]));
}

function verdict() {
  return view.data.legality?.[view.rules] ?? null;
}

/** Goes to move `pos` of the record's main line (Go: its node in the tree). */
function go(pos) {
  const d = view.data;
  if (d.game !== 'go') {
    view.pos = Math.max(0, Math.min(d.moves.length, pos));
    render();
    return;
  }
  const line = view.recLine.filter((nid) => tree().node(nid));
  select(line[Math.max(0, Math.min(line.length - 1, pos))]);
}

/**
 * Shows node `nid`. The controller's page moves the room's cursor with it; a watcher who steps
 * away from the board the room follows explores alone from there.
 */
function select(nid) {
  if (!tree().node(nid)) nid = tree().root;
  if (room.live && !room.alone && !room.inControl() && room.controller && nid !== room.cursor) room.exploreAlone(nid);
  view.node = nid;
  if (room.alone) room.alone.node = nid;
  else room.moveCursor(nid);
  render();
}

/** The room (or the copy) changed: what to show now. */
function changed(what) {
  if (!view.data) return;
  if (what === 'remap') remap();
  const tn = tree();
  if (what === 'cursor' && !room.alone) {
    if (room.inControl()) {
      // The controller's page coming in: a fresh room's cursor (the start) follows the page.
      if (!view.roomSeen && room.cursor !== tn.root && tn.node(room.cursor)) view.node = room.cursor;
      else room.moveCursor(view.node);
    } else if (room.controller && tn.node(room.cursor)) {
      view.node = room.cursor;
    }
    view.roomSeen = true;
  }
  if (what === 'tree' && room.alone) view.node = room.alone.node;
  // A node deleted under the view: the view goes up its line to what is left.
  if (!tn.node(view.node)) view.node = [...view.line].reverse().find((k) => tn.node(k)) ?? tn.root;
  render();
}

/**
 * The room's tree came in place of the summary's main line (drawn while it came): its ids
 * differ, so the record's line, the node shown and the lab's node are found again in it.
 */
function remap() {
  const at = (nid) => view.recPos.get(nid);
  const [k, lab] = [at(view.node), at(view.labAt)];
  findRecord(room.shared, view.data);
  const line = view.recLine;
  view.node = line[Math.min(k ?? line.length - 1, line.length - 1)];
  view.labAt = lab === undefined ? null : line[Math.min(lab, line.length - 1)];
  view.line = [];
  engineHere = new NodeEngine(id, render);
}

/** Whether a click on the board may change the tree shown (the copy, or the room's as its controller). */
function editable() {
  return view.data.game === 'go' && !room.provisional && (!!room.alone || room.inControl());
}

/** Makes one op: on the room's tree (controller), else on a copy explored alone. */
async function edit(op) {
  if (!room.alone && !room.inControl()) room.exploreAlone(view.node);
  view.message = '';
  try {
    const nid = await room.edit(op);
    if (op.op === 'move' && nid !== null) return select(nid);
    // A deleted branch under the view left it at the branch's parent (`changed`).
    if (op.op === 'delete') return select(view.node);
  } catch (e) {
    view.message = tr('error', refusal(e));
  }
  render();
}

/** The next-move stones of the player to move, as the board's hover shows them. */
function emptyPoints(grid) {
  const out = new Set();
  grid.forEach((row, y) => [...row].forEach((c, x) => c === '.' && out.add(tree().name(x, y))));
  return out;
}

function renderGoBoard() {
  const d = view.data;
  const tn = tree();
  const n = tn.node(view.node);
  const b = tn.board(view.node);
  const k = recAt(view.node);
  const lab = labHere();
  const state = {
    size: d.size,
    columns: d.columns,
    board: b.grid,
    last_move: n.move && n.move.point !== 'pass' ? n.move.point : null,
    version: `${view.node}:${tn.version}`,
    phase: 'finished',
    marking: lab ? { dead: lab.dead, seki: lab.seki, territory: {} } : null,
  };
  const playing = tools.tool === 'play' && view.data.game === 'go';
  const color = tn.toMove(view.node, d.first || 'B');
  goBoard.render(state, { interactive: !view.busy, mode: playing ? 'play' : 'marking', legal: playing ? emptyPoints(b.grid) : new Set(), hoverColor: color === 'B' ? 'black' : 'white' });
  const svg = goBoard.svg;
  const NS = 'http://www.w3.org/2000/svg';
  const mark = (name, attrs) => {
    const p = goBoard.parse(name);
    if (!p) return;
    const e = document.createElementNS(NS, attrs.tag);
    delete attrs.tag;
    for (const [key, v] of Object.entries(attrs)) e.setAttribute(key, typeof v === 'function' ? v(p) : v);
    svg.appendChild(e);
  };
  // The illegal move of the chosen rule set: a red ring where it was (or is about to be) played.
  const v = verdict();
  if (k !== null && v && !v.accepts && v.illegal.move !== 'pass' && (k === v.illegal.number || k === v.illegal.number - 1)) {
    mark(v.illegal.move, { tag: 'circle', cx: (p) => p.x, cy: (p) => p.y, r: 0.4, class: 'illegal-mark', 'data-illegal': v.illegal.move });
  }
  const here = engineAt(view.node);
  if (view.showPv && here && here.pv && n.children.length + (k === null ? 1 : 0) > 0) {
    let c = here.to_move === 'W' ? 'white' : 'black';
    here.pv.slice(0, 6).forEach((mv, i) => {
      const p = goBoard.parse(mv);
      if (p && b.grid[p.y][p.x] === '.') {
        const g = document.createElementNS(NS, 'g');
        g.setAttribute('class', `pv ${c}`);
        g.setAttribute('data-pv', String(i + 1));
        const circle = document.createElementNS(NS, 'circle');
        for (const [key, val] of Object.entries({ cx: p.x, cy: p.y, r: 0.45 })) circle.setAttribute(key, val);
        const text = document.createElementNS(NS, 'text');
        for (const [key, val] of Object.entries({ x: p.x, y: p.y + 0.17 })) text.setAttribute(key, val);
        text.textContent = String(i + 1);
        g.append(circle, text);
        svg.appendChild(g);
      }
      c = c === 'black' ? 'white' : 'black';
    });
  }
  if (view.overlay && lab) {
    for (const p of lab.life.alive) mark(p, { tag: 'circle', cx: (q) => q.x, cy: (q) => q.y, r: 0.12, class: 'life alive', 'data-life': 'alive' });
    for (const p of lab.life.dead) mark(p, { tag: 'path', d: (q) => `M${q.x - 0.15} ${q.y - 0.15}L${q.x + 0.15} ${q.y + 0.15}M${q.x + 0.15} ${q.y - 0.15}L${q.x - 0.15} ${q.y + 0.15}`, class: 'life dead', 'data-life': 'dead' });
    for (const [key, cls] of [['black_territory', 'bt'], ['white_territory', 'wt']]) {
      for (const p of lab.life[key]) mark(p, { tag: 'path', d: (q) => `M${q.x} ${q.y - 0.17}L${q.x + 0.16} ${q.y + 0.12}L${q.x - 0.16} ${q.y + 0.12}Z`, class: `life ${cls}`, 'data-life': key });
    }
  }
  drawMarkup(svg, tn, view.node, tools.from);
}

function renderWallBoard() {
  const d = view.data;
  const st = { ...d.positions[view.pos], id, version: view.pos, moves: d.moves.slice(0, view.pos), legal: [] };
  st.last_move = view.pos > 0 ? d.moves[view.pos - 1] : null;
  // The engine's best turn from this position, drawn apart from the played move.
  const here = analysisAt(view.pos);
  const suggest = view.showPv && here && here.best && view.pos < d.moves.length ? here.best : null;
  wallBoard.render(st, { interactive: false, showRegions: true, suggest });
}

/** The nav's words and buttons for Wall Go: the record's actions, one by one. */
function renderWallNav() {
  const d = view.data;
  const n = d.moves.length;
  $('rv-pos').textContent = view.pos ? tr('move', view.pos, n) : tr('start', n);
  const slider = $('rv-slider');
  slider.max = String(n);
  slider.value = String(view.pos);
  $('rv-first').disabled = $('rv-prev').disabled = view.pos === 0;
  $('rv-next').disabled = $('rv-last').disabled = view.pos === n;
  $('comment').hidden = true;
  $('moves-title').textContent = tr('moves', n);
  const list = $('moves');
  if (list.children.length !== n || list.dataset.lang !== lang()) {
    list.dataset.lang = lang();
    put(list,
      ...d.moves.map((m, i) => {
        const li = h('li', { 'data-move': i + 1 }, h('button', { type: 'button', class: 'mv' }, wallMoveText(m)));
        li.firstChild.onclick = () => go(i + 1);
        return li;
      }),
    );
  }
  markCurrent(list, (li) => +li.dataset.move === view.pos, () => false);
}

/** Marks the list's current item (and an illegal one) and keeps it in sight inside the list. */
function markCurrent(list, isCurrent, isIllegal) {
  for (const li of list.children) {
    const cur = isCurrent(li);
    li.classList.toggle('current', cur);
    li.classList.toggle('illegal', isIllegal(li));
    if (cur) li.firstChild.setAttribute('aria-current', 'true');
    else li.firstChild.removeAttribute('aria-current');
  }
  // The current move in sight inside the list only: scrolling the page would hide its header.
  const cur = list.querySelector('li.current');
  if (cur) {
    const lr = list.getBoundingClientRect();
    const cr = cur.getBoundingClientRect();
    if (cr.top < lr.top) list.scrollTop -= lr.top - cr.top;
    else if (cr.bottom > lr.bottom) list.scrollTop += cr.bottom - lr.bottom;
  }
}

function renderNav() {
  const d = view.data;
  for (const [b, key] of [['rv-first', 'first'], ['rv-prev', 'prev'], ['rv-next', 'next'], ['rv-last', 'last']]) {
    $(b).title = tr(key);
    $(b).setAttribute('aria-label', tr(key));
  }
  $('rv-slider').setAttribute('aria-label', tr('slider'));
  if (d.game !== 'go') return renderWallNav();
  const tn = tree();
  const n = tn.node(view.node);
  const total = d.moves.length;
  const k = recAt(view.node);
  $('rv-pos').textContent = k === null ? tr('move_var', n.number) : k ? tr('move', k, total) : tr('start', total);
  const slider = $('rv-slider');
  slider.max = String(total);
  slider.value = String(k ?? Math.min(n.number, total));
  $('rv-first').disabled = $('rv-prev').disabled = n.parent === null;
  $('rv-next').disabled = $('rv-last').disabled = !n.children.length;
  // The comment of this node (the root's at the start); its editor when this page may edit.
  $('comment').textContent = n.comment || '';
  $('comment').hidden = !n.comment || editable();
  // The move list: the line through this node to its end, branch points marked.
  const ids = tn.path(tn.lineEnd(view.node)).slice(1);
  $('moves-title').textContent = tr('moves', ids.length);
  const list = $('moves');
  const key = `${lang()}|${tn.version}|${ids.join(',')}`;
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    put(list,
      ...ids.map((nid) => {
        const m = tn.node(nid);
        const forks = tn.node(m.parent).children.length > 1;
        const li = h('li', { 'data-move': m.number, 'data-node': nid }, h('button', { type: 'button', class: `mv${forks ? ' fork' : ''}`, title: forks ? t('rv.fork') : null }, nodeWords(m).replace(/^\d+ /, '')));
        if (m.comment) li.append(h('span', { class: 'has-comment', title: m.comment }, '💬'));
        li.firstChild.onclick = () => select(nid);
        return li;
      }),
    );
  }
  const v = verdict();
  markCurrent(list, (li) => +li.dataset.node === view.node, (li) => !!v && !v.accepts && recAt(+li.dataset.node) === v.illegal.number);
  drawBranches($('branches'), tn, view.node, select);
  $('tree-title').textContent = tr('tree', tn.nodes.size - 1);
  drawGraph($('tree-box'), tn, view.node, select);
}

function renderRules() {
  const d = view.data;
  const box = $('rules-box');
  if (d.game !== 'go') {
    const s = d.positions[view.pos].score;
    put(box,
      h('p', { class: 'wall-score', 'data-score': '' }, tr('wall_score', s.A, s.B, s.neutral)),
      d.result ? h('p', { class: 'wall-result' }, tr('wall_result', d.result.text)) : null,
    );
    return;
  }
  const sel = h(
    'select',
    { id: 'rules', 'aria-label': tr('rules') },
    ...d.legality.map((v, i) => h('option', { value: i, selected: i === view.rules }, `${ruleName(v.rules)}${v.accepts ? '' : ' ✕'}`)),
  );
  sel.onchange = () => {
    view.rules = +sel.value;
    render();
  };
  const ok = d.legality.filter((v) => v.accepts).map((v) => ruleName(v.rules));
  const bad = d.legality.filter((v) => !v.accepts).map((v) => `${ruleName(v.rules)} (${v.illegal.number})`);
  const v = verdict();
  const pos = recAt(view.node);
  let say = null;
  if (pos === null) {
    say = null; // a variation: the record's verdicts are about its main line
  } else if (v && !v.accepts) {
    const msg = illegalText(v.illegal);
    if (pos === v.illegal.number - 1) say = tr('illegal_here', ruleName(v.rules), msg);
    else if (pos === v.illegal.number) say = tr('illegal', v.illegal.number, ruleName(v.rules), msg);
    else if (pos > v.illegal.number) say = tr('after_illegal', ruleName(v.rules), v.illegal.number);
  } else if (v && v.end && pos === d.moves.length) {
    say = tr('end', endText(v));
  }
  $('why').textContent = say || '';
  put(box,
    h('label', { class: 'rules-pick' }, tr('rules'), ' ', sel),
    h('p', { class: 'accepted', id: 'accepted' }, tr('accepted', ok.length ? ok.join(', ') : tr('none'))),
    bad.length ? h('p', { class: 'rejected', id: 'rejected' }, tr('rejected', bad.join(', '))) : null,
    v && !v.accepts ? h('p', { class: 'illegal-text', id: 'illegal' }, tr('illegal', v.illegal.number, ruleName(v.rules), illegalText(v.illegal))) : null,
  );
}

function renderLab() {
  const d = view.data;
  const box = $('lab');
  const table = $('table');
  if (d.game !== 'go') {
    put(box);
    put(table);
    return;
  }
  const lab = labHere();
  const q = nodeQuery();
  const scoreBtn = h('button', { type: 'button', class: 'small', id: 'score-here', disabled: view.busy || !q }, tr('score_here'));
  scoreBtn.onclick = () => ask(q);
  const restore = h('button', { type: 'button', class: 'small quiet', id: 'restore', disabled: view.busy || !lab || lab.dead_from !== 'marks' }, tr('restore'));
  restore.onclick = () => ask(q);
  const ov = h('input', { type: 'checkbox', id: 'overlay', checked: view.overlay });
  ov.onchange = () => {
    view.overlay = ov.checked;
    render();
  };
  const from = lab ? tr(lab.dead_from === 'marks' ? 'from_marks' : lab.dead_from === 'file' ? 'from_file' : 'from_estimator') : '';
  put(box,
    h('h2', {}, tr('lab')),
    h('p', { class: 'hint' }, tr('lab_hint')),
    h('div', { class: 'row' }, lab ? null : scoreBtn, lab ? restore : null),
    q ? null : h('p', { class: 'hint', id: 'local-only' }, tr('local_only')),
    h('label', { class: 'switch' }, ov, ' ', tr('overlay')),
    view.overlay && lab ? h('p', { class: 'hint', id: 'legend' }, tr('legend')) : null,
    view.busy ? h('p', { class: 'hint', id: 'busy' }, tr('busy')) : null,
    lab ? h('p', { class: 'dead-line', id: 'dead-line' }, `${from}. `, tr('dead', lab.dead.length ? lab.dead.join(' ') : tr('none'))) : null,
    lab && lab.unsettled.length ? h('p', { class: 'hint' }, tr('unsettled', lab.unsettled.join(' '))) : null,
    lab && lab.seki.length ? h('p', { class: 'hint' }, tr('seki', lab.seki.join(' '))) : null,
    lab && !lab.finished ? h('p', { class: 'hint' }, tr('not_finished')) : null,
  );
  if (!lab) {
    put(table);
    return;
  }
  const head = ['col_rules', 'col_komi', 'col_black', 'col_white', 'col_result', 'col_notes'].map((k) => h('th', { scope: 'col' }, tr(k)));
  const rows = lab.rows.map((r) =>
    h(
      'tr',
      { 'data-rules': r.rules.split(',')[0] },
      h('th', { scope: 'row' }, ruleName(r.rules)),
      h('td', { class: 'num' }, fmtNum(r.komi)),
      h('td', { class: 'num' }, fmtNum(r.black)),
      h('td', { class: 'num' }, fmtNum(r.white)),
      h('td', { class: `res ${r.winner === 'B' ? 'wb' : r.winner === 'W' ? 'ww' : ''}`, 'data-re': r.result ?? '' }, resultShort(r.result ?? '')),
      h('td', { class: 'notes' }, (r.notes || []).map(noteText).join('; ')),
    ),
  );
  const why = lab.why.length
    ? h('ul', { class: 'why-differ' }, ...lab.why.map((w) => h('li', {}, tr('why_line', ruleName(w.a), resultShort(w.results[0]), ruleName(w.b), resultShort(w.results[1]), whyText(w)))))
    : h('p', { class: 'hint' }, tr('agree'));
  put(table,
    recordLine(lab),
    h(
      'div',
      { class: 'table-wrap' },
      h('table', { class: 'scores', id: 'scores' }, h('caption', {}, tr('table', lab.move ?? tree().node(view.labAt)?.number ?? '')), h('thead', {}, h('tr', {}, ...head)), h('tbody', {}, ...rows)),
    ),
    h('h3', {}, tr('why')),
    why,
  );
}

/**
 * The record's own result, stated before the counted rows, and why they may differ from it:
 * a resignation, a loss on time or a forfeit is not a count; a counted result can differ by
 * the dead stones, the komi or the rule set.
 */
function recordLine(lab) {
  const re = view.data.info?.result;
  if (!re) return null;
  const m = /^([BW])\+(.*)$/i.exec(String(re).trim());
  let why = null;
  if (m && /^r/i.test(m[2])) why = tr('record_resign');
  else if (m && /^t/i.test(m[2])) why = tr('record_time');
  else if (m && /^f/i.test(m[2])) why = tr('record_forfeit');
  else if (!lab.finished) why = tr('record_unfinished');
  else {
    const named = view.data.info?.rules;
    const row = lab.rows.find((r) => named && r.rules.split(',')[0] === String(named).split(',')[0]) || null;
    const komi = view.data.info?.komi;
    if (row && row.result !== re) why = tr('record_count', resultShort(row.result ?? ''), typeof komi === 'number' ? fmtNum(komi) : '?');
  }
  return h('p', { class: 'record-result', id: 'record-result' }, tr('record_first', resultShort(re)), why ? ` ${why}` : '');
}

/** The stored analysis of position k, if any. */
function analysisAt(k) {
  return view.analysis?.positions?.find((p) => p.position === k) ?? null;
}

/** The value the graph draws for a position: Black's win rate (Go), A's evaluation (Wall Go). */
function graphValue(p) {
  if (view.data.game === 'go') return p.winrate;
  return Math.max(0, Math.min(1, 0.5 + p.value / 2000));
}

/**
 * Each move's loss for the side that made it, largest first (at most 5, at least 5 points of
 * win rate). Go: the loss the engine read in one search of the position before the move (the
 * played move's value beside its preferred move's, so its own choice is never a loss); an
 * analysis stored before that, and Wall Go, compare consecutive positions.
 */
function mistakes() {
  const d = view.data;
  const out = [];
  const byPos = new Map((view.analysis?.positions || []).map((p) => [p.position, p]));
  for (let k = 1; k <= d.moves.length; k++) {
    const a = byPos.get(k - 1);
    if (!a) continue;
    if (d.game === 'go' && typeof a.loss === 'number') {
      if (a.loss >= 0.05 && a.played !== a.best) out.push({ k, drop: a.loss, points: a.points_lost, before: a });
      continue;
    }
    const b = byPos.get(k);
    if (!b) continue;
    const mover = d.game === 'go' ? d.moves[k - 1].color : a.to_move;
    const va = graphValue(a);
    const vb = graphValue(b);
    const drop = mover === 'B' && d.game === 'go' ? va - vb : mover === 'W' || mover === 'B' ? vb - va : mover === 'A' ? va - vb : 0;
    if (drop >= 0.05) out.push({ k, drop, before: a });
  }
  return out.sort((x, y) => y.drop - x.drop).slice(0, 5);
}

function renderGraph(box) {
  const d = view.data;
  const ps = view.analysis?.positions || [];
  const n = d.moves.length;
  const W = 600;
  const H = 150;
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('class', 'graph');
  svg.setAttribute('id', 'graph');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', tr(d.game !== 'go' ? 'graph_wall' : view.graph === 'lead' ? 'graph_lead' : 'graph'));
  const x = (k) => (n ? (k / n) * W : 0);
  const y = (v) => H - v * H;
  const add = (name, attrs) => {
    const e = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    svg.appendChild(e);
    return e;
  };
  add('rect', { x: 0, y: 0, width: W, height: H, class: 'g-bg' });
  add('line', { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: 'g-mid' });
  // Go draws Black's score lead first (its band around it), the win rate a thin line beside;
  // the switch swaps them. Wall Go draws A's evaluation.
  const lead = d.game === 'go' && view.graph === 'lead';
  const band = (p) => (typeof p.score_band === 'number' ? p.score_band : 0);
  const max = Math.max(10, ...ps.map((p) => Math.abs(p.score ?? 0) + band(p)));
  const sv = (v) => 0.5 + v / (2 * max);
  const val = (p) => (lead ? sv(p.score ?? 0) : graphValue(p));
  if (ps.length) {
    const pts = ps.map((p) => `${x(p.position).toFixed(1)},${y(val(p)).toFixed(1)}`);
    // Black's share filled dark from below, White's the light rest: both colours, not only a line.
    add('path', { d: `M${x(ps[0].position)},${H}L${pts.join('L')}L${x(ps[ps.length - 1].position)},${H}Z`, class: 'g-black' });
    if (d.game === 'go' && ps.some((p) => band(p) > 0)) {
      const up = ps.map((p) => `${x(p.position).toFixed(1)},${y(sv(p.score + band(p))).toFixed(1)}`);
      const down = ps.map((p) => `${x(p.position).toFixed(1)},${y(sv(p.score - band(p))).toFixed(1)}`).reverse();
      add('polygon', { points: [...up, ...down].join(' '), class: 'g-band', id: 'score-band' });
    }
    add('polyline', { points: pts.join(' '), class: lead ? 'g-line g-lead' : 'g-line' });
    if (d.game === 'go') {
      const other = ps.map((p) => `${x(p.position).toFixed(1)},${y(lead ? graphValue(p) : sv(p.score)).toFixed(1)}`);
      add('polyline', { points: other.join(' '), class: lead ? 'g-wr' : 'g-score' });
    }
  }
  // A mistake read in one search is known before the position after it is searched (or, for
  // the last move of a game over, never is): its mark sits on the curve where one is drawn.
  for (const m of mistakes()) {
    const on = analysisAt(m.k) ?? m.before;
    add('circle', { cx: x(m.k), cy: y(val(on)), r: 5, class: 'g-mistake', 'data-mistake': m.k });
  }
  const at = d.game === 'go' ? recAt(view.node) : view.pos;
  if (at !== null) add('line', { x1: x(at), y1: 0, x2: x(at), y2: H, class: 'g-cursor' });
  svg.addEventListener('click', (e) => {
    const r = svg.getBoundingClientRect();
    go(Math.round(((e.clientX - r.left) / r.width) * n));
  });
  if (d.game === 'go') {
    const pick = h('select', { id: 'graph-mode' }, h('option', { value: 'lead', selected: lead }, tr('graph_lead_word')), h('option', { value: 'winrate', selected: !lead }, tr('graph_wr_word')));
    pick.onchange = () => {
      view.graph = pick.value;
      render();
    };
    addTo(box, h('label', { class: 'graph-mode' }, tr('graph_show'), ' ', pick));
  }
  addTo(box, svg);
}

/** The engine's figures for node `nid`: the record's review on its main line, else the node's own search. */
function engineAt(nid) {
  const k = recAt(nid);
  return (k !== null ? analysisAt(k) : null) ?? engineHere?.get(nid) ?? null;
}

/** The engine at the node shown (the lead beside the win rate), or the button that asks for it. */
function renderNodeEngine(box) {
  if (view.data.game !== 'go') return;
  const here = engineAt(view.node);
  if (here) {
    addTo(box, h('p', { class: 'hint', id: 'engine-here' }, tr('best_here', here.to_move === 'B' ? tr('black') : tr('white'), percent(here.winrate), `${leadText(here.score)}${typeof here.score_band === 'number' ? ` ± ${points(here.score_band)}` : ''}`, moveWord(here.best))));
    return;
  }
  const q = nodeQuery();
  const st = engineHere.state(view.node);
  if (typeof st === 'string') {
    addTo(box, h('p', { class: 'engine-status', id: 'node-engine-status', 'data-status': st }, tr(st === 'running' ? 'running' : 'queued_next')));
    return;
  }
  const b = h('button', { type: 'button', class: 'small', id: 'analyse-node', disabled: !q }, tr('analyse_here'));
  const at = view.node;
  b.onclick = () => engineHere.start(at);
  addTo(box, h('div', { class: 'row' }, b), st ? h('p', { class: 'why' }, tr('error', refusal(st))) : null);
}

function renderEngine() {
  const d = view.data;
  const box = $('engine');
  const a = view.analysis;
  put(box);
  if (!a) return;
  const budget =
    d.game === 'go'
      ? `${tr('budget_go', a.budget.playouts, a.budget.max_ms / 1000)}${a.rules ? `, ${ruleName(a.rules)}` : ''}`
      : tr('budget_wall', a.budget.wall_nodes, a.budget.max_ms / 1000);
  addTo(box, h('h2', {}, tr('engine')), h('p', { class: 'hint' }, tr('engine_hint', budget)));
  if (a.status === 'none') {
    const run = h('button', { type: 'button', class: 'primary small', id: 'run-engine' }, tr('run'));
    run.onclick = startEngine;
    addTo(box, run);
    renderNodeEngine(box);
    return;
  }
  const word =
    a.status === 'queued' ? (a.queue_position ? tr('queued', a.queue_position) : tr('queued_next')) : a.status === 'running' ? tr('running') : a.status === 'done' ? tr('done_all') : tr('partial');
  const bar = h('progress', { id: 'engine-progress', max: String(a.total), value: String(a.done) });
  addTo(box, h('p', { class: 'engine-status', id: 'engine-status', 'data-status': a.status }, `${word} · ${tr('progress', a.done, a.total)}`), bar);
  renderGraph(box);
  const here = d.game === 'go' ? engineAt(view.node) : analysisAt(view.pos);
  renderNodeEngine(box);
  if (here && d.game !== 'go' && here.to_move) addTo(box, h('p', { class: 'hint', id: 'engine-here' }, tr('best_wall', here.to_move, Math.round(here.value), moveWord(here.best))));
  const pv = h('input', { type: 'checkbox', id: 'show-pv', checked: view.showPv });
  pv.onchange = () => {
    view.showPv = pv.checked;
    render();
  };
  addTo(box, h('label', { class: 'switch' }, pv, ' ', tr(d.game === 'go' ? 'pv' : 'pv_wall')));
  if (d.game !== 'go' && view.showPv && here && here.best && view.pos < d.moves.length) addTo(box, h('p', { class: 'hint', id: 'suggest-legend' }, tr('legend_wall')));
  const ms = mistakes();
  if (ms.length) {
    addTo(box,
      h('h3', {}, tr('mistakes')),
      h(
        'ul',
        { class: 'mistakes', id: 'mistakes' },
        ...ms.map((m) => {
          const mv = d.moves[m.k - 1];
          const who = d.game === 'go' ? (mv.color === 'B' ? tr('black') : tr('white')) : m.before.to_move;
          const b = h('button', { type: 'button', class: 'small quiet', 'data-mistake': m.k }, tr('mistake', m.k, who, moveWord(d.game === 'go' ? mv.move : mv), `−${percent(m.drop)}%${typeof m.points === 'number' ? tr('points_lost', points(m.points)) : ''}`, m.before.best ? moveWord(m.before.best) : '—'));
          // The position before the mistake, where the engine's preferred move and line show.
          b.onclick = () => go(m.k - 1);
          return h('li', {}, b);
        }),
      ),
    );
  }
}

let polling = null;
async function refreshAnalysis() {
  try {
    view.analysis = await call('GET', `/api/reviews/${encodeURIComponent(id)}/analysis`);
  } catch {
    /* the next poll tries again */
  }
  // The poll is set before drawing, so a page that fails to draw one state still sees the next.
  const going = view.analysis && ['queued', 'running'].includes(view.analysis.status);
  if (going && !polling) polling = setInterval(refreshAnalysis, 1500);
  if (!going && polling) {
    clearInterval(polling);
    polling = null;
  }
  render();
}

async function startEngine() {
  try {
    view.analysis = await call('POST', `/api/reviews/${encodeURIComponent(id)}/analysis`);
  } catch (e) {
    view.message = tr('error', e.message);
  }
  refreshAnalysis();
}

function render() {
  const d = view.data;
  if (!d) return;
  const i = d.info || {};
  const title = d.game === 'go' ? `${tr('title')} · ${i.black || '?'} – ${i.white || '?'}` : `${tr('title')} · ${t('game.wallgo')}`;
  $('title').textContent = title;
  document.title = `${title} — baduk`;
  // The record's own properties, each after its name in words: RU[…] and KM[…] as the file has them.
  $('info').textContent =
    d.game === 'go'
      ? [
          `${d.size.cols}×${d.size.rows}`,
          i.rules_name ? `${tr('info_rules')} RU[${i.rules_name}]` : null,
          i.komi !== null && i.komi !== undefined ? `${tr('info_komi')} KM[${i.komi}]` : null,
          i.result ? `${tr('info_result')} RE[${i.result}]` : null,
          i.games > 1 ? tr('info_game', i.game, i.games) : null,
        ]
          .filter(Boolean)
          .join(' · ')
      : variantWords(d.variant).join(' · ');
  $('export').textContent = tr('export');
  // The whole tree as it stands (the room's, with its edits); the engine's comments on the main line.
  $('export').href = `/api/reviews/${encodeURIComponent(id)}/record${view.analysis?.done ? '?analysis=1' : ''}`;
  $('message').textContent = view.message;
  $('message').className = view.message ? 'message error' : 'message';
  document.body.dataset.node = d.game === 'go' ? String(view.node) : '';
  if (d.game === 'go') view.line = tree().path(view.node);
  document.body.dataset.treeVersion = d.game === 'go' ? String(tree().version) : '';
  renderNav();
  renderRules();
  renderLab();
  renderEngine();
  if (d.game === 'go') {
    tools.render(true);
    editor.render(editable());
    panel.render();
    renderGoBoard();
  } else renderWallBoard();
}

/** The rules lab's answer for the node shown, if it is the last one asked for. */
function labHere() {
  return view.lab && view.labAt === view.node ? view.lab : null;
}

/**
 * What the server is asked about the node shown: its move number on the record's main line, or
 * the node itself; null for a node of a copy explored alone that the room's tree does not have.
 */
function nodeQuery() {
  const k = recAt(view.node);
  if (k !== null) return { move: k };
  if (room.alone && !room.shared.node(view.node)) return null;
  return { node: view.node };
}

/** Asks the server for the table with these marks; the page keeps the answer. */
async function ask(body) {
  const at = view.node;
  view.busy = true;
  view.message = '';
  render();
  try {
    view.lab = await call('POST', `/api/reviews/${encodeURIComponent(id)}/marks`, body);
    view.labAt = at;
  } catch (e) {
    view.message = tr('error', e.message);
  }
  view.busy = false;
  render();
}

/**
 * A click on the board: with a markup tool, that mark; on a stone, its chain dead or alive in
 * the rules lab; on an empty point, the move that follows there (a new branch if none does).
 */
function onPoint(name) {
  const d = view.data;
  // Until the room's tree is there (its ids), a click changes nothing.
  if (view.busy || d.game !== 'go' || room.provisional) return;
  const tn = tree();
  const p = tn.parse(name);
  if (!p) return;
  const color = tn.toMove(view.node, d.first || 'B');
  if (tools.tool !== 'play') {
    const op = tools.opFor(tn, view.node, name, color);
    if (op) edit(op);
    else render();
    return;
  }
  if (tn.board(view.node).grid[p.y][p.x] !== '.') {
    const q = nodeQuery();
    if (!q) return;
    const lab = labHere();
    const body = { ...q, toggle: name };
    if (lab) body.dead = lab.dead;
    ask(body);
    return;
  }
  const next = tn.node(view.node).children.map((c) => tn.node(c)).find((c) => c.move?.point === name);
  if (next) return select(next.id);
  edit({ op: 'move', parent: view.node, color, point: name });
}

/** A key: steps along the line, to its ends, or between branches (↑ ↓). */
function keys(e) {
  if (!view.data || e.target.closest?.('input, select, textarea')) return;
  if (e.target.closest?.('svg') && ['ArrowUp', 'ArrowDown', 'Enter', ' '].includes(e.key)) return;
  if (e.target.closest?.('svg.goban.interactive:focus-visible')) return;
  if (view.data.game !== 'go') {
    const k = { ArrowLeft: view.pos - 1, ArrowRight: view.pos + 1, Home: 0, End: view.data.moves.length, PageUp: view.pos - 10, PageDown: view.pos + 10 }[e.key];
    if (k === undefined) return;
    e.preventDefault();
    go(k);
    return;
  }
  const tn = tree();
  const n = tn.node(view.node);
  const up = (nid, k) => tn.path(nid).slice(-1 - k)[0];
  const down = (nid, k) => {
    let m = tn.node(nid);
    for (let i = 0; i < k && m.children.length; i++) m = tn.node(m.children[0]);
    return m.id;
  };
  const sib = (dir) => {
    if (n.parent === null) return view.node;
    const s = tn.node(n.parent).children;
    return s[Math.max(0, Math.min(s.length - 1, s.indexOf(view.node) + dir))];
  };
  const to = { ArrowLeft: () => up(view.node, 1), ArrowRight: () => down(view.node, 1), Home: () => tn.root, End: () => tn.lineEnd(view.node), PageUp: () => up(view.node, 10), PageDown: () => down(view.node, 10), ArrowUp: () => sib(-1), ArrowDown: () => sib(1) }[e.key];
  if (!to) return;
  e.preventDefault();
  select(to());
}

function error(e) {
  view.message = tr('error', refusal(e));
  render();
}

async function main() {
  initChrome(render);
  let d;
  try {
    d = await call('GET', `/api/reviews/${encodeURIComponent(id)}`);
  } catch (e) {
    $('main').hidden = true;
    $('notfound').hidden = false;
    $('nf-title').textContent = tr('notfound');
    $('notfound').querySelector('p').textContent = e.message;
    document.title = `${tr('notfound')} — baduk`;
    return;
  }
  view.pos = d.moves.length;
  view.analysis = d.analysis;
  if (d.game === 'go') {
    // The record's own rules; for a record naming none, the engine's default (Japanese 1989)
    // where it accepts the record, else the first rule set that does: as the server picks.
    const named = d.info.rules ? d.legality.findIndex((v) => v.rules === d.info.rules) : -1;
    const fallback = d.legality.findIndex((v) => v.rules === 'japanese' && v.accepts);
    view.rules = named >= 0 ? named : fallback >= 0 ? fallback : Math.max(0, d.legality.findIndex((v) => v.accepts));
    await session();
    room = new Room(id, { changed });
    room.start(d);
    findRecord(room.shared, d);
    view.node = view.recLine[view.recLine.length - 1];
    view.lab = d.table;
    view.labAt = d.table ? view.recLine[Math.min(d.table.move ?? d.moves.length, view.recLine.length - 1)] : null;
    tools = new Tools($('tools'), render);
    editor = new EditPanel($('edit'), { tree, node: () => view.node, edit });
    panel = new RoomPanel($('room'), room, { here: () => view.node, error, redraw: render });
    engineHere = new NodeEngine(id, render);
    goBoard = new GoBoard($('board'), { onPoint });
    $('rv-first').onclick = () => select(tree().root);
    $('rv-prev').onclick = () => select(tree().node(view.node).parent ?? view.node);
    $('rv-next').onclick = () => select(tree().node(view.node).children[0] ?? view.node);
    $('rv-last').onclick = () => select(tree().lineEnd(view.node));
  } else {
    const wall = await import('./wall-board.js');
    parseTurn = wall.parseTurn;
    wallBoard = new wall.WallBoard($('board'), { onAction: () => {}, onStage: () => {} });
    $('rv-first').onclick = () => go(0);
    $('rv-prev').onclick = () => go(view.pos - 1);
    $('rv-next').onclick = () => go(view.pos + 1);
    $('rv-last').onclick = () => go(d.moves.length);
    for (const k of ['branches', 'tools', 'edit', 'room']) $(k).hidden = true;
    $('tree').hidden = true;
  }
  view.data = d;
  $('rv-slider').oninput = (e) => go(+e.target.value);
  document.addEventListener('keydown', keys);
  render();
  performance.mark('baduk-review-board-drawn');
  if (['queued', 'running', 'partial'].includes(d.analysis?.status)) refreshAnalysis();
  // Ready once the room's whole tree is there (the main line is drawn before).
  if (room) await room.ready;
  document.body.dataset.ready = '1';
  window.__baduk = { view, room: () => room };
}

main();
