//! The Go (baduk) rules library: points, positions, rule sets as data, game history with every
//! repetition rule, scoring under every rule set, life and death, and the SGF adapter.
//!
//! It knows nothing of I/O, terminals or networks; the `baduk` binary and the servers are adapters
//! on top of it.
//!
//! ```
//! use baduk_go::{Game, Move, Point, Rules};
//!
//! let rules = Rules::parse("chinese,size=9,komi=6.5").unwrap();
//! let mut game = Game::new(rules);
//! game.play(Move::Play(Point::from_gtp("E5", rules.size).unwrap())).unwrap();
//! let err = game.play(Move::Play(Point::from_gtp("E5", rules.size).unwrap())).unwrap_err();
//! assert_eq!(err.to_string(), "move 2 W E5: point is occupied");
//! assert_eq!(game.legal_moves().len(), 80 + 1); // 80 empty points and a pass
//! ```

pub mod board;
pub mod game;
pub mod life;
pub mod playout;
pub mod point;
pub mod rules;
pub mod scoring;
pub mod sgf;

pub use board::{Board, DiagramError, PlayError, PlayOutcome, Probe};
pub use game::{
    Game, GameEnd, IllegalMove, IllegalReason, LossRule, MoveClass, MoveRecord, PassKind,
};
pub use playout::{PlayoutResult, Playouts};
pub use point::{Color, Move, Point, PointError, Size, SizeError};
pub use rules::{
    Cycles, End, HandicapBonus, Ko, Komi, Life, MoveLimit, Passes, Placement, Preset, Rules,
    RulesError, Scoring, Seki, Suicide, Ties, TimeControl,
};
pub use sgf::{SgfError, SgfGame, SgfInfo, SgfMove};
