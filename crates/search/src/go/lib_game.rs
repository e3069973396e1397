//! The bridge to the rules library: the bot's mirror of a `baduk_go::Game`, the legal root moves
//! the library allows, and a `genmove` that searches a library game and returns a library move.

use super::board::{Colour, FastBoard, Idx, PASS};
use super::rules::BotRules;
use super::state::GameState;
use super::{Bot, BotMove, SearchRequest, SearchResult};
use baduk_go::{Color, Game, Move, Point};

/// The bot's colour for a library colour.
pub fn colour(c: Color) -> Colour {
    match c {
        Color::Black => Colour::Black,
        Color::White => Colour::White,
    }
}

/// The library's colour for a bot colour.
pub fn lib_colour(c: Colour) -> Color {
    c.lib()
}

/// The fast-board index of a library point (library rows count from the bottom).
pub fn idx_of(b: &FastBoard, p: Point) -> Idx {
    b.idx(p.x() as usize, b.height() - 1 - p.y() as usize)
}

/// The library point of a fast-board index.
pub fn point_of(b: &FastBoard, i: Idx) -> Point {
    let (x, y) = b.xy(i);
    Point::new(x as u32, (b.height() - 1 - y) as u32)
}

/// The library move for a fast-board index (PASS → pass).
pub fn move_of(b: &FastBoard, i: Idx) -> Move {
    if i == PASS {
        Move::Pass
    } else {
        Move::Play(point_of(b, i))
    }
}

/// The bot's mirror of `game`: its start position and every move, under the game's own rules.
pub fn mirror(game: &Game) -> GameState {
    let size = game.board().size();
    let rules = BotRules::from(game.rules());
    let mut g = GameState::new_rect(size.cols() as usize, size.rows() as usize, rules);
    let start = game.start_board();
    let fb = g.board().clone();
    let setup: Vec<(Colour, Idx)> = start
        .points()
        .filter_map(|p| start.get(p).map(|c| (colour(c), idx_of(&fb, p))))
        .collect();
    g.place_setup(&setup);
    g.set_to_move(colour(game.start_to_move()));
    for r in game.history() {
        let i = match r.mv {
            Move::Play(p) => idx_of(&fb, p),
            Move::Pass => PASS,
        };
        g.force_play(colour(r.color), i);
    }
    g.set_to_move(colour(game.to_move()));
    g
}

/// The board points the library allows the side to move (its own repetition rule included).
pub fn root_moves(game: &Game, fb: &FastBoard) -> Vec<Idx> {
    game.legal_moves()
        .into_iter()
        .filter_map(|m| m.point().map(|p| idx_of(fb, p)))
        .collect()
}

/// Searches `game` for its side to move and returns the library move (None: resign).
pub fn genmove(bot: &mut Bot, game: &Game, mut req: SearchRequest) -> (Option<Move>, SearchResult) {
    let m = mirror(game);
    req.root_moves = Some(root_moves(game, m.board()));
    let r = bot.genmove(&m, &req);
    let mv = match r.mv {
        BotMove::Resign => None,
        BotMove::Pass => Some(Move::Pass),
        BotMove::Play(i) => Some(move_of(m.board(), i)),
    };
    (mv, r)
}
