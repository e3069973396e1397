//! Helpers shared by the rules tests: games from diagrams, moves by GTP name.

#![allow(dead_code)]

use baduk_go::{Board, Color, Game, GameEnd, IllegalMove, Move, PassKind, Rules};

/// A game under `rules` (a rules string) from a diagram (top row first), `to_move` to play.
pub fn game(rules: &str, rows: &[&str], to_move: Color) -> Game {
    let board = Board::from_rows(rows).expect("test diagram");
    Game::from_position(Rules::parse(rules).expect("test rules"), board, to_move)
}

/// Plays a GTP move (`C3`, `pass`) for the side to move.
pub fn play(g: &mut Game, m: &str) -> Result<Option<GameEnd>, IllegalMove> {
    let mv = Move::from_gtp(m, g.board().size()).expect("test move");
    g.play(mv)
}

/// Plays a sequence that must be legal; panics naming the move that is not.
pub fn play_all(g: &mut Game, moves: &[&str]) -> Option<GameEnd> {
    let mut end = None;
    for m in moves {
        end = play(g, m).unwrap_or_else(|e| panic!("{e}"));
    }
    end
}

/// An explicit JK pass.
pub fn pass(g: &mut Game, kind: PassKind) -> Result<Option<GameEnd>, IllegalMove> {
    g.pass(kind)
}

/// Three independent kos on a 14×3 board (columns A–D, F–J, L–O). Ko 1 and ko 2 are held by
/// White (Black retakes at C2 and H2); ko 3 is held by Black (White retakes at M2).
pub const TRIPLE_KO: [&str; 3] = [".XO...XO...XO.", "XO.O.XO.O.X.XO", ".XO...XO...XO."];

/// One full triple-ko cycle from [`TRIPLE_KO`] with Black to move: six ko captures.
pub const TRIPLE_KO_CYCLE: [&str; 6] = ["C2", "M2", "H2", "B2", "N2", "G2"];

/// Book ch. 10.6, the period-5 cycle (Hiddema), on a 5×5 board: Black connects at A1, White
/// takes three at A3, Black takes one back at A2, White throws in at A1, Black takes it at B1
/// (recreating the start with White to move), White passes, and Black connects again.
pub const PERIOD_FIVE: [&str; 5] = [".....", "X....", ".X...", "XO...", ".XO.."];

/// The period-5 cycle's moves from [`PERIOD_FIVE`], Black first.
pub const PERIOD_FIVE_CYCLE: [&str; 7] = ["A1", "A3", "A2", "A1", "B1", "pass", "A1"];

/// Book ch. 10, send two, return one, on a 5×5 board: Black sends two at C1, White takes them
/// at A1, and Black takes one back at B1, recreating the start with White to move.
pub const SEND_TWO: [&str; 5] = [".....", ".....", ".....", "XOO..", ".X.O."];

/// A plain ko on a 4×4 board: Black captures at C3, White would retake at B3.
pub const KO: [&str; 4] = [".XO.", "XO.O", ".XO.", "...."];
