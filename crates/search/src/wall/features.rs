//! The position features the seed's bots score (measured on the position itself, never on a
//! mix of a hypothetical board and the current one).
//!
//! - **reach**: cells any of a side's pieces can reach through open edges; overlap counted once,
//!   own piece cells included, cells under enemy pieces excluded (they are not entered).
//! - **mobility**: the sum over a side's pieces of their legal destination cells this turn.
//! - **pure**: cells of the side's pure regions (its score so far); **mixed**: cells of mixed
//!   regions.
//! - **small confinement**: a side's pieces shut by walls alone into at most
//!   [`SMALL_CONFINED`] cells: the piece's reach is that small and stays that size when the
//!   enemy's pieces are lifted (so a door an enemy piece merely stands in does not count).
//! - **self-enclosure**: a side's pieces inside its own pure region of at most
//!   [`SELF_ENCLOSED`] cells.
//! - **territory** (used by the learned evaluation): cells a side reaches in strictly fewer steps
//!   than the enemy (a Voronoi split by step distance, enemy pieces blocking).

use super::bits::{Open, ALL};
use baduk_wallgo::{Cell, Player, Position, Stay};

/// A piece confined to at most this many cells counts as small-confined.
pub const SMALL_CONFINED: u32 = 4;
/// A pure region of at most this many cells counts as a self-enclosure of the pieces in it.
pub const SELF_ENCLOSED: u32 = 6;

/// The features of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideFeatures {
    /// Cells any of the side's pieces can reach (own piece cells in, enemy piece cells out).
    pub reach: u32,
    /// Sum over its pieces of their legal destination cells.
    pub mobility: u32,
    /// Cells of its pure regions.
    pub pure: u32,
    /// Its pieces shut by walls alone into at most [`SMALL_CONFINED`] cells.
    pub small_confined: u32,
    /// Its pieces inside one of its own pure regions of at most [`SELF_ENCLOSED`] cells.
    pub self_enclosed: u32,
}

/// The features of both sides (index by [`Player::index`]) and the shared ones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Per side: A then B.
    pub side: [SideFeatures; 2],
    /// Cells of mixed regions (still contested).
    pub mixed: u32,
    /// Cells of neutral regions (no pieces).
    pub neutral: u32,
}

impl Features {
    /// Measures every feature of `pos` except territory.
    pub fn of(pos: &Position) -> Features {
        let o = Open::of(pos.walls());
        let pa = pos.pieces(Player::A).bits();
        let pb = pos.pieces(Player::B).bits();
        let mut f = Features::default();
        f.side[0].reach = o.fill(pa, ALL & !pb).count_ones();
        f.side[1].reach = o.fill(pb, ALL & !pa).count_ones();
        let stuck_only = pos.variant().stay == Stay::StuckOnly;
        f.side[0].mobility = mobility(o, pa, pa | pb, stuck_only);
        f.side[1].mobility = mobility(o, pb, pa | pb, stuck_only);
        let mut rest = ALL;
        while rest != 0 {
            let r = o.fill(rest & rest.wrapping_neg(), ALL);
            rest &= !r;
            let n = r.count_ones();
            match (r & pa != 0, r & pb != 0) {
                (true, true) => f.mixed += n,
                (false, false) => f.neutral += n,
                (a, _) => {
                    let (s, mine) = if a { (0, pa) } else { (1, pb) };
                    let k = (r & mine).count_ones();
                    f.side[s].pure += n;
                    if n <= SMALL_CONFINED {
                        f.side[s].small_confined += k;
                    }
                    if n <= SELF_ENCLOSED {
                        f.side[s].self_enclosed += k;
                    }
                }
            }
        }
        f
    }

    /// The features of `p`.
    #[inline]
    pub fn of_side(&self, p: Player) -> &SideFeatures {
        &self.side[p.index()]
    }
}

/// Sum over the pieces in `mine` of their legal destination cells.
#[inline]
fn mobility(o: Open, mine: u64, occ: u64, stuck_only: bool) -> u32 {
    let empty = ALL & !occ;
    let mut m = mine;
    let mut total = 0;
    while m != 0 {
        let pb = m & m.wrapping_neg();
        m &= m - 1;
        let n1 = o.nb(pb) & empty;
        if n1 == 0 {
            continue;
        }
        let mut dest = n1 | (o.nb(n1) & (empty | pb));
        if stuck_only {
            dest &= !pb;
        }
        total += dest.count_ones();
    }
    total
}

/// The reach of the single piece on `piece`: cells it can reach, stepping on no enemy piece.
pub fn piece_reach(pos: &Position, piece: Cell) -> u32 {
    let Some(owner) = pos.piece_at(piece) else {
        return 0;
    };
    let enemy = pos.pieces(owner.other()).bits();
    Open::of(pos.walls())
        .fill(piece.bit(), ALL & !enemy)
        .count_ones()
}

/// The seed's small-enclosure test for the piece on `piece`, literally: its reach is at most
/// [`SMALL_CONFINED`] cells and stays the same size with the enemy's pieces lifted.
pub fn is_small_confined(pos: &Position, piece: Cell) -> bool {
    if pos.piece_at(piece).is_none() {
        return false;
    }
    let reach = piece_reach(pos, piece);
    let lifted = Open::of(pos.walls()).fill(piece.bit(), ALL).count_ones();
    reach <= SMALL_CONFINED && lifted == reach
}

/// Cells each side reaches in strictly fewer steps than the other (enemy pieces block; own
/// piece cells count for their side): A then B.
pub fn territory(pos: &Position) -> [u32; 2] {
    let o = Open::of(pos.walls());
    let pa = pos.pieces(Player::A).bits();
    let pb = pos.pieces(Player::B).bits();
    let (mut ra, mut rb) = (pa, pb);
    let (mut own_a, mut own_b) = (pa, pb);
    loop {
        let na = ra | (o.nb(ra) & !pb & ALL);
        let nb = rb | (o.nb(rb) & !pa & ALL);
        if na == ra && nb == rb {
            break;
        }
        let fresh = (na | nb) & !(ra | rb);
        own_a |= fresh & na & !nb;
        own_b |= fresh & nb & !na;
        ra = na;
        rb = nb;
    }
    [own_a.count_ones(), own_b.count_ones()]
}
