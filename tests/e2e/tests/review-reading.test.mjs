// The review page as a person reads it: every number rounded for reading (points to 0.1, win
// rates to whole percent) in the "Engine here" line and the mistakes list, in both languages;
// the score table's notes on checks (verification play, the art. 7 confirmation, the playout
// majority) in Korean on the Korean page; and a record that names no rules read under one
// default, the same in the rules picker and in the engine's line.

import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, person, shots } from './lib.mjs';

/** A short 9×9 record naming no rules (no RU). */
function noRules() {
  const moves = ['ee', 'cc', 'gg', 'cg', 'gc', 'dd', 'ec', 'fd'];
  let s = '(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[6.5]PB[Kim]PW[Lee]';
  moves.forEach((m, i) => (s += `;${i % 2 ? 'W' : 'B'}[${m}]`));
  return `${s})`;
}

async function upload(text) {
  const r = await fetch(`${BASE}/api/reviews`, { method: 'POST', body: text });
  assert.equal(r.status, 201);
  return (await r.json()).id;
}

/**
 * An engine review as a float-minded engine stores it: leads, bands and points with binary
 * tails (5.900000095367432), win rates with many decimals; move 4 a mistake of 20.1 points.
 */
function floatyAnalysis(a, moves) {
  const positions = [];
  for (let k = 0; k <= moves.length; k++) {
    const mistake = k === 3;
    positions.push({
      position: k,
      to_move: k % 2 ? 'W' : 'B',
      winrate: 0.5371234,
      score: 5.900000095367432,
      score_band: 12.899999618530272,
      best: mistake ? 'J9' : moves[k]?.move ?? 'pass',
      pv: mistake ? ['J9', 'A1'] : [],
      played: moves[k]?.move ?? null,
      loss: mistake ? 0.31 : 0,
      points_lost: mistake ? 20.100000381469727 : 0,
      visits: 100,
    });
  }
  return { ...a, status: 'done', done: positions.length, total: positions.length, positions };
}

describe('the review page, read', () => {
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  for (const locale of ['en-US', 'ko-KR']) {
    test(`numbers are rounded for reading: points to 0.1, win rates to whole percent (${locale})`, async (t) => {
      const id = await upload(noRules());
      const { page: p } = await person(browser, `numbers-${locale}`, { locale });
      await shots(t, [p], async () => {
        // The stored review, with an analysis of floats' tails in place of the engine's.
        await p.route(new RegExp(`/api/reviews/${id}$`), async (route) => {
          const res = await route.fetch();
          const d = await res.json();
          d.analysis = floatyAnalysis(d.analysis, d.moves);
          await route.fulfill({ response: res, json: d });
        });
        await p.goto(`${BASE}/r/${id}`);
        await p.waitForSelector('body[data-ready="1"]');
        await p.waitForSelector('#mistakes button');
        // The position before the mistake: the engine's line there.
        await p.click('#mistakes button');
        await p.waitForSelector('#engine-here');
        const here = await p.textContent('#engine-here');
        const list = await p.textContent('#mistakes');
        for (const text of [here, list]) assert.doesNotMatch(text, /\d\.\d{2,}/, `no float tails: ${text}`);
        if (locale === 'ko-KR') {
          assert.match(here, /54%/, here);
          assert.match(here, /흑 \+5\.9 ± 12\.9/, here);
          assert.match(list, /20\.1집/, list);
        } else {
          assert.match(here, /Black 54%, lead B\+5\.9 ± 12\.9/, here);
          assert.match(list, /−31%, 20\.1 points/, list);
        }
      });
    });
  }

  test('a record naming no rules: the picker and the engine name the same rule set', async (t) => {
    const id = await upload(noRules());
    for (const locale of ['en-US', 'ko-KR']) {
      const { page: p } = await person(browser, `default-rules-${locale}`, { locale });
      await shots(t, [p], async () => {
        await p.goto(`${BASE}/r/${id}`);
        await p.waitForSelector('body[data-ready="1"]');
        await p.waitForSelector('#engine .hint');
        const picked = await p.$eval('#rules', (s) => s.selectedOptions[0].textContent.replace(' ✕', ''));
        const engine = await p.textContent('#engine .hint');
        assert.ok(engine.includes(picked), `the engine's line names ${picked}: ${engine}`);
        assert.match(picked, locale === 'ko-KR' ? /일본/ : /Japanese/);
      });
    }
  });

  test('the score table’s notes on checks read in Korean on the Korean page', async (t) => {
    const id = await upload(noRules());
    const { page: p } = await person(browser, 'notes-ko', { locale: 'ko-KR' });
    await shots(t, [p], async () => {
      await p.goto(`${BASE}/r/${id}`);
      await p.waitForSelector('body[data-ready="1"]');
      // The notes as the rules library writes them (crates/go/src/scoring/table.rs), read by the
      // page's own function.
      const notes = [
        'verification play C3: dead (opponent first: BD3 WC4 BB3; owner first: WD3 Bpass WB2)',
        'verification play E5: alive (opponent first: BD5 Wpass; owner first: Wpass)',
        'art. 7 confirmation G7: seki (opponent first: BH7; owner first: Wpass)',
        'verification play C3: undecided: search bound reached (12 plies, 4000 nodes)',
        'verification play C3: undecided: unsettled: it is captured if the opponent moves first and saved if its owner does (seed 001 calls such a game immature, 미숙)',
        'art. 7 confirmation C3: disputed: the 1989 Japanese rules (art. 7) do not settle this position: it survives only when the opponent moves first',
        'verification play D4: undecided: the verification turns on a ko: the answer depends on ko threats elsewhere (book ch. 3)',
        '3 more unsettled chains counted by the playout majority',
        'unsettled (counted by the playout majority): C3 D4 E5',
      ];
      const read = await p.evaluate(async (notes) => {
        const { noteText } = await import('/static/js/ui.js');
        return notes.map(noteText);
      }, notes);
      for (const [i, text] of read.entries()) {
        // Coordinates (C3, D4) stay; no English word is left.
        assert.doesNotMatch(text.replace(/\b[A-HJ-T]\d{1,2}\b/g, ''), /[A-Za-z]{2,}/, `${notes[i]} → ${text}`);
      }
      assert.match(read[0], /검증 C3: 죽음 \(상대 먼저: 흑 D3 백 C4 흑 B3; 임자 먼저: 백 D3 흑 착수포기 백 B2\)/);
      assert.match(read[8], /^미정 \(플레이아웃 다수결로 셈\): C3 D4 E5$/);
      // And the table on the page: no English left in its notes either.
      const cells = await p.$$eval('#scores td.notes', (tds) => tds.map((td) => td.textContent));
      assert.ok(cells.length >= 9);
      for (const c of cells) assert.doesNotMatch(c.replace(/\b[A-HJ-T]\d{1,2}\b/g, ''), /[A-Za-z]{2,}/, c);
    });
  });
});
