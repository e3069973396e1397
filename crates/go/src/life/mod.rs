//! Life and death at the end of a game: Benson's unconditional life, seki, a dead-stone
//! estimator for finished games, and verification play (Kang rules 6–7, Korean; Japanese 1989
//! art. 7 confirmation).

pub mod benson;
pub mod estimate;
pub mod seki;
pub mod unconditional;
pub mod verify;

pub use benson::{benson, Benson, Unconditional};
pub use estimate::{
    estimate, from_dead, from_marks, ChainStatus, ChainVerdict, Estimate, EstimateConfig, Source,
};
pub use seki::{find_seki, SekiInfo};
pub use unconditional::unconditional;
pub use verify::{verify, Bound, Mode, Status, Verification};
