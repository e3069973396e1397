// Small helpers shared by the lobby and the game page: element building, names, numbers, the
// header's language and sound switches, and the optional move sound.

import { t, has, lang, setLang, applyStatic } from './i18n.js';

/** h('div', {class: 'x'}, child, 'text', …): an element with attributes and children. */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'value') e.value = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false || c === '') continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** The children `h` would keep: no null, undefined, false or empty string (the DOM's own
 * `append`/`replaceChildren` would print "null"). */
const kept = (kids) => kids.flat().filter((c) => c !== null && c !== undefined && c !== false && c !== '');

/** Replaces `el`'s children with `kids`, leaving out what `h` leaves out. */
export function put(el, ...kids) {
  el.replaceChildren(...kept(kids));
  return el;
}

/** Appends `kids` to `el`, leaving out what `h` leaves out. */
export function addTo(el, ...kids) {
  el.append(...kept(kids));
  return el;
}

/** A button that copies `text` to the clipboard and says so (the text stays selectable by hand). */
export function copyButton(text, label = t('lobby.copy'), attrs = {}) {
  const b = h('button', { type: 'button', class: 'small', ...attrs }, label);
  b.onclick = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      /* the field (or the address bar) can still be copied by hand */
    }
    b.textContent = t('lobby.copied');
  };
  return b;
}

/**
 * The page's "no such thing" view in place of its `#main`: the title, a line naming what was
 * asked for, the way back to the lobby.
 */
export function notFoundView(title, body) {
  document.getElementById('main').hidden = true;
  const nf = document.getElementById('notfound');
  nf.hidden = false;
  nf.querySelector('h1').textContent = title;
  nf.querySelector('p').textContent = body;
  nf.querySelector('a').textContent = t('notfound.back');
  document.title = `${title} — baduk`;
  document.body.dataset.status = 'notfound';
}

/** A score number from the API: a number, or "num/den" for thirds and sixths (Ing's seki). */
export function fmtNum(v) {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  const m = /^(-?\d+)\/(\d+)$/.exec(String(v));
  if (!m) return String(v);
  const num = +m[1];
  const den = +m[2];
  const whole = Math.trunc(num / den);
  const rest = Math.abs(num % den);
  if (!rest) return String(whole);
  const sign = num < 0 && whole === 0 ? '-' : '';
  return whole ? `${whole} ${rest}/${den}` : `${sign}${rest}/${den}`;
}

export function seatName(st, seat) {
  if (!seat || seat === '?') return '';
  if (st && st.game === 'wallgo') return t(`seatname.${seat}`);
  return t(`seatname.${seat}`);
}

/** A bot's name as players know it, with its strength in a few words where the page has them. */
export function botName(bot) {
  return has(`botname.${bot}`) ? t(`botname.${bot}`) : bot || '';
}

/**
 * The level of a Go bot seat (`level=N` in its options; 10 without, as the server reckons);
 * null for a Wall Go bot or a seat whose options are not known (an older game's summary).
 */
export function botLevel(info) {
  if (info?.bot !== 'baduk' || info.options === undefined) return null;
  const lv = /(?:^|,)\s*level=(\d+)/.exec(info.options || '');
  return lv ? Number(lv[1]) : 10;
}

/** Who sits in a seat, in words (`over`: the game is finished, nobody is waiting any more). */
export function kindLabel(info, over = false) {
  if (!info) return '';
  if (info.kind === 'bot') return botLevel(info) !== null ? t('kind.bot.level', botLevel(info)) : t('kind.bot', botName(info.bot));
  if (info.kind === 'open') return info.joined ? t('kind.human') : t('kind.open');
  return info.joined === false && !over ? `${t('kind.human')} (${t('kind.waiting')})` : t('kind.human');
}

/** A rule set's name in the page's language, from a rules string (`chinese,komi=6.5`): the
 * preset's name, the changed keys after it (the clock never: it has words of its own). */
export function ruleName(rules) {
  // The clock and the komi have words and columns of their own; the size is the board's.
  const parts = String(rules || '').split(',').filter((p) => p && !/^(time|size|komi)=/.test(p));
  const preset = parts.shift() || '';
  const name = has(`rules.${preset}`) ? t(`rules.${preset}`) : preset;
  return parts.length ? t('rules.changed', name, parts.join(', ')) : name;
}

/** A Wall Go variant (`placement=ABAB stay=out-and-back tiebreak=none`) in words, one part a field. */
export function variantWords(variant) {
  const v = Object.fromEntries(String(variant || '').split(/\s+/).filter(Boolean).map((f) => f.split('=')));
  const parts = [];
  if (v.placement) parts.push(`${t('form.placement')}: ${v.placement}`);
  if (v.stay) parts.push(`${t('form.stay')}: ${t(`form.stay.${v.stay}`)}`);
  if (v.tiebreak) parts.push(`${t('form.tiebreak')}: ${t(`form.tiebreak.${v.tiebreak}`)}`);
  return parts;
}

function dur(secs) {
  const s = Number(secs) || 0;
  if (s >= 60 && s % 60 === 0) return t('tc.min', s / 60);
  if (s >= 60) return `${t('tc.min', Math.floor(s / 60))} ${t('tc.sec', s % 60)}`;
  return t('tc.sec', s);
}

/** A clock (`byo-yomi:180:3:10`, as the rules string's `time=` gives it) in words. */
export function clockWords(tc) {
  const [kind, ...n] = String(tc || '').split(':');
  switch (kind) {
    case 'absolute':
      return t('tc.absolute', dur(n[0]));
    case 'byo-yomi':
      return t('tc.byo-yomi', dur(n[0]), n[1], dur(n[2]));
    case 'canadian':
      return t('tc.canadian', dur(n[0]), n[1], dur(n[2]));
    case 'fischer':
      return t('tc.fischer', dur(n[0]), dur(n[1]));
    case 'ing':
      return t('tc.ing', dur(n[0]));
    case 'correspondence':
      return t(n[2] === 'weekends' ? 'tc.correspondence.weekends' : 'tc.correspondence', n[0], n[1]);
    default:
      return '';
  }
}

/** The clock of a Go rules string (its `time=` part), or ''. */
export function clockOf(rules) {
  const m = /(?:^|,)time=([^,]+)/.exec(String(rules || ''));
  return m ? m[1] : '';
}

/**
 * A server message in the page's language: the code's string with its arguments (seats and
 * rules named in words), or the server's English sentence where the page knows no such code.
 */
export function say(code, args, fallback) {
  if (!code || !has(`code.${code}`)) return fallback || '';
  const a = { ...(args || {}) };
  for (const k of ['color', 'seat', 'first', 'owner']) if (a[k]) a[k] = t(`seatname.${a[k]}`);
  if (a.rules) a.rules = ruleName(a.rules);
  if (Array.isArray(a.chains)) a.chains = a.chains.join(', ');
  if (a.point === 'pass') a.point = t('move.pass');
  return t(`code.${code}`, a);
}

/**
 * A result in its short form, in the page's language: the SGF `RE` of Go (`B+3.5`, `W+R`, `0`,
 * `Void`) or Wall Go's (`A+R`, `A 6 B 42 neutral 1`). English keeps the SGF form; Korean says it.
 */
export function resultShort(text) {
  const s = String(text ?? '');
  if (s === 'Void' || s === 'disputed') return t('result.void');
  const wall = /^A (\d+) B (\d+) neutral (\d+)$/.exec(s);
  if (wall) return t('score.wall', wall[1], wall[2], wall[3]);
  if (lang() !== 'ko') return s;
  if (s === '0' || s === 'Draw') return t('result.draw');
  const m = /^([BWAb])\+(.*)$/.exec(s);
  if (!m) return s;
  const who = { B: '흑', W: '백', A: 'A' }[m[1]] || m[1];
  if (m[2] === 'R') return `${who} 불계승`;
  if (m[2] === 'T') return `${who} 시간승`;
  if (m[2] === 'F') return `${who} 부전승`;
  if (m[2] === '') return `${who} 승`;
  return `${who} ${m[2]}집 승`;
}

// Korean for the score table's notes (the library writes them in English): pattern, words.
const NOTES_KO = [
  [/^territory (\d+)\+(\d+) prisoners$/, '집 {0} + 포로·사석 {1}'],
  [/^area (\d+)\+(\d+) stones$/, '집 {0} + 돌 {1}'],
  [/^fill count: B fills (\d+) of (\d+) points( \(180 stones each\))?$/, '채우기 계산: 흑이 {1}점 중 {0}점'],
  [/^JK art\. 5: territory \+ prisoners$/, '한일 규칙 5조: 집 + 포로'],
  [/^Kang: territory − own removed \((\d+)\) − dame \((\d+)\)$/, '집 − 들어낸 자기 돌 ({0}) − 공배 ({1})'],
  [/^every stone alive \(as-is\)$/, '모든 돌을 산 돌로 셈 (있는 그대로)'],
  [/^(\d+) dead: (.*)$/, '사석 {0}: {1}'],
  [/^(\d+) seki points not territory$/, '빅 {0}점: 집이 아님'],
  [/^(\d+) seki points to whoever reaches them$/, '빅 {0}점: 닿는 쪽의 집'],
  [/^(\d+) seki points dame shared B (\S+) \/ W (\S+)$/, '빅 {0}점: 나눔 흑 {1} / 백 {2}'],
  [/^(\d+) dame$/, '공배 {0}'],
  [/^pass stones B (\d+) W (\d+)$/, '착수포기 돌 흑 {0} 백 {1}'],
  [/^art\. 4\.4: Black moved last, \+1 pass stone$/, '4.4조: 흑이 마지막에 둠, 착수포기 돌 +1'],
  [/^territory \+ pass stones margin B([+-−]?\d+)$/, '집 + 착수포기 돌로는 흑 {0}'],
  [/^handicap \+(\d+) to W$/, '치석 보상 백 +{0}'],
  [/^time extensions −(\d+) B, −(\d+) W$/, '시간 연장 벌점 흑 −{0}, 백 −{1}'],
  [/^ties → black$/, '동점이면 흑 승'],
  [/^ties → white$/, '동점이면 백 승'],
  [/^ties → (\S+)$/, '동점 → {0}'],
  [/^komi (\S+) \(Ing's rules fix komi at 8\)$/, '덤 {0} (응씨 규칙의 덤은 8점)'],
  [/^move limit (.*) reached$/, '수 제한 {0}에 닿음'],
  [/^JK art\. 4\.3: ended by (\S+), so no dead stones \(every stone alive\)$/, '한일 규칙 4.3조의 끝내기 순서로 끝남: 사석 없음 (모든 돌이 산 돌)'],
];

// The checks behind a count (verification play, the art. 7 confirmation, the playout
// majority) in Korean: how, the verdict, the lines played and why a chain stays undecided.
const HOW_KO = { 'verification play': '검증', 'art. 7 confirmation': '제7조의 확인' };
const STATUS_KO = { alive: '삶', dead: '죽음', seki: '빅', undecided: '미정', disputed: '분쟁' };
const COLOR_KO = { black: '흑', white: '백', B: '흑', W: '백' };
const WHY_KO = [
  [/^the 1989 Japanese rules \(art\. 7\) do not settle this position: (.*)$/, (m) => `1989년 일본 규칙 제7조로는 정해지지 않는 모양: ${whyKo(m[1])}`],
  [/^search bound reached \((\d+) plies, (\d+) nodes\)$/, (m) => `탐색 한도에 닿음 (${m[1]}수, ${m[2]}노드)`],
  [/^unsettled: it is captured if the opponent moves first and saved if its owner does/, () => '미정: 상대가 먼저 두면 잡히고 임자가 먼저 두면 삶 (미숙한 대국)'],
  [/^it survives only when the opponent moves first$/, () => '상대가 먼저 둘 때만 삶'],
  [/^the verification turns on a ko/, () => '검증이 패에 달림: 답은 다른 곳의 팻감에 따라 달라짐'],
  [/^(\S+) is empty$/, (m) => `${m[1]}은(는) 빈 자리`],
];
const whyKo = (why) => {
  for (const [re, f] of WHY_KO) {
    const m = re.exec(why);
    if (m) return f(m);
  }
  return why;
};
// A line as the library writes it (`BC3 Wpass`): 흑 C3 백 착수포기.
const lineKo = (line) =>
  line
    .split(' ')
    .filter(Boolean)
    .map((mv) => `${COLOR_KO[mv[0]] || mv[0]} ${mv.slice(1) === 'pass' ? '착수포기' : mv.slice(1)}`)
    .join(' ');
const CHECKS_KO = [
  [/^(verification play|art\. 7 confirmation) (\S+): (alive|dead|seki) \(opponent first: (.*); owner first: (.*)\)$/, (m) => `${HOW_KO[m[1]]} ${m[2]}: ${STATUS_KO[m[3]]} (상대 먼저: ${lineKo(m[4]) || '—'}; 임자 먼저: ${lineKo(m[5]) || '—'})`],
  [/^(verification play|art\. 7 confirmation) (\S+): (undecided|disputed): (.*)$/, (m) => `${HOW_KO[m[1]]} ${m[2]}: ${STATUS_KO[m[3]]}, ${whyKo(m[4])}`],
  [/^(verification play|art\. 7 confirmation) (\S+): (\S+)$/, (m) => `${HOW_KO[m[1]]} ${m[2]}: ${STATUS_KO[m[3]] || m[3]}`],
  [/^(\d+) more unsettled chains counted by the playout majority$/, (m) => `미정인 돌 ${m[1]}무리 더: 플레이아웃 다수결로 셈`],
  [/^unsettled \(counted by the playout majority\): (.*)$/, (m) => `미정 (플레이아웃 다수결로 셈): ${m[1]}`],
  [/^contradictory mark: (\S+): (black|white) stone marked dead \(MA\) inside \S+'s own marked territory$/, (m) => `모순된 표시: ${m[1]}: ${COLOR_KO[m[2]]}의 집으로 표시된 곳 안의 ${COLOR_KO[m[2]]} 돌을 사석으로 표시함`],
  [/^contradictory mark: (\S+): (black|white) stone marked dead but unconditionally alive \(Benson\)$/, (m) => `모순된 표시: ${m[1]}: 사석으로 표시했지만 무조건 산 ${COLOR_KO[m[2]]} 돌 (벤슨)`],
];

/** One note of the score table in the page's language. */
export function noteText(note) {
  if (lang() !== 'ko') return note;
  for (const [re, words] of NOTES_KO) {
    const m = re.exec(note);
    if (m) return words.replace(/\{(\d)\}/g, (_, i) => m[+i + 1] ?? '');
  }
  for (const [re, f] of CHECKS_KO) {
    const m = re.exec(note);
    if (m) return f(m);
  }
  return note;
}

/** The finished game's result as a sentence in the page's language. */
export function resultText(st) {
  const r = st.result;
  if (!r) return '';
  if (r.reason === 'disputed' && !r.winner) return `${t('result.void')} (${r.text})`;
  if (r.reason === 'cancelled') return t('result.cancelled');
  if (!r.winner) return `${t('result.draw')} (${st.score && st.game === 'wallgo' ? t('score.wall', st.score.A, st.score.B, st.score.neutral) : resultShort(r.text)})`;
  const who = seatName(st, r.winner);
  const reason = r.reason ? t(`reason.${r.reason}`) : '';
  if (st.game === 'go') {
    const m = /^[BW]\+([\d.]+)/.exec(r.text || '');
    if (r.reason === 'score' && m) return lang() === 'ko' ? t('result.by', who, m[1]) : `${t('result.by', who, m[1])} (${r.text})`;
    if (lang() === 'ko') return `${who} ${reason}승`;
    return `${t('result.win', who)} — ${reason} (${r.text})`;
  }
  const sc = st.score;
  const detail = sc && r.reason !== 'resignation' ? t('score.wall', sc.A, sc.B, sc.neutral) : r.text;
  return `${t('result.win', who)} — ${reason} (${detail})`;
}

// ---- sound (off unless switched on) ----------------------------------------------------------

const SPEAKER = '<path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/>';
const SPEAKER_ON = `<svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">${SPEAKER}<path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" stroke="currentColor" stroke-width="2" fill="none" stroke-linecap="round"/></svg>`;
const SPEAKER_OFF = `<svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">${SPEAKER}<path d="M16 9l6 6M22 9l-6 6" stroke="currentColor" stroke-width="2" stroke-linecap="round"/></svg>`;

let audio = null;
export function soundOn() {
  return localStorage.getItem('baduk.sound') === 'on';
}

export function sound(kind) {
  if (!soundOn()) return;
  window.__baduk?.sounds?.push(kind); // what tests can read: the sounds played
  try {
    audio = audio || new AudioContext();
    const o = audio.createOscillator();
    const g = audio.createGain();
    // A stone's click, a lower error, a short high tick for the byo-yomi countdown, a rising
    // note when an opponent joins, a bright one when another game becomes one's move.
    o.type = kind === 'error' ? 'square' : kind === 'tick' ? 'sine' : 'triangle';
    o.frequency.value = { error: 180, tick: 1320, join: 880, yourmove: 990 }[kind] || 660;
    g.gain.setValueAtTime(0.15, audio.currentTime);
    g.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.12);
    o.connect(g).connect(audio.destination);
    o.start();
    o.stop(audio.currentTime + 0.13);
  } catch {
    /* no audio: fine */
  }
}

/** Wires the header's language and sound switches; onChange re-renders the page. */
export function initChrome(onChange) {
  const langBtn = document.getElementById('lang');
  const soundBtn = document.getElementById('sound');
  const paint = () => {
    applyStatic();
    if (langBtn) langBtn.textContent = t('lang.switch');
    if (soundBtn) {
      soundBtn.innerHTML = soundOn() ? SPEAKER_ON : SPEAKER_OFF;
      soundBtn.setAttribute('aria-label', soundOn() ? t('sound.on') : t('sound.off'));
      soundBtn.title = soundOn() ? t('sound.on') : t('sound.off');
      soundBtn.setAttribute('aria-pressed', soundOn() ? 'true' : 'false');
    }
  };
  if (langBtn)
    langBtn.onclick = () => {
      setLang(lang() === 'ko' ? 'en' : 'ko');
      paint();
      onChange();
    };
  if (soundBtn)
    soundBtn.onclick = () => {
      localStorage.setItem('baduk.sound', soundOn() ? 'off' : 'on');
      paint();
      sound('move');
    };
  paint();
}
