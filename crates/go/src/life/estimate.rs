//! A dead-stone estimator for finished games: Benson's verdict where it decides, seeded random
//! playouts for the rest (they never fill their own single-point eyes and always capture a chain
//! the previous move left in atari), and seki detection.
//! Referee marks in the file (`TB`/`TW`, `MA`) take precedence when present.
//!
//! Deterministic: the same position and seed give the same answer.

use super::benson::{benson, Benson};
use super::seki::{find_seki, SekiInfo};
use crate::board::Board;
use crate::point::{Color, Point};
use crate::scoring::record::Marks;
use crate::scoring::{PointSet, Settled};
use baduk_rng::Rng;
use std::fmt;

/// The estimated status of one chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChainStatus {
    /// Stays on the board.
    Alive,
    /// Removed at the end and given to the opponent as prisoners.
    Dead,
    /// Alive in seki.
    Seki,
    /// The estimator cannot tell (counted by the playout majority).
    Unsettled,
}

impl fmt::Display for ChainStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ChainStatus::Alive => "alive",
            ChainStatus::Dead => "dead",
            ChainStatus::Seki => "seki",
            ChainStatus::Unsettled => "unsettled",
        })
    }
}

/// Where a chain's status came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Benson's algorithm (certain).
    Benson,
    /// Seki detection.
    Seki,
    /// Playout ownership.
    Playouts,
    /// The file's own marks.
    Marks,
}

/// One chain's verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainVerdict {
    /// One stone of the chain (its name).
    pub anchor: Point,
    /// The chain's colour.
    pub color: Color,
    /// Number of stones.
    pub stones: usize,
    /// The status.
    pub status: ChainStatus,
    /// Confidence in the status, 0 to 1.
    pub confidence: f64,
    /// Where the status came from.
    pub source: Source,
}

/// The estimator's answer for a whole position.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Every chain, in board order.
    pub chains: Vec<ChainVerdict>,
    /// Dead stones and seki points, ready for [`crate::scoring::score`].
    pub settled: Settled,
    /// Seki chains and points.
    pub seki: SekiInfo,
    /// Whether the dead stones came from marks in the file rather than the estimator.
    pub from_marks: bool,
    /// Contradictory marks (reported, not fixed).
    pub contradictions: Vec<String>,
}

impl Estimate {
    /// The dead stones, in board order.
    pub fn dead_stones(&self) -> Vec<Point> {
        self.settled.dead.iter().collect()
    }
}

/// Estimator settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EstimateConfig {
    /// Random playouts (half with each colour to move first).
    pub playouts: u32,
    /// Seed of the playouts.
    pub seed: u64,
}

impl Default for EstimateConfig {
    fn default() -> EstimateConfig {
        EstimateConfig {
            playouts: 200,
            seed: 0x5C0E,
        }
    }
}

/// Ownership per point (indexed by [`Point::index`]) summed over the playouts from `start`:
/// +1 for each playout that ends with the point Black's, −1 for White's.
pub fn ownership(start: &Board, cfg: &EstimateConfig) -> Vec<i32> {
    let mut own = vec![0i32; Point::INDEX_LIMIT];
    let mut rng = Rng::new(cfg.seed);
    let area = start.size().area();
    let mut empties: Vec<Point> = Vec::with_capacity(area);
    for i in 0..cfg.playouts {
        let mut b = start.clone();
        b.clear_undo();
        let mut color = if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        let mut passes = 0;
        let mut moves = 0;
        let mut last: Option<Point> = None;
        while passes < 2 && moves < 3 * area {
            // Capture a chain the last move left in atari (a stone played into atari is taken).
            if let Some(l) = last {
                if b.get(l) == Some(color.opponent()) && b.liberty_count(l) == 1 {
                    if let Some(&lib) = b.liberties(l).first() {
                        if b.is_simple_legal(lib, color) {
                            let _ = b.play_unrecorded(lib, color);
                            last = Some(lib);
                            passes = 0;
                            moves += 1;
                            color = color.opponent();
                            continue;
                        }
                    }
                }
            }
            empties.clear();
            empties.extend(b.empty_points());
            let mut played = false;
            while !empties.is_empty() {
                let k = rng.below(empties.len());
                let p = empties.swap_remove(k);
                if b.is_simple_legal(p, color) && !b.is_eye(p, color) {
                    // Cannot fail: the point is empty.
                    let _ = b.play_unrecorded(p, color);
                    last = Some(p);
                    played = true;
                    break;
                }
            }
            if !played {
                last = None;
            }
            passes = if played { 0 } else { passes + 1 };
            moves += 1;
            color = color.opponent();
        }
        for p in b.points() {
            let owner = match b.get(p) {
                Some(c) => Some(c),
                None => {
                    let mut seen = [false; 2];
                    for q in b.neighbours(p) {
                        if let Some(c) = b.get(q) {
                            seen[c.index()] = true;
                        }
                    }
                    match seen {
                        [true, false] => Some(Color::Black),
                        [false, true] => Some(Color::White),
                        _ => None,
                    }
                }
            };
            match owner {
                Some(Color::Black) => own[p.index()] += 1,
                Some(Color::White) => own[p.index()] -= 1,
                None => {}
            }
        }
    }
    own
}

fn chains_of(board: &Board) -> Vec<Point> {
    let mut seen = PointSet::new();
    let mut out = Vec::new();
    for p in board.points() {
        if board.get(p).is_some() && !seen.contains(p) {
            for s in board.chain_stones(p) {
                seen.insert(s);
            }
            out.push(p);
        }
    }
    out
}

/// Estimates the status of every chain of a finished position.
pub fn estimate(board: &Board, cfg: &EstimateConfig) -> Estimate {
    let verdict = benson(board);
    let mut start = board.clone();
    for p in board.points() {
        if board.get(p).is_some() && verdict.is_dead(board, p) && start.get(p).is_some() {
            start.remove_chain(p);
        }
    }
    let own = ownership(&start, cfg);
    let n = cfg.playouts.max(1) as f64;
    let anchors = chains_of(board);
    // Share of playouts in which each chain's colour owned its points.
    let share = |a: Point, c: Color| -> f64 {
        let (mut sum, mut k) = (0.0, 0.0);
        for s in board.chain_stones(a) {
            let o = own[s.index()] as f64 / n;
            sum += if c == Color::Black { o } else { -o };
            k += 1.0;
        }
        (sum / k + 1.0) / 2.0
    };
    let mut strongly_dead = PointSet::new();
    for &a in &anchors {
        let c = board.get(a).unwrap_or(Color::Black);
        if !verdict.alive.contains(a) && (verdict.is_dead(board, a) || share(a, c) < 0.3) {
            for s in board.chain_stones(a) {
                strongly_dead.insert(s);
            }
        }
    }
    let seki = find_seki(board, &strongly_dead, &verdict);
    let mut chains = Vec::with_capacity(anchors.len());
    let mut dead = PointSet::new();
    for &a in &anchors {
        let c = board.get(a).unwrap_or(Color::Black);
        let (status, confidence, source) = if verdict.alive.contains(a) {
            (ChainStatus::Alive, 1.0, Source::Benson)
        } else if verdict.is_dead(board, a) {
            (ChainStatus::Dead, 1.0, Source::Benson)
        } else if seki.stones.contains(a) {
            (ChainStatus::Seki, 0.9, Source::Seki)
        } else {
            let o = share(a, c);
            if o >= 0.6 {
                (ChainStatus::Alive, o, Source::Playouts)
            } else if o <= 0.4 {
                (ChainStatus::Dead, 1.0 - o, Source::Playouts)
            } else {
                (
                    ChainStatus::Unsettled,
                    1.0 - 2.0 * (o - 0.5).abs(),
                    Source::Playouts,
                )
            }
        };
        // An unsettled chain counts by the majority of the playouts.
        let counted_dead =
            status == ChainStatus::Dead || (status == ChainStatus::Unsettled && share(a, c) < 0.5);
        if counted_dead {
            for s in board.chain_stones(a) {
                dead.insert(s);
            }
        }
        chains.push(ChainVerdict {
            anchor: a,
            color: c,
            stones: board.chain_len(a),
            status,
            confidence,
            source,
        });
    }
    Estimate {
        chains,
        settled: Settled {
            dead,
            seki: seki.points,
        },
        seki,
        from_marks: false,
        contradictions: Vec::new(),
    }
}

/// The settlement the file's marks give: `MA` stones and stones inside the opponent's marked
/// territory are dead. A stone marked dead inside its own colour's marked territory, or a stone
/// that Benson proves alive marked dead, is a contradiction: reported, and the mark is kept.
/// Returns `None` when the file marks nothing.
pub fn from_marks(board: &Board, marks: &Marks) -> Option<Estimate> {
    marks.any().then(|| marked(board, marks))
}

/// The settlement of exactly these dead stones (`MA` marks, as [`from_marks`] reads them), none
/// at all when `dead` is empty: what a reviewer's toggled chains give.
pub fn from_dead(board: &Board, dead: PointSet) -> Estimate {
    marked(
        board,
        &Marks {
            dead,
            ..Marks::default()
        },
    )
}

fn marked(board: &Board, marks: &Marks) -> Estimate {
    let verdict: Benson = benson(board);
    let mut dead = PointSet::new();
    let mut contradictions = Vec::new();
    for p in board.points() {
        let Some(c) = board.get(p) else { continue };
        let in_own = marks.territory[c.index()].contains(p);
        let in_opp = marks.territory[c.opponent().index()].contains(p);
        let ma = marks.dead.contains(p);
        if ma && in_own {
            contradictions.push(format!(
                "{p}: {c} stone marked dead (MA) inside {c}'s own marked territory"
            ));
        }
        if (ma || in_opp) && verdict.alive.contains(p) {
            contradictions.push(format!(
                "{p}: {c} stone marked dead but unconditionally alive (Benson)"
            ));
        }
        if in_own && in_opp {
            contradictions.push(format!("{p}: marked as both TB and TW"));
        }
        if ma || in_opp {
            dead.insert(p);
        }
    }
    let seki = find_seki(board, &dead, &verdict);
    let chains = chains_of(board)
        .into_iter()
        .map(|a| {
            let c = board.get(a).unwrap_or(Color::Black);
            let status = if dead.contains(a) {
                ChainStatus::Dead
            } else if seki.stones.contains(a) {
                ChainStatus::Seki
            } else {
                ChainStatus::Alive
            };
            ChainVerdict {
                anchor: a,
                color: c,
                stones: board.chain_len(a),
                status,
                confidence: 1.0,
                source: Source::Marks,
            }
        })
        .collect();
    Estimate {
        chains,
        settled: Settled {
            dead,
            seki: seki.points,
        },
        seki,
        from_marks: true,
        contradictions,
    }
}
