// Opening a review: the lobby's upload card (a file or pasted text, SGF or Wall Go record, a
// game of a collection) and the finished game page's "Review" button (the game's own record).
// Both POST the record to /api/reviews and go to the review's page; a refusal is shown in the
// page's language by its code, or as the server says it (the reader's line and property).

import { lang } from './i18n.js';
import { writeHeaders, ApiError } from './api.js';
import { say } from './ui.js';

const S = {
  en: {
    title: 'Review a record',
    hint: 'An SGF file (any charset, a collection: choose the game) or a Wall Go record.',
    file: 'File',
    paste: '…or paste it here',
    game: 'Game of the collection',
    open: 'Open the review',
    review: 'Review this game',
    busy: 'Reading…',
    empty: 'Choose a file or paste a record.',
  },
  ko: {
    title: '기보 복기',
    hint: 'SGF 파일(모든 문자 집합, 여러 대국이 든 파일은 대국을 고르세요) 또는 벽바둑 기보.',
    file: '파일',
    paste: '…또는 여기에 붙여 넣기',
    game: '파일 안의 대국 번호',
    open: '복기 열기',
    review: '이 대국 복기',
    busy: '읽는 중…',
    empty: '파일을 고르거나 기보를 붙여 넣으세요.',
  },
};
const tr = (k) => S[lang()][k] ?? S.en[k];

/** POSTs a record; resolves to the review's URL or throws the server's sentence. */
export async function openReview(body, game) {
  const q = game ? `?game=${encodeURIComponent(game)}` : '';
  const headers = { ...(await writeHeaders()), 'Content-Type': 'application/octet-stream' };
  const res = await fetch(`/api/reviews${q}`, { method: 'POST', headers, body });
  const text = await res.text();
  let data = null;
  try {
    data = JSON.parse(text);
  } catch {
    data = null;
  }
  if (!res.ok) throw new ApiError(res.status, (data && data.error) || `${res.status}`, data && data.code, data && data.args);
  return data.url;
}

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}

function lobbyCard(main) {
  const h2 = el('h2', { id: 'review-h' });
  const hint = el('p', { class: 'hint' });
  const fileLabel = el('span');
  const file = el('input', { type: 'file', id: 'review-file', accept: '.sgf,.wallgo,.txt,text/plain' });
  const pasteLabel = el('span');
  const paste = el('textarea', { id: 'review-text', rows: '3', spellcheck: 'false' });
  const gameLabel = el('span');
  const game = el('input', { type: 'number', id: 'review-game', min: '1', step: '1' });
  const err = el('div', { class: 'form-error', id: 'review-error', role: 'alert' });
  const btn = el('button', { type: 'submit', class: 'primary', id: 'review-open' });
  const form = el(
    'form',
    { id: 'review-form', novalidate: '' },
    err,
    el('label', { class: 'field' }, fileLabel, file),
    el('label', { class: 'field' }, pasteLabel, paste),
    el('label', { class: 'field' }, gameLabel, game),
    btn,
  );
  const card = el('section', { class: 'card', 'aria-labelledby': 'review-h', id: 'review-card' }, h2, hint, form);
  main.append(card);
  const paint = () => {
    h2.textContent = tr('title');
    hint.textContent = tr('hint');
    fileLabel.textContent = tr('file');
    pasteLabel.textContent = tr('paste');
    gameLabel.textContent = tr('game');
    btn.textContent = tr('open');
  };
  paint();
  document.getElementById('lang')?.addEventListener('click', () => setTimeout(paint));
  form.onsubmit = async (e) => {
    e.preventDefault();
    err.textContent = '';
    const body = file.files[0] ? await file.files[0].arrayBuffer() : paste.value.trim() ? paste.value : null;
    if (!body) {
      err.textContent = tr('empty');
      return;
    }
    btn.disabled = true;
    btn.textContent = tr('busy');
    try {
      location.href = await openReview(body, game.value ? +game.value : null);
    } catch (x) {
      err.textContent = say(x.code, x.args, x.message);
      btn.disabled = false;
      paint();
    }
  };
}

function gameButton() {
  const id = decodeURIComponent(location.pathname.split('/').pop() || '');
  const result = document.getElementById('result');
  if (!result) return;
  const btn = el('button', { type: 'button', class: 'small', id: 'review-game-btn' });
  const err = el('p', { class: 'why' });
  btn.onclick = async () => {
    btn.disabled = true;
    try {
      const rec = await fetch(`/api/games/${encodeURIComponent(id)}/record`);
      if (!rec.ok) throw new Error(`${rec.status}`);
      location.href = await openReview(await rec.arrayBuffer());
    } catch (x) {
      err.textContent = say(x.code, x.args, x.message);
      btn.disabled = false;
    }
  };
  // The game page fills #result when the game is over: the button goes under it.
  const place = () => {
    btn.textContent = tr('review');
    if (result.childElementCount && !result.contains(btn)) result.append(btn, err);
  };
  new MutationObserver(place).observe(result, { childList: true });
  document.getElementById('lang')?.addEventListener('click', () => setTimeout(place));
  place();
}

const main = document.querySelector('main.lobby');
if (main) lobbyCard(main);
else gameButton();
