//! The Go (baduk) rules library: points, positions, rule sets as data, game history with every
//! repetition rule, scoring under every rule set, life and death, and the SGF adapter.
//!
//! It knows nothing of I/O, terminals or networks; the `baduk` binary and the servers are adapters
//! on top of it.

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
pub use sgf::{SgfError, SgfGame, SgfMove};
