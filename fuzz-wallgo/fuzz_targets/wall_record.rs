//! Fuzz the Wall Go record reader: any text must give a game or a line-numbered error, never a
//! panic; an accepted record must write back to text that reads as the same game.
#![no_main]

use baduk_wallgo::Game;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Game::from_record(text) {
        Ok(game) => {
            let again = Game::from_record(&game.to_record()).expect("a written record reads");
            assert_eq!(again.actions(), game.actions());
            assert_eq!(again.position(), game.position());
        }
        Err(e) => {
            let lines = text.lines().count();
            assert!(e.line <= lines, "line {} of {lines}: {e}", e.line);
            assert!(!e.to_string().is_empty());
        }
    }
});
