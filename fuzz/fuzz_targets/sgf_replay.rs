//! Feeds bytes to the SGF reader and replays whatever parses, under the file's rules and every
//! preset; writing the replayed game back must give an SGF that reads again.

#![no_main]

use baduk_go::{sgf, Rules, SgfGame};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(game) = SgfGame::parse(text) else {
        return;
    };
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
