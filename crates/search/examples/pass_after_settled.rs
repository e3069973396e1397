//! How many moves the bot plays on after its opponent has passed on a settled board: each
//! record ends with the player's pass; the bot (set up as a server's seat is, at `LEVEL`) moves,
//! the player passes again, and so on until the bot passes (or `CAP` moves).
//!
//!     cargo run --release -p baduk-search --example pass_after_settled -- LEVEL SEED CAP FILE... [--opts OPTS]
//!
//! The seed of each move is `SEED` mixed with the number of moves so far, as the server mixes
//! a room's seed with its version. OPTS are more bot options (`playouts=10000`, `time=1`); with
//! none, a level below 10 plays its capped playouts and level 10 searches one second.
//! Prints, per record, the moves the bot played before passing, then the total.

use baduk_go::sgf::SgfGame;
use baduk_go::Move;
use baduk_search::go::lib_game::genmove;
use baduk_search::go::{Bot, BotConfig, SearchRequest, SEAT_DEFAULTS};
use std::process::exit;

const USAGE: &str = "usage: pass_after_settled LEVEL SEED CAP FILE... [--opts OPTS]";

/// Prints `msg` and stops with exit status 2.
fn fail(msg: &str) -> ! {
    eprintln!("pass_after_settled: {msg}");
    exit(2)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut opts = String::new();
    if let Some(k) = args.iter().position(|a| a == "--opts") {
        opts = args.get(k + 1).cloned().unwrap_or_else(|| fail(USAGE));
        args.drain(k..k + 2);
    }
    if args.len() < 4 {
        fail(USAGE);
    }
    let num = |s: &str| s.parse::<u64>().unwrap_or_else(|_| fail(USAGE));
    let (level, seed, cap) = (num(&args[0]), num(&args[1]), num(&args[2]));
    let mut total = 0;
    for file in &args[3..] {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| fail(&format!("{file}: {e}")));
        let sgf = SgfGame::parse(&text).unwrap_or_else(|e| fail(&format!("{file}: {e}")));
        let rules = sgf
            .rules(None)
            .unwrap_or_else(|e| fail(&format!("{file}: {e}")));
        let mut game = sgf
            .replay(rules, None)
            .unwrap_or_else(|e| fail(&format!("{file}: {e}")));
        let mut played = Vec::new();
        let end = loop {
            if played.len() as u64 >= cap {
                break "cap";
            }
            let n = game.history().len() as u64;
            let mut cfg = BotConfig::default();
            let extra = if opts.is_empty() {
                String::new()
            } else {
                format!(",{opts}")
            };
            cfg.apply_options(&format!(
                "{SEAT_DEFAULTS},level={level},seed={}{extra}",
                seed ^ n.wrapping_mul(0x9E37_79B9)
            ))
            .unwrap_or_else(|e| fail(&e));
            let mut bot = Bot::new(cfg);
            let (mv, _) = genmove(&mut bot, &game, SearchRequest::default());
            match mv {
                None => break "resigned",
                Some(Move::Pass) => break "passed",
                Some(m @ Move::Play(p)) => {
                    played.push(p.to_string());
                    game.play(m)
                        .unwrap_or_else(|e| fail(&format!("{file}: {e}")));
                    game.play(Move::Pass)
                        .unwrap_or_else(|e| fail(&format!("{file}: {e}")));
                }
            }
        };
        total += played.len();
        println!(
            "{file}: {} moves, then {end}: {}",
            played.len(),
            played.join(" ")
        );
    }
    println!("total: {total} moves");
}
