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

export function kindLabel(info) {
  if (!info) return '';
  if (info.kind === 'bot') return t('kind.bot', info.bot || '');
  if (info.kind === 'open') return info.joined ? t('kind.human') : t('kind.open');
  return info.joined === false ? `${t('kind.human')} (${t('kind.waiting')})` : t('kind.human');
}

/** A rule set's name in the page's language, from a rules string (`chinese,komi=6.5`): the
 * preset's name, the changed keys after it (the clock never: it has words of its own). */
export function ruleName(rules) {
  const parts = String(rules || '').split(',').filter((p) => p && !/^(time|size)=/.test(p));
  const preset = parts.shift() || '';
  const name = has(`rules.${preset}`) ? t(`rules.${preset}`) : preset;
  return parts.length ? t('rules.changed', name, parts.join(', ')) : name;
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

/** The finished game's result as a sentence in the page's language. */
export function resultText(st) {
  const r = st.result;
  if (!r) return '';
  if (r.reason === 'disputed' && !r.winner) return `${t('result.void')} (${r.text})`;
  if (!r.winner) return `${t('result.draw')} (${st.score && st.game === 'wallgo' ? t('score.wall', st.score.A, st.score.B, st.score.neutral) : r.text})`;
  const who = seatName(st, r.winner);
  const reason = r.reason ? t(`reason.${r.reason}`) : '';
  if (st.game === 'go') {
    const m = /^[BW]\+([\d.]+)/.exec(r.text || '');
    if (r.reason === 'score' && m) return `${t('result.by', who, m[1])} (${r.text})`;
    if (lang() === 'ko') return `${who} ${reason}승 (${r.text})`;
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
  try {
    audio = audio || new AudioContext();
    const o = audio.createOscillator();
    const g = audio.createGain();
    o.type = kind === 'error' ? 'square' : 'triangle';
    o.frequency.value = kind === 'error' ? 180 : 660;
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
