//! Benson's unconditional life: chains that cannot be captured even if the opponent may play any
//! number of moves in a row, and the regions they make safe (pass-alive territory).
//!
//! The algorithm (Benson 1976): for one colour, take its chains and the regions of points not
//! occupied by that colour. A region is *vital* to a chain when every empty point of the region is
//! a liberty of the chain. Repeatedly drop chains with fewer than two vital regions, and regions
//! bordered by a dropped chain, until nothing changes; the chains left are unconditionally alive.
//! A surviving region whose every empty point touches a living stone is territory: the opponent
//! cannot make an eye there, so its stones inside are dead.

use crate::board::Board;
use crate::point::{Color, Point};
use crate::scoring::PointSet;
use std::fmt;

/// GNU Go's `unconditional_status` words for one point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unconditional {
    /// A stone that can never be captured.
    Alive,
    /// A stone inside the opponent's unconditional territory.
    Dead,
    /// An empty point of Black's unconditional territory.
    BlackTerritory,
    /// An empty point of White's unconditional territory.
    WhiteTerritory,
    /// Anything else.
    Undecided,
}

impl Unconditional {
    /// The word GNU Go prints: `alive`, `dead`, `black_territory`, `white_territory`, `undecided`.
    pub fn word(self) -> &'static str {
        match self {
            Unconditional::Alive => "alive",
            Unconditional::Dead => "dead",
            Unconditional::BlackTerritory => "black_territory",
            Unconditional::WhiteTerritory => "white_territory",
            Unconditional::Undecided => "undecided",
        }
    }
}

impl fmt::Display for Unconditional {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Benson's verdict for a whole position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Benson {
    /// Stones of unconditionally alive chains (both colours).
    pub alive: PointSet,
    /// Points (empty, or opponent stones, which are dead) of each colour's safe territory.
    pub territory: [PointSet; 2],
}

impl Benson {
    /// The verdict for one point, in GNU Go's words.
    pub fn status(&self, board: &Board, p: Point) -> Unconditional {
        match board.get(p) {
            Some(_) if self.alive.contains(p) => Unconditional::Alive,
            Some(c) if self.territory[c.opponent().index()].contains(p) => Unconditional::Dead,
            Some(_) => Unconditional::Undecided,
            None if self.territory[0].contains(p) => Unconditional::BlackTerritory,
            None if self.territory[1].contains(p) => Unconditional::WhiteTerritory,
            None => Unconditional::Undecided,
        }
    }

    /// Whether the stone on `p` is unconditionally dead (inside the opponent's safe territory).
    pub fn is_dead(&self, board: &Board, p: Point) -> bool {
        self.status(board, p) == Unconditional::Dead
    }
}

/// Runs Benson's algorithm for both colours.
pub fn benson(board: &Board) -> Benson {
    let mut out = Benson {
        alive: PointSet::new(),
        territory: [PointSet::new(); 2],
    };
    for c in [Color::Black, Color::White] {
        one_colour(board, c, &mut out);
    }
    out
}

struct Region {
    /// Range into the flat point list.
    start: usize,
    end: usize,
    /// Chains (indices) bordering the region.
    borders: Vec<u16>,
    /// Chains to which the region is vital.
    vital: Vec<u16>,
    /// Every empty point touches a stone of the colour.
    small: bool,
}

fn one_colour(board: &Board, c: Color, out: &mut Benson) {
    const NONE: u16 = u16::MAX;
    let mut chain_of = vec![NONE; Point::INDEX_LIMIT];
    let mut chains: Vec<Point> = Vec::new();
    for p in board.points() {
        if board.get(p) == Some(c) && chain_of[p.index()] == NONE {
            let id = chains.len() as u16;
            for s in board.chain_stones(p) {
                chain_of[s.index()] = id;
            }
            chains.push(p);
        }
    }
    if chains.is_empty() {
        return;
    }
    let mut seen = PointSet::new();
    let mut pts: Vec<Point> = Vec::with_capacity(board.size().area());
    let mut regions: Vec<Region> = Vec::new();
    for s in board.points() {
        if board.get(s) == Some(c) || seen.contains(s) {
            continue;
        }
        let start = pts.len();
        seen.insert(s);
        pts.push(s);
        let mut i = start;
        let mut borders: Vec<u16> = Vec::new();
        let mut vital: Option<Vec<u16>> = None;
        let mut small = true;
        while i < pts.len() {
            let p = pts[i];
            i += 1;
            let empty = board.get(p).is_none();
            let mut here: [u16; 4] = [NONE; 4];
            let mut n = 0;
            for q in board.neighbours(p) {
                if board.get(q) == Some(c) {
                    let id = chain_of[q.index()];
                    if !here[..n].contains(&id) {
                        here[n] = id;
                        n += 1;
                    }
                    if !borders.contains(&id) {
                        borders.push(id);
                    }
                } else if !seen.contains(q) {
                    seen.insert(q);
                    pts.push(q);
                }
            }
            if empty {
                small &= n > 0;
                match &mut vital {
                    None => vital = Some(here[..n].to_vec()),
                    Some(v) => v.retain(|id| here[..n].contains(id)),
                }
            }
        }
        let vital = vital.unwrap_or_else(|| borders.clone());
        regions.push(Region {
            start,
            end: pts.len(),
            borders,
            vital,
            small,
        });
    }
    let mut alive = vec![true; chains.len()];
    let mut ok: Vec<bool> = regions.iter().map(|r| !r.borders.is_empty()).collect();
    loop {
        let mut changed = false;
        let mut vital_count = vec![0u32; chains.len()];
        for (r, reg) in regions.iter().enumerate() {
            if ok[r] {
                for &id in &reg.vital {
                    vital_count[id as usize] += 1;
                }
            }
        }
        for (id, a) in alive.iter_mut().enumerate() {
            if *a && vital_count[id] < 2 {
                *a = false;
                changed = true;
            }
        }
        for (r, reg) in regions.iter().enumerate() {
            if ok[r] && reg.borders.iter().any(|&id| !alive[id as usize]) {
                ok[r] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (id, &a) in alive.iter().enumerate() {
        if a {
            for s in board.chain_stones(chains[id]) {
                out.alive.insert(s);
            }
        }
    }
    for (r, reg) in regions.iter().enumerate() {
        if ok[r] && reg.small {
            for &p in &pts[reg.start..reg.end] {
                out.territory[c.index()].insert(p);
            }
        }
    }
}
