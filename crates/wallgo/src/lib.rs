//! The Wall Go (벽바둑) rules library: cells `A1`–`G7` and the 84 inner edges as bit sets, pieces,
//! the [`Variant`], actions and their record notation, the exact legal-action generator,
//! [`Position::apply`] with typed errors naming the rule, regions, the end of the game, scores and
//! the record format. The contract is `shared/spec/wallgo.md`.
//!
//! It is built for search: [`Position`] is a small `Copy` value (copy, then
//! [`Position::apply_unchecked`]), [`Position::legal_actions`] fills a caller's fixed
//! [`ActionList`] without allocating, and [`Position::hash`] is an incremental Zobrist hash.
//!
//! ```
//! use baduk_wallgo::{perft, ActionList, Phase, Position, Variant};
//!
//! let mut pos = Position::new(Variant::default());
//! let mut list = ActionList::new(); // reuse one buffer per search ply
//! pos.legal_actions(&mut list);
//! assert_eq!(list.len(), 45); // the first placement: any empty cell
//! let mut child = pos; // copy-make: copy, then apply
//! child.apply_unchecked(list[0]);
//! assert_ne!(child.hash(), pos.hash());
//! pos.apply("D4".parse().unwrap()).unwrap(); // checked: Err names the rule
//! assert_eq!(pos.phase(), Phase::Placement);
//! assert_eq!(perft(&pos, 2), 44 * 43);
//! ```
//!
//! It knows nothing of I/O, terminals, clocks or networks, and has no bots (those live in
//! `baduk-search`).
//!
//! A note on the source's "no wall is added if the move already separated the pieces": a move
//! keeps a piece inside its region (regions change only by walls), so a move alone can never
//! separate the pieces; every non-pass turn therefore places exactly one wall.

mod action;
mod geom;
mod position;
mod record;
mod variant;
mod zobrist;

pub use action::{Action, ActionList, MAX_ACTIONS};
pub use geom::{
    Cell, CellIter, CellSet, Edge, EdgeSet, NotationError, Side, NUM_CELLS, NUM_EDGES, SIZE,
};
pub use position::{
    perft, play_random, ActionError, Block, EndReason, Outcome, Phase, Position, Region,
    RegionKind, Regions, Rule, Score, SetupError, FIXED_A, FIXED_B, PIECES_PER_PLAYER, PLACEMENTS,
};
pub use record::{record_line, Game, RecordError, RecordErrorKind};
pub use variant::{Placement, Player, Stay, TieBreak, Variant, VariantError};
