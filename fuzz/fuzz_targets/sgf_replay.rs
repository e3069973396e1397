//! Feeds bytes to the SGF reader — any bytes: `sgf::decode` honours `CA` and falls back to
//! ISO-8859-1, so non-UTF-8 input reaches the parser — and replays whatever parses: under the
//! file's rules and every preset (writing the replayed game back must give an SGF that reads
//! again), and along the scorer's path (`Record::from_game`, marks, estimate, score), as
//! `go score` and `go life` do. Errors must be values, never panics, and the reader's counted
//! work on any input is at most `sgf::WORK_PER_BYTE` a byte (the per-input bound is cost per
//! byte, not wall time: the set-up bombs cost seconds of CPU in a few hundred KB).

#![no_main]

use baduk_go::life::{self, EstimateConfig};
use baduk_go::scoring::{self, record::Record};
use baduk_go::{sgf, Rules, SgfGame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = match sgf::decode(data) {
        Ok(t) => t,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let (read, work) = SgfGame::parse_counted(&text, 0, &sgf::SgfLimits::default());
    assert!(
        work.cost() <= sgf::WORK_PER_BYTE * text.len().max(1),
        "{work:?} for {} bytes",
        text.len()
    );
    let game = match read {
        Ok(g) => g,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for index in 1..game.games.min(3) {
        let _ = SgfGame::parse_game(&text, index).map_err(|e| e.to_string());
    }
    // The scorer's path: physics replay, marks, a few playouts, every preset.
    if let Ok(rec) = Record::from_game(&game, None) {
        let cfg = EstimateConfig {
            playouts: 4,
            ..EstimateConfig::default()
        };
        let est = life::from_marks(&rec.board, &rec.marks)
            .unwrap_or_else(|| life::estimate(&rec.board, &cfg));
        let _ = life::unconditional(&rec.board);
        for mut rules in Rules::presets() {
            rules = rules.with_size(rec.board.size());
            if let Some(k) = rec.komi {
                rules.komi = k;
            }
            let s = scoring::score(&rec.board, &rec.facts, &est.settled, &rules);
            let _ = s.outcome.text();
        }
    }
    let mut all: Vec<Rules> = Rules::presets().collect();
    if let Ok(r) = game.rules(None) {
        all.push(r);
    }
    for rules in all {
        let Ok(rules) = game.rules(Some(rules)) else {
            continue;
        };
        let replayed = match game.replay(rules, None) {
            Ok(g) => g,
            Err(e) => {
                let _ = e.to_string();
                continue;
            }
        };
        let _ = replayed.legal_moves();
        let written = sgf::write(&replayed);
        let back = SgfGame::parse(&written).expect("our own SGF reads back");
        assert_eq!(back.moves.len(), replayed.move_count());
    }
});
