//! The position: pieces, walls, whose turn, the phase; the exact legal-action generator, `apply`
//! with typed errors, regions, the end of the game and the score.

use crate::action::{Action, ActionList};
use crate::geom::{Cell, CellSet, Edge, EdgeSet, Open, Side, ALL};
use crate::variant::{Player, Stay, TieBreak, Variant};
use crate::zobrist::KEYS;
use std::fmt;

/// Fixed pieces of A: B2 and F6.
pub const FIXED_A: [Cell; 2] = [cell(1, 1), cell(5, 5)];
/// Fixed pieces of B: F2 and B6.
pub const FIXED_B: [Cell; 2] = [cell(5, 1), cell(1, 5)];
/// Pieces per player.
pub const PIECES_PER_PLAYER: usize = 4;
/// Free placements before the first turn (two per player).
pub const PLACEMENTS: u8 = 4;

const fn cell(col: u8, row: u8) -> Cell {
    match Cell::new(col, row) {
        Some(c) => c,
        None => panic!("fixed piece off the board"),
    }
}

/// Why a finished game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// No region holds pieces of both players.
    Separated,
    /// Two passes in a row; mixed regions score for nobody.
    TwoPasses,
}

/// Where the game stands.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    /// Free pieces are still being placed.
    Placement,
    /// Players take turns (move and wall, or pass).
    Turns,
    /// The game is over.
    Over(EndReason),
}

/// What blocks one path of a move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Block {
    /// A wall on this edge is crossed.
    Wall(Edge),
    /// A piece stands on this cell.
    Piece(Cell),
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Block::Wall(e) => write!(f, "the wall {e}"),
            Block::Piece(c) => write!(f, "the piece on {c}"),
        }
    }
}

/// The rule an illegal action breaks.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Rule {
    /// The game is over; no action is legal.
    GameOver,
    /// A turn or pass during the placement phase.
    PlacementPhase,
    /// A placement after the placement phase.
    NotPlacementPhase,
    /// A placement on a cell that holds a piece.
    CellTaken(Cell),
    /// The chosen cell holds no piece of the player to move.
    NotYourPiece(Cell, Player),
    /// The destination is more than two steps away.
    TooFar(Cell, Cell),
    /// The destination holds a piece.
    DestinationTaken(Cell),
    /// The only path (straight or one step) is blocked.
    PathBlocked(Block),
    /// Both corner paths are blocked.
    CornerBlocked(Block, Block),
    /// The variant lets a piece stay only when it cannot step, and this one can.
    StayNotAllowed(Cell),
    /// The wall is not one of the edges of the destination.
    WallNotAtDestination(Edge, Cell),
    /// The edge already holds a wall.
    WallExists(Edge),
    /// A pass with a piece that can still step.
    PassWithStep(Cell),
    /// A pass with a piece that can still wall one of its edges.
    PassWithFreeEdge(Cell, Edge),
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rule::GameOver => write!(f, "the game is over"),
            Rule::PlacementPhase => write!(f, "the placement phase is not over: place a piece"),
            Rule::NotPlacementPhase => write!(f, "the placement phase is over"),
            Rule::CellTaken(c) => write!(f, "the cell {c} is taken"),
            Rule::NotYourPiece(c, p) => write!(f, "{c} holds no piece of {p}"),
            Rule::TooFar(a, b) => write!(f, "{b} is more than two steps from {a}"),
            Rule::DestinationTaken(c) => write!(f, "the destination {c} is taken"),
            Rule::PathBlocked(Block::Wall(e)) => write!(f, "path crosses the wall {e}"),
            Rule::PathBlocked(Block::Piece(c)) => {
                write!(f, "path runs into the piece on {c}")
            }
            Rule::CornerBlocked(x, y) => write!(f, "both corner paths are blocked: {x}; {y}"),
            Rule::StayNotAllowed(c) => write!(
                f,
                "the piece on {c} can step, and this variant lets a piece stay only when it cannot"
            ),
            Rule::WallNotAtDestination(e, c) => write!(f, "the wall {e} is not an edge of {c}"),
            Rule::WallExists(e) => write!(f, "the wall {e} is already there"),
            Rule::PassWithStep(c) => {
                write!(f, "the piece on {c} can still step, so it cannot pass")
            }
            Rule::PassWithFreeEdge(c, e) => {
                write!(f, "the piece on {c} can still wall {e}, so it cannot pass")
            }
        }
    }
}

/// An illegal action with its context: `turn 7 A C3-C5/N: path crosses the wall C3/S`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ActionError {
    /// Whether the game was in the placement phase.
    pub in_placement: bool,
    /// The 1-based number of the placement or turn.
    pub number: u16,
    /// The player to move.
    pub player: Player,
    /// The rejected action.
    pub action: Action,
    /// The rule it breaks.
    pub rule: Rule,
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.in_placement { "place" } else { "turn" };
        write!(
            f,
            "{kind} {} {} {}: {}",
            self.number, self.player, self.action, self.rule
        )
    }
}

impl std::error::Error for ActionError {}

/// A set position that cannot exist.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SetupError {
    /// A player has no pieces or more than four.
    PieceCount(Player, usize),
    /// A cell holds pieces of both players.
    Overlap(Cell),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::PieceCount(p, n) => {
                write!(f, "{p} has {n} pieces; a position needs 1 to 4")
            }
            SetupError::Overlap(c) => write!(f, "{c} holds pieces of both players"),
        }
    }
}

impl std::error::Error for SetupError {}

/// Kind of a region by the pieces in it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RegionKind {
    /// Only pieces of A.
    APure,
    /// Only pieces of B.
    BPure,
    /// Pieces of both players: still contested.
    Mixed,
    /// No pieces: scores for nobody.
    Neutral,
}

impl RegionKind {
    /// The pure kind of `p`.
    pub const fn pure(p: Player) -> RegionKind {
        match p {
            Player::A => RegionKind::APure,
            Player::B => RegionKind::BPure,
        }
    }
}

/// A region: a maximal set of cells connected through edges without walls.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Region {
    /// Its cells.
    pub cells: CellSet,
    /// Its kind.
    pub kind: RegionKind,
}

/// All regions of a position, in order of their lowest cell.
#[derive(Clone, Copy, Debug)]
pub struct Regions {
    len: usize,
    items: [Region; 49],
}

impl Regions {
    /// The regions as a slice.
    pub fn as_slice(&self) -> &[Region] {
        &self.items[..self.len]
    }

    /// The region holding `c`.
    pub fn of(&self, c: Cell) -> Region {
        *self
            .as_slice()
            .iter()
            .find(|r| r.cells.contains(c))
            .unwrap_or(&self.items[0])
    }
}

impl std::ops::Deref for Regions {
    type Target = [Region];
    fn deref(&self) -> &[Region] {
        self.as_slice()
    }
}

/// The score of a position: cells of each player's pure regions, neutral and mixed cells.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Score {
    /// Cells in A-pure regions, pieces' cells included.
    pub a: u8,
    /// Cells in B-pure regions, pieces' cells included.
    pub b: u8,
    /// Cells in regions without pieces.
    pub neutral: u8,
    /// Cells in mixed regions (nonzero only while playing or after two passes).
    pub mixed: u8,
    /// Size of A's largest pure region (for the largest-region tie-break).
    pub largest_a: u8,
    /// Size of B's largest pure region.
    pub largest_b: u8,
}

impl Score {
    /// The score of `p`.
    pub const fn of(&self, p: Player) -> u8 {
        match p {
            Player::A => self.a,
            Player::B => self.b,
        }
    }

    /// Who wins with this score under `tiebreak`.
    pub fn outcome(&self, tiebreak: TieBreak) -> Outcome {
        use std::cmp::Ordering::*;
        let by_tiebreak = match tiebreak {
            TieBreak::None => Equal,
            TieBreak::LargestRegion => self.largest_a.cmp(&self.largest_b),
        };
        match self.a.cmp(&self.b).then(by_tiebreak) {
            Greater => Outcome::Win(Player::A),
            Less => Outcome::Win(Player::B),
            Equal => Outcome::Draw,
        }
    }
}

impl fmt::Display for Score {
    /// `A <n> B <n> neutral <n>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "A {} B {} neutral {}", self.a, self.b, self.neutral)
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// This player wins.
    Win(Player),
    /// Equal scores (after the tie-break, if any).
    Draw,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win(p) => write!(f, "{p} wins"),
            Outcome::Draw => write!(f, "draw"),
        }
    }
}

/// Masks of cells whose N/E/S/W edge is an inner edge without a wall.
#[derive(Clone, Copy)]
struct Free {
    n: u64,
    e: u64,
    s: u64,
    w: u64,
}

impl Free {
    #[inline]
    fn of(o: Open) -> Free {
        Free {
            n: o.free_n(),
            e: o.e,
            s: o.s,
            w: o.free_w(),
        }
    }

    /// Pushes one turn per free edge of cell index `t`; returns how many.
    #[inline]
    fn push(self, from: Cell, t: u32, out: &mut ActionList) {
        let to = Cell::at(t);
        if self.n >> t & 1 != 0 {
            out.push(Action::Turn {
                from,
                to,
                wall: Edge::south_of(t - 7),
            });
        }
        if self.e >> t & 1 != 0 {
            out.push(Action::Turn {
                from,
                to,
                wall: Edge::east_of(t),
            });
        }
        if self.s >> t & 1 != 0 {
            out.push(Action::Turn {
                from,
                to,
                wall: Edge::south_of(t),
            });
        }
        if self.w >> t & 1 != 0 {
            out.push(Action::Turn {
                from,
                to,
                wall: Edge::east_of(t - 1),
            });
        }
    }

    /// Number of free edges of cell index `t`.
    #[inline]
    fn count(self, t: u32) -> u32 {
        (self.n >> t & 1) as u32
            + (self.e >> t & 1) as u32
            + (self.s >> t & 1) as u32
            + (self.w >> t & 1) as u32
    }
}

/// A Wall Go position: cheap to copy (48 bytes), so search copies it and applies.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pieces: [u64; 2],
    walls: EdgeSet,
    hash: u64,
    turns: u16,
    placed: u8,
    passes: u8,
    to_move: Player,
    end: Option<EndReason>,
    variant: Variant,
}

impl Position {
    /// The start: fixed pieces on B2, F6 (A) and F2, B6 (B), no walls, A to place first.
    pub fn new(variant: Variant) -> Position {
        let mut p = Position {
            pieces: [
                FIXED_A[0].bit() | FIXED_A[1].bit(),
                FIXED_B[0].bit() | FIXED_B[1].bit(),
            ],
            walls: EdgeSet::EMPTY,
            hash: 0,
            turns: 0,
            placed: 0,
            passes: 0,
            to_move: variant.placement.placer(0),
            end: None,
            variant,
        };
        p.hash = p.full_hash();
        p
    }

    /// A set position in the turn phase (for puzzles, tests and analysis): each player has 1 to
    /// 4 pieces. It is over at once if no region is mixed.
    pub fn setup(
        variant: Variant,
        a: CellSet,
        b: CellSet,
        walls: EdgeSet,
        to_move: Player,
    ) -> Result<Position, SetupError> {
        for (p, s) in [(Player::A, a), (Player::B, b)] {
            if s.is_empty() || s.len() > PIECES_PER_PLAYER {
                return Err(SetupError::PieceCount(p, s.len()));
            }
        }
        if let Some(c) = a.intersection(b).first() {
            return Err(SetupError::Overlap(c));
        }
        let mut p = Position {
            pieces: [a.bits(), b.bits()],
            walls,
            hash: 0,
            turns: 0,
            placed: PLACEMENTS,
            passes: 0,
            to_move,
            end: None,
            variant,
        };
        if !p.has_mixed_region() {
            p.end = Some(EndReason::Separated);
        }
        p.hash = p.full_hash();
        Ok(p)
    }

    /// The variant being played.
    #[inline]
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The walls placed so far.
    #[inline]
    pub fn walls(&self) -> EdgeSet {
        self.walls
    }

    /// The cells of `p`'s pieces.
    #[inline]
    pub fn pieces(&self, p: Player) -> CellSet {
        CellSet::from_bits(self.pieces[p.index()])
    }

    /// All cells holding a piece.
    #[inline]
    pub fn occupied(&self) -> CellSet {
        CellSet::from_bits(self.pieces[0] | self.pieces[1])
    }

    /// Whose piece stands on `c`, if any.
    pub fn piece_at(&self, c: Cell) -> Option<Player> {
        if self.pieces[0] & c.bit() != 0 {
            Some(Player::A)
        } else if self.pieces[1] & c.bit() != 0 {
            Some(Player::B)
        } else {
            None
        }
    }

    /// The player to act (place, turn or pass); after the end, the one who would be next.
    #[inline]
    pub fn to_move(&self) -> Player {
        self.to_move
    }

    /// Placement, turns, or over.
    #[inline]
    pub fn phase(&self) -> Phase {
        match self.end {
            Some(r) => Phase::Over(r),
            None if self.placed < PLACEMENTS => Phase::Placement,
            None => Phase::Turns,
        }
    }

    /// Whether the game is over.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Turns played so far (passes included, placements not).
    #[inline]
    pub fn turns_played(&self) -> u16 {
        self.turns
    }

    /// Free placements made so far (0 to 4).
    #[inline]
    pub fn placements_made(&self) -> u8 {
        self.placed
    }

    /// Passes in a row just before now.
    #[inline]
    pub fn passes_in_row(&self) -> u8 {
        self.passes
    }

    /// The Zobrist hash of pieces, walls, side to move, placements made and passes in a row.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash recomputed from scratch (equal to [`Position::hash`]).
    pub fn full_hash(&self) -> u64 {
        let mut h = 0;
        for p in 0..2 {
            for c in CellSet::from_bits(self.pieces[p]) {
                h ^= KEYS.piece[p][c.index()];
            }
        }
        for e in self.walls.iter() {
            h ^= KEYS.wall[e.code()];
        }
        if self.to_move == Player::B {
            h ^= KEYS.b_to_move;
        }
        h ^ KEYS.placed[self.placed as usize] ^ KEYS.passes[self.passes.min(2) as usize]
    }

    #[inline]
    fn set_to_move(&mut self, p: Player) {
        if p != self.to_move {
            self.hash ^= KEYS.b_to_move;
            self.to_move = p;
        }
    }

    #[inline]
    fn set_passes(&mut self, n: u8) {
        self.hash ^= KEYS.passes[self.passes as usize] ^ KEYS.passes[n as usize];
        self.passes = n;
    }

    /// Whether some region holds pieces of both players (the game goes on while one does).
    #[inline]
    pub fn has_mixed_region(&self) -> bool {
        let o = Open::of(self.walls);
        let b = self.pieces[1];
        let mut r = self.pieces[0];
        loop {
            if r & b != 0 {
                return true;
            }
            let n = r | o.neighbours(r);
            if n == r {
                return false;
            }
            r = n;
        }
    }

    /// The union of the regions containing `cells` (walls only; pieces do not split regions).
    pub fn region_of(&self, cells: CellSet) -> CellSet {
        CellSet::from_bits(Open::of(self.walls).fill(cells.bits()))
    }

    /// The cells one open edge away from `cells` (pieces ignored).
    pub fn open_neighbours(&self, cells: CellSet) -> CellSet {
        CellSet::from_bits(Open::of(self.walls).neighbours(cells.bits()) & ALL)
    }

    /// Every region with its kind.
    pub fn regions(&self) -> Regions {
        let o = Open::of(self.walls);
        let mut out = Regions {
            len: 0,
            items: [Region {
                cells: CellSet::EMPTY,
                kind: RegionKind::Neutral,
            }; 49],
        };
        let mut rest = ALL;
        while rest != 0 {
            let r = o.fill(rest & rest.wrapping_neg());
            rest &= !r;
            let kind = match (r & self.pieces[0] != 0, r & self.pieces[1] != 0) {
                (true, true) => RegionKind::Mixed,
                (true, false) => RegionKind::APure,
                (false, true) => RegionKind::BPure,
                (false, false) => RegionKind::Neutral,
            };
            out.items[out.len] = Region {
                cells: CellSet::from_bits(r),
                kind,
            };
            out.len += 1;
        }
        out
    }

    /// The score as the regions stand now.
    pub fn score(&self) -> Score {
        let mut s = Score::default();
        for r in self.regions().iter() {
            let n = r.cells.len() as u8;
            match r.kind {
                RegionKind::APure => {
                    s.a += n;
                    s.largest_a = s.largest_a.max(n);
                }
                RegionKind::BPure => {
                    s.b += n;
                    s.largest_b = s.largest_b.max(n);
                }
                RegionKind::Mixed => s.mixed += n,
                RegionKind::Neutral => s.neutral += n,
            }
        }
        s
    }

    /// The result once the game is over.
    pub fn result(&self) -> Option<Outcome> {
        self.end
            .map(|_| self.score().outcome(self.variant.tiebreak))
    }

    /// Fills `out` with every legal action of the player to move (empty once over). Allocates
    /// nothing; order: placements by cell, else pieces by cell, destinations by cell, walls N E S W.
    pub fn legal_actions(&self, out: &mut ActionList) {
        out.clear();
        if self.end.is_some() {
            return;
        }
        let occ = self.pieces[0] | self.pieces[1];
        if self.placed < PLACEMENTS {
            let mut empty = ALL & !occ;
            while empty != 0 {
                out.push(Action::Place(Cell::at(empty.trailing_zeros())));
                empty &= empty - 1;
            }
            return;
        }
        let o = Open::of(self.walls);
        let free = Free::of(o);
        let mut mine = self.pieces[self.to_move.index()];
        while mine != 0 {
            let p = mine.trailing_zeros();
            mine &= mine - 1;
            self.gen_piece(p, occ, o, free, out);
        }
    }

    /// Fills `out` with the legal actions of the piece on `piece` alone (empty if it is not a
    /// piece of the player to move, or not in the turn phase).
    pub fn piece_actions(&self, piece: Cell, out: &mut ActionList) {
        out.clear();
        if self.end.is_some()
            || self.placed < PLACEMENTS
            || self.pieces[self.to_move.index()] & piece.bit() == 0
        {
            return;
        }
        let o = Open::of(self.walls);
        self.gen_piece(
            piece.index() as u32,
            self.pieces[0] | self.pieces[1],
            o,
            Free::of(o),
            out,
        );
    }

    #[inline]
    fn gen_piece(&self, p: u32, occ: u64, o: Open, free: Free, out: &mut ActionList) {
        let pb = 1u64 << p;
        let from = Cell::at(p);
        let empty = ALL & !occ;
        let n1 = o.neighbours(pb) & empty;
        if n1 == 0 {
            if free.count(p) == 0 {
                out.push(Action::Pass(from));
            } else {
                free.push(from, p, out);
            }
            return;
        }
        let mut dest = n1 | (o.neighbours(n1) & (empty | pb));
        if self.variant.stay == Stay::StuckOnly {
            dest &= !pb;
        }
        while dest != 0 {
            let t = dest.trailing_zeros();
            dest &= dest - 1;
            free.push(from, t, out);
        }
    }

    /// The number of legal actions, without listing them.
    pub fn count_legal_actions(&self) -> usize {
        if self.end.is_some() {
            return 0;
        }
        let occ = self.pieces[0] | self.pieces[1];
        if self.placed < PLACEMENTS {
            return (ALL & !occ).count_ones() as usize;
        }
        let o = Open::of(self.walls);
        let free = Free::of(o);
        let empty = ALL & !occ;
        let mut n = 0;
        let mut mine = self.pieces[self.to_move.index()];
        while mine != 0 {
            let p = mine.trailing_zeros();
            mine &= mine - 1;
            let pb = 1u64 << p;
            let n1 = o.neighbours(pb) & empty;
            if n1 == 0 {
                n += free.count(p).max(1) as usize;
                continue;
            }
            let mut dest = n1 | (o.neighbours(n1) & (empty | pb));
            if self.variant.stay == Stay::StuckOnly {
                dest &= !pb;
            }
            n += ((dest & free.n).count_ones()
                + (dest & free.e).count_ones()
                + (dest & free.s).count_ones()
                + (dest & free.w).count_ones()) as usize;
        }
        n
    }

    /// The cells `p`'s pieces can reach over any number of turns if nothing else moved: a fill
    /// through open edges over empty cells and `p`'s own pieces, never entering the opponent's.
    pub fn reachable(&self, p: Player) -> CellSet {
        let own = self.pieces[p.index()];
        let passable = ALL & !self.pieces[p.other().index()];
        let o = Open::of(self.walls);
        let mut r = own;
        loop {
            let n = r | (o.neighbours(r) & passable);
            if n == r {
                return CellSet::from_bits(r);
            }
            r = n;
        }
    }

    /// Where the piece on `c` can end a turn (0, 1 or 2 steps under the variant's stay rule);
    /// empty if `c` holds no piece.
    pub fn destinations(&self, c: Cell) -> CellSet {
        let pb = c.bit();
        let occ = self.pieces[0] | self.pieces[1];
        if occ & pb == 0 {
            return CellSet::EMPTY;
        }
        let o = Open::of(self.walls);
        let empty = ALL & !occ;
        let n1 = o.neighbours(pb) & empty;
        if n1 == 0 {
            return CellSet::from_bits(pb);
        }
        let mut dest = n1 | (o.neighbours(n1) & (empty | pb));
        if self.variant.stay == Stay::StuckOnly {
            dest &= !pb;
        }
        CellSet::from_bits(dest)
    }

    /// Whether the piece on `c` can make at least one step.
    pub fn can_step(&self, c: Cell) -> bool {
        let empty = ALL & !(self.pieces[0] | self.pieces[1]);
        Open::of(self.walls).neighbours(c.bit()) & empty != 0
    }

    /// The first free inner edge of `c` (order N, E, S, W), if any.
    pub fn free_edge(&self, c: Cell) -> Option<Edge> {
        Side::ALL
            .into_iter()
            .filter_map(|s| Edge::of(c, s))
            .find(|&e| !self.walls.contains(e))
    }

    /// Checks `a` against every rule; `Err` names the rule it breaks.
    pub fn check(&self, a: Action) -> Result<(), Rule> {
        if self.end.is_some() {
            return Err(Rule::GameOver);
        }
        let occ = self.pieces[0] | self.pieces[1];
        let me = self.to_move;
        match a {
            Action::Place(c) => {
                if self.placed >= PLACEMENTS {
                    return Err(Rule::NotPlacementPhase);
                }
                if occ & c.bit() != 0 {
                    return Err(Rule::CellTaken(c));
                }
                Ok(())
            }
            Action::Turn { from, to, wall } => {
                if self.placed < PLACEMENTS {
                    return Err(Rule::PlacementPhase);
                }
                if self.pieces[me.index()] & from.bit() == 0 {
                    return Err(Rule::NotYourPiece(from, me));
                }
                if to == from {
                    if self.variant.stay == Stay::StuckOnly && self.can_step(from) {
                        return Err(Rule::StayNotAllowed(from));
                    }
                } else {
                    if from.distance(to) > 2 {
                        return Err(Rule::TooFar(from, to));
                    }
                    if occ & to.bit() != 0 {
                        return Err(Rule::DestinationTaken(to));
                    }
                    self.check_path(from, to, occ)?;
                }
                if wall.side_from(to).is_none() {
                    return Err(Rule::WallNotAtDestination(wall, to));
                }
                if self.walls.contains(wall) {
                    return Err(Rule::WallExists(wall));
                }
                Ok(())
            }
            Action::Pass(c) => {
                if self.placed < PLACEMENTS {
                    return Err(Rule::PlacementPhase);
                }
                if self.pieces[me.index()] & c.bit() == 0 {
                    return Err(Rule::NotYourPiece(c, me));
                }
                if self.can_step(c) {
                    return Err(Rule::PassWithStep(c));
                }
                if let Some(e) = self.free_edge(c) {
                    return Err(Rule::PassWithFreeEdge(c, e));
                }
                Ok(())
            }
        }
    }

    /// What blocks the step `a`→`b` (adjacent cells), if anything.
    fn step_block(&self, a: Cell, b: Cell, occ: u64) -> Option<Block> {
        let e = Edge::between(a, b)?;
        if self.walls.contains(e) {
            Some(Block::Wall(e))
        } else if occ & b.bit() != 0 {
            Some(Block::Piece(b))
        } else {
            None
        }
    }

    /// Checks that some 1- or 2-step path leads from `from` to the empty `to` (distance 1–2).
    fn check_path(&self, from: Cell, to: Cell, occ: u64) -> Result<(), Rule> {
        if from.distance(to) == 1 {
            return match self.step_block(from, to, occ) {
                Some(b) => Err(Rule::PathBlocked(b)),
                None => Ok(()),
            };
        }
        let via = |m: Cell| {
            self.step_block(from, m, occ)
                .or_else(|| self.step_block(m, to, occ))
        };
        let mid = |col: u8, row: u8| Cell::new(col, row).unwrap_or(from);
        if from.col() == to.col() || from.row() == to.row() {
            let m = mid((from.col() + to.col()) / 2, (from.row() + to.row()) / 2);
            return match via(m) {
                Some(b) => Err(Rule::PathBlocked(b)),
                None => Ok(()),
            };
        }
        // A corner: across first (via the cell in `to`'s column), or down first.
        let m1 = mid(to.col(), from.row());
        let m2 = mid(from.col(), to.row());
        match (via(m1), via(m2)) {
            (Some(x), Some(y)) => Err(Rule::CornerBlocked(x, y)),
            _ => Ok(()),
        }
    }

    /// Applies `a` if legal; otherwise the error names the rule and leaves `self` unchanged.
    pub fn apply(&mut self, a: Action) -> Result<(), ActionError> {
        match self.check(a) {
            Ok(()) => {
                self.apply_unchecked(a);
                Ok(())
            }
            Err(rule) => Err(ActionError {
                in_placement: self.placed < PLACEMENTS,
                number: if self.placed < PLACEMENTS {
                    self.placed as u16 + 1
                } else {
                    self.turns + 1
                },
                player: self.to_move,
                action: a,
                rule,
            }),
        }
    }

    /// Applies an action the generator produced (or [`Position::check`] accepted), without
    /// checking it. An illegal action gives a meaningless position, never undefined behaviour.
    #[inline]
    pub fn apply_unchecked(&mut self, a: Action) {
        let me = self.to_move.index();
        match a {
            Action::Place(c) => {
                self.pieces[me] |= c.bit();
                self.hash ^= KEYS.piece[me][c.index()];
                let n = (self.placed + 1).min(PLACEMENTS);
                self.hash ^= KEYS.placed[self.placed as usize] ^ KEYS.placed[n as usize];
                self.placed = n;
                let next = self.variant.placement.placer(n.min(PLACEMENTS - 1));
                self.set_to_move(next);
            }
            Action::Turn { from, to, wall } => {
                self.pieces[me] = (self.pieces[me] & !from.bit()) | to.bit();
                self.hash ^= KEYS.piece[me][from.index()] ^ KEYS.piece[me][to.index()];
                if !self.walls.contains(wall) {
                    self.walls.insert(wall);
                    self.hash ^= KEYS.wall[wall.code()];
                }
                self.set_passes(0);
                self.turns = self.turns.saturating_add(1);
                if !self.has_mixed_region() {
                    self.end = Some(EndReason::Separated);
                }
                self.set_to_move(self.to_move.other());
            }
            Action::Pass(_) => {
                self.set_passes((self.passes + 1).min(2));
                self.turns = self.turns.saturating_add(1);
                if self.passes >= 2 {
                    self.end = Some(EndReason::TwoPasses);
                }
                self.set_to_move(self.to_move.other());
            }
        }
    }

    /// A text diagram: pieces `A`/`B`, walls `|` and `---`; with `shade`, empty cells show their
    /// region (`a`, `b` pure, `-` neutral, `?` mixed).
    pub fn diagram(&self, shade: bool) -> String {
        let regions = self.regions();
        let mut s = String::from("    A   B   C   D   E   F   G\n");
        let wall_h = |col: u8, row: i32| -> bool {
            // The edge above cell (col, row): boundary or a wall.
            if row <= 0 || row >= 7 {
                return true;
            }
            let c = Cell::new(col, row as u8).unwrap_or(Cell::at(0));
            Edge::of(c, Side::N).is_some_and(|e| self.walls.contains(e))
        };
        let wall_v = |col: i32, row: u8| -> bool {
            // The edge left of cell (col, row).
            if col <= 0 || col >= 7 {
                return true;
            }
            let c = Cell::new(col as u8, row).unwrap_or(Cell::at(0));
            Edge::of(c, Side::W).is_some_and(|e| self.walls.contains(e))
        };
        for row in 0..=7i32 {
            // The line above row `row` (or below the last).
            s.push_str("  ");
            for col in 0..=7i32 {
                let up = row > 0 && wall_v(col, (row - 1) as u8);
                let down = row < 7 && wall_v(col, row as u8);
                let left = col > 0 && wall_h((col - 1) as u8, row);
                let right = col < 7 && wall_h(col as u8, row);
                s.push(if up || down || left || right {
                    '+'
                } else {
                    ' '
                });
                if col < 7 {
                    s.push_str(if right { "---" } else { "   " });
                }
            }
            s.push('\n');
            if row == 7 {
                break;
            }
            s.push_str(&format!("{} ", row + 1));
            for col in 0..=7i32 {
                s.push(if wall_v(col, row as u8) { '|' } else { ' ' });
                if col == 7 {
                    break;
                }
                let c = Cell::new(col as u8, row as u8).unwrap_or(Cell::at(0));
                let ch = match self.piece_at(c) {
                    Some(p) => p.letter(),
                    None if shade => match regions.of(c).kind {
                        RegionKind::APure => 'a',
                        RegionKind::BPure => 'b',
                        RegionKind::Neutral => '-',
                        RegionKind::Mixed => '?',
                    },
                    None => '.',
                };
                s.push(' ');
                s.push(ch);
                s.push(' ');
            }
            s.push('\n');
        }
        s
    }
}

impl fmt::Display for Position {
    /// The diagram without shading, then whose turn it is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.diagram(false))?;
        match self.phase() {
            Phase::Placement => write!(f, "{} to place", self.to_move),
            Phase::Turns => write!(f, "{} to move", self.to_move),
            Phase::Over(_) => write!(f, "game over: {}", self.score()),
        }
    }
}

/// Counts the action sequences of length `depth` from `pos` (a finished game has none).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_legal_actions() as u64;
    }
    let mut list = ActionList::new();
    pos.legal_actions(&mut list);
    let mut n = 0;
    for &a in list.iter() {
        let mut p = *pos;
        p.apply_unchecked(a);
        n += perft(&p, depth - 1);
    }
    n
}

/// Plays uniformly random legal actions from `pos` to the end, reusing `list`; returns the
/// number of actions generated on the way (the sum of the legal-list lengths).
pub fn play_random(pos: &mut Position, rng: &mut baduk_rng::Rng, list: &mut ActionList) -> u64 {
    let mut generated = 0;
    while !pos.is_over() {
        pos.legal_actions(list);
        generated += list.len() as u64;
        if list.is_empty() {
            break;
        }
        let a = list[rng.below(list.len())];
        pos.apply_unchecked(a);
    }
    generated
}

#[cfg(test)]
#[path = "position_tests.rs"]
mod tests;
