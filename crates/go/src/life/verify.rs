//! Verification play for a disputed chain (Kang's "definition of baduk" rules 6–7, used by the
//! `korean` and `kang` presets) and the Japanese 1989 art. 7 confirmation.
//!
//! Rule 6: the disputed chain is *not alive* if its opponent, moving first and playing by rules
//! 1–5, captures it; it is *not dead* if its owner, moving first, can keep it from being captured.
//! Rule 7: after each verification the board and the capture counts are restored. Both
//! verifications are a bounded AND-OR search over the moves near the chain (and passes): two
//! passes in a row end a verification with the chain on the board. The answer is alive, dead,
//! seki, or undecided with the reason (the search bound, whoever-moves-first, or a ko whose outcome
//! depends on ko threats elsewhere, as in the book's ch. 3). Under Japanese art. 7 the same search
//! runs with the article's ko rule (a ko taken in the confirmation may be retaken only after a
//! pass, which the search's pass models), so a ko does not leave it undecided; a case the article
//! does not settle is `disputed`.

use super::benson::benson;
use super::seki::find_seki;
use crate::board::Board;
use crate::point::{Color, Move, Point};
use crate::scoring::PointSet;
use std::collections::HashMap;
use std::fmt;

/// Which text governs the verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Kang rules 6–7 / Korean verification play: simple ko, threats elsewhere matter.
    Verify,
    /// Japanese 1989 art. 7 confirmation: a retaken ko needs a pass first.
    Japanese,
}

/// The verdict for a disputed chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The opponent moving first cannot capture it.
    Alive,
    /// Its owner moving first cannot save it.
    Dead,
    /// Alive only in seki.
    Seki,
    /// The verification cannot decide (reason given).
    Undecided(String),
    /// Japanese art. 7: the text does not settle this position (reason given).
    Disputed(String),
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Alive => f.write_str("alive"),
            Status::Dead => f.write_str("dead"),
            Status::Seki => f.write_str("seki"),
            Status::Undecided(r) => write!(f, "undecided: {r}"),
            Status::Disputed(r) => write!(f, "disputed: {r}"),
        }
    }
}

/// The outcome of one verification (one side moving first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The chain was captured.
    Captured,
    /// The chain survived (two passes, or it became unconditionally alive).
    Survived,
    /// The search bound was reached.
    Bound,
}

/// One verification: who moved first, the outcome and the line found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Who moved first.
    pub first: Color,
    /// The outcome with best play inside the bound.
    pub outcome: Outcome,
    /// The principal line (colour, move).
    pub sequence: Vec<(Color, Move)>,
}

impl Line {
    /// The line as text: `B C3 W pass …`.
    pub fn text(&self) -> String {
        self.sequence
            .iter()
            .map(|(c, m)| format!("{}{}", c.letter(), m))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The full verification of one chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verification {
    /// The verdict.
    pub status: Status,
    /// Opponent first (rule 6, first sentence).
    pub opponent_first: Line,
    /// Owner first (rule 6, second sentence).
    pub owner_first: Line,
    /// Search nodes visited.
    pub nodes: u64,
}

/// Search limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// Maximum plies per verification.
    pub depth: u32,
    /// Maximum search nodes per verification.
    pub nodes: u64,
}

impl Default for Bound {
    fn default() -> Bound {
        Bound {
            depth: 16,
            nodes: 400_000,
        }
    }
}

struct Search {
    target: Point,
    owner: Color,
    moves: Vec<Point>,
    bound: Bound,
    nodes: u64,
    ignore_ko: bool,
    cache: HashMap<(u64, Color, u8, u16), Found>,
}

type Ko = Option<(Point, Color)>;

/// A search result: the outcome and the line that leads to it.
type Found = (Outcome, Vec<(Color, Move)>);

impl Search {
    fn captured(&self, b: &Board) -> bool {
        b.get(self.target) != Some(self.owner)
    }

    fn legal(&self, b: &Board, p: Point, c: Color, ko: Ko) -> bool {
        let Ok(pr) = b.probe(p, c) else {
            return false;
        };
        if pr.suicide > 0 {
            return false;
        }
        !(!self.ignore_ko && ko == Some((p, c)) && pr.ko_capture)
    }

    /// Best outcome for the side to move and the line; `passes` counts consecutive passes.
    fn search(&mut self, b: &mut Board, to_move: Color, ko: Ko, passes: u8, depth: u32) -> Found {
        if self.captured(b) {
            return (Outcome::Captured, Vec::new());
        }
        if passes >= 2 {
            return (Outcome::Survived, Vec::new());
        }
        if depth == 0 || self.nodes >= self.bound.nodes {
            return (Outcome::Bound, Vec::new());
        }
        let key = (
            b.hash(),
            to_move,
            passes,
            ko.map_or(0, |(p, _)| p.index() as u16),
        );
        if let Some((o, line)) = self.cache.get(&key) {
            return (*o, line.clone());
        }
        self.nodes += 1;
        if b.liberty_count(self.target) >= 2 && benson(b).alive.contains(self.target) {
            self.cache.insert(key, (Outcome::Survived, Vec::new()));
            return (Outcome::Survived, Vec::new());
        }
        let attacker = to_move != self.owner;
        let (win, lose) = if attacker {
            (Outcome::Captured, Outcome::Survived)
        } else {
            (Outcome::Survived, Outcome::Captured)
        };
        let mut best = (lose, Vec::new());
        let mut cands: Vec<Point> = self
            .moves
            .iter()
            .copied()
            .filter(|&p| self.legal(b, p, to_move, ko))
            .collect();
        // Liberties of the target first.
        cands.sort_by_key(|&p| {
            !b.neighbours(p)
                .any(|q| b.chain_id(q) == b.chain_id(self.target))
        });
        let mut options: Vec<Option<Point>> = cands.into_iter().map(Some).collect();
        options.push(None);
        for opt in options {
            let (o, mut line) = match opt {
                Some(p) => {
                    let out = match b.play(p, to_move) {
                        Ok(o) => o,
                        Err(_) => continue,
                    };
                    let next_ko = if out.ko_capture {
                        b.last_captured().first().map(|&q| (q, to_move.opponent()))
                    } else {
                        None
                    };
                    let r = self.search(b, to_move.opponent(), next_ko, 0, depth - 1);
                    b.undo();
                    r
                }
                None => self.search(b, to_move.opponent(), None, passes + 1, depth - 1),
            };
            if o == win {
                line.insert(0, (to_move, opt.map_or(Move::Pass, Move::Play)));
                self.cache.insert(key, (win, line.clone()));
                return (win, line);
            }
            if o == Outcome::Bound && best.0 == lose {
                line.insert(0, (to_move, opt.map_or(Move::Pass, Move::Play)));
                best = (Outcome::Bound, line);
            } else if o == lose && best.0 == lose && best.1.is_empty() {
                line.insert(0, (to_move, opt.map_or(Move::Pass, Move::Play)));
                best = (lose, line);
            }
        }
        if best.0 != Outcome::Bound {
            self.cache.insert(key, best.clone());
        }
        best
    }
}

/// The empty points the verification may play: the empty regions next to the chain (its eye
/// space and the spaces around it, up to 12 points each), the stones of the opponent chains
/// touching it (which may be captured) and the liberties of those with at most two.
fn local_moves(b: &Board, target: Point) -> Vec<Point> {
    let mut set = PointSet::new();
    let Some(owner) = b.get(target) else {
        return Vec::new();
    };
    let mut adjacent_opp = PointSet::new();
    for s in b.chain_stones(target) {
        for q in b.neighbours(s) {
            match b.get(q) {
                None => {
                    // The empty region through q, if small.
                    let mut region = vec![q];
                    let mut seen = PointSet::new();
                    seen.insert(q);
                    let mut i = 0;
                    while i < region.len() && region.len() <= 12 {
                        let p = region[i];
                        i += 1;
                        for r in b.neighbours(p) {
                            if b.get(r).is_none() && !seen.contains(r) {
                                seen.insert(r);
                                region.push(r);
                            }
                        }
                    }
                    if region.len() <= 12 {
                        for p in region {
                            set.insert(p);
                        }
                    } else {
                        set.insert(q);
                    }
                }
                Some(c) if c != owner => {
                    for t in b.chain_stones(q) {
                        adjacent_opp.insert(t);
                    }
                }
                Some(_) => {}
            }
        }
    }
    // Opponent chains next to the chain matter when they can be captured: their stones (which
    // may become empty) and, for those short of liberties, their liberties.
    for t in adjacent_opp.iter() {
        set.insert(t);
        if b.liberty_count(t) <= 2 {
            for l in b.liberties(t) {
                set.insert(l);
            }
        }
    }
    set.iter().collect()
}

fn run(board: &Board, target: Point, first: Color, bound: Bound, ignore_ko: bool) -> (Line, u64) {
    let owner = board.get(target).unwrap_or(Color::Black);
    let mut b = board.clone();
    b.clear_undo();
    let mut s = Search {
        target,
        owner,
        moves: local_moves(board, target),
        bound,
        nodes: 0,
        ignore_ko,
        cache: HashMap::new(),
    };
    let mut best = (Outcome::Bound, Vec::new());
    // Iterative deepening: the shortest decisive line, and early answers for easy cases.
    let mut depth = 2;
    while depth <= bound.depth {
        s.cache.retain(|_, (o, _)| *o != Outcome::Bound);
        best = s.search(&mut b, first, None, 0, depth);
        if best.0 != Outcome::Bound || s.nodes >= bound.nodes {
            break;
        }
        depth += 2;
    }
    let nodes = s.nodes;
    (
        Line {
            first,
            outcome: best.0,
            sequence: best.1,
        },
        nodes,
    )
}

/// Verifies the chain through `target` (rules 6–7): opponent first, then owner first, each from
/// the same position (the board passed in is never changed: rule 7's restore).
pub fn verify(board: &Board, target: Point, mode: Mode, bound: Bound) -> Verification {
    let Some(owner) = board.get(target) else {
        let empty = Line {
            first: Color::Black,
            outcome: Outcome::Bound,
            sequence: Vec::new(),
        };
        return Verification {
            status: Status::Undecided(format!("{target} is empty")),
            opponent_first: empty.clone(),
            owner_first: empty,
            nodes: 0,
        };
    };
    let (opp, n1) = run(board, target, owner.opponent(), bound, false);
    let (own, n2) = run(board, target, owner, bound, false);
    let mut nodes = n1 + n2;
    let undecided = |why: String| match mode {
        Mode::Verify => Status::Undecided(why),
        Mode::Japanese => Status::Disputed(format!(
            "the 1989 Japanese rules (art. 7) do not settle this position: {why}"
        )),
    };
    let status = match (opp.outcome, own.outcome) {
        (Outcome::Bound, _) | (_, Outcome::Bound) => undecided(format!(
            "search bound reached ({} plies, {} nodes)",
            bound.depth, nodes
        )),
        (Outcome::Captured, Outcome::Captured) => Status::Dead,
        (Outcome::Survived, Outcome::Survived) => {
            let seki = find_seki(board, &PointSet::new(), &benson(board));
            if seki.stones.contains(target) {
                Status::Seki
            } else {
                Status::Alive
            }
        }
        (Outcome::Captured, Outcome::Survived) => undecided(
            "unsettled: it is captured if the opponent moves first and saved if its owner does \
             (seed 001 calls such a game immature, 미숙)"
                .into(),
        ),
        (Outcome::Survived, Outcome::Captured) => {
            undecided("it survives only when the opponent moves first".into())
        }
    };
    // A ko changes the answer when the search without the ko ban disagrees.
    let status = if mode == Mode::Verify && matches!(status, Status::Alive | Status::Dead) {
        let (opp2, a) = run(board, target, owner.opponent(), bound, true);
        let (own2, b2) = run(board, target, owner, bound, true);
        nodes += a + b2;
        if opp2.outcome != opp.outcome || own2.outcome != own.outcome {
            Status::Undecided(
                "the verification turns on a ko: the answer depends on ko threats elsewhere \
                 (book ch. 3)"
                    .into(),
            )
        } else {
            status
        }
    } else {
        status
    };
    Verification {
        status,
        opponent_first: opp,
        owner_first: own,
        nodes,
    }
}
