//! A Go position: stones, chains with exact liberty counts, captures, an incremental Zobrist
//! hash, and exact undo.
//!
//! The board knows the physics of a board play (captures first, then the mover's own chains
//! without liberties are removed) but no rule set: whether suicide or a repetition is allowed is
//! decided by [`crate::Game`] from its [`crate::Rules`].
//!
//! Layout: a padded 1-D array shared by every size (see [`Point`]); each chain is a ring of
//! stones linked through `next`, named by one of its stones (`chain[p]`), with its stone and
//! exact liberty counts stored under that name. Nothing allocates per move except the undo log,
//! which grows amortised (and [`Board::play_unrecorded`] skips it).

use crate::point::{Color, Point, Size, CELLS, MAX_SIDE, STRIDE};
use std::fmt;

// Cell values; they are also what [`Board::code`] returns.
const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const BORDER: u8 = 3;
const NO_POINT: u16 = 0;
const MAX_AREA: usize = MAX_SIDE as usize * MAX_SIDE as usize;
/// Neighbour offsets in a fixed order (the exact liberty count relies on the order being fixed).
const DIRS: [isize; 4] = [-(STRIDE as isize), -1, 1, STRIDE as isize];
const DIAGS: [isize; 4] = [
    -(STRIDE as isize) - 1,
    -(STRIDE as isize) + 1,
    STRIDE as isize - 1,
    STRIDE as isize + 1,
];

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn zobrist_table() -> [[u64; CELLS]; 2] {
    let mut t = [[0u64; CELLS]; 2];
    let mut state = 0x000B_AD0C_0DE5_EED5_u64;
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        // The last cell is never a point; leaving it out keeps every key as it was before the
        // layout grew by that cell.
        while i < CELLS - 1 {
            let (s, v) = splitmix(state);
            state = s;
            t[c][i] = v;
            i += 1;
        }
        c += 1;
    }
    t
}

/// Zobrist keys: one random 64-bit word per (colour, cell).
static ZOBRIST: [[u64; CELLS]; 2] = zobrist_table();

/// The key a situational-superko hash combines with the position hash when White is to move.
pub const WHITE_TO_MOVE_KEY: u64 = 0x5DEE_CE66_D1CE_F00D;

/// The key of a stone of cell value `c` (BLACK or WHITE) on cell `p`.
#[inline]
fn key(c: u8, p: usize) -> u64 {
    ZOBRIST[side(c)][p]
}

/// The cell value of a stone of `c`.
#[inline]
fn stone(c: Color) -> u8 {
    c as u8 + 1
}

/// The per-colour array index (0 Black, 1 White) of a stone's cell value.
#[inline]
fn side(v: u8) -> usize {
    (v - 1) as usize
}

/// Whether a cell value is a stone (black or white).
#[inline]
fn is_stone(v: u8) -> bool {
    v.wrapping_sub(BLACK) <= WHITE - BLACK
}

/// The cell value of the other colour's stone.
#[inline]
fn other(v: u8) -> u8 {
    v ^ (BLACK ^ WHITE)
}

#[inline]
fn nb(p: usize, d: isize) -> usize {
    (p as isize + d) as usize
}

/// Why a board play could not be made at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The point already holds a stone.
    Occupied,
    /// The point is not on this board.
    OffBoard,
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PlayError::Occupied => "point is occupied",
            PlayError::OffBoard => "point is off the board",
        })
    }
}

impl std::error::Error for PlayError {}

/// A board diagram that could not be read: the 1-based row and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiagramError {
    /// The row (1 = top; 0 = the diagram as a whole).
    pub line: usize,
    /// What was wrong.
    pub why: String,
}

impl fmt::Display for DiagramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "board diagram row {}: {}", self.line, self.why)
    }
}

impl std::error::Error for DiagramError {}

/// What a board play did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PlayOutcome {
    /// Opponent stones removed.
    pub captured: u32,
    /// The mover's own stones removed because their chain had no liberty (0 unless suicide).
    pub suicide: u32,
    /// Whether the play was a ko capture in the JK sense (art. 2.5): a lone stone without
    /// liberties that captured exactly one lone stone.
    pub ko_capture: bool,
}

/// What a board play *would* do, computed without playing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Opponent stones that would be captured.
    pub captured: u32,
    /// Own stones that would be removed as suicide (the played stone included), else 0.
    pub suicide: u32,
    /// Whether the play would be a ko capture (JK art. 2.5).
    pub ko_capture: bool,
    /// The position hash after the play.
    pub hash: u64,
}

/// Undo information for one recorded play: enough to take it back exactly (chain names,
/// rings and liberty counts as they were) without recomputing any chain.
#[derive(Clone, Copy, Debug)]
struct UndoRec {
    p: u16,
    color: u8,
    n_opp: u32,
    cap_start: u32,
    suicide: bool,
    prev_ko: u16,
    prev_hash: u64,
    prev_caps: [u32; 2],
    /// The played point's chain name, ring link, stone count and liberties before the play
    /// (stale entries of an empty point that a captured chain taken back may still need).
    prev_entry: [u16; 4],
    /// The mover's distinct chains next to the point before the play and their liberties.
    own_ids: [u16; 4],
    own_libs: [u16; 4],
    n_own: u8,
}

/// A Go position of any size from 2×2 to 25×25.
#[derive(Clone)]
pub struct Board {
    size: Size,
    cell: [u8; CELLS],
    chain: [u16; CELLS],
    next: [u16; CELLS],
    libs: [u16; CELLS],
    count: [u16; CELLS],
    empties: [u16; MAX_AREA],
    empty_pos: [u16; CELLS],
    n_empty: u16,
    stones: [u16; 2],
    captures: [u32; 2],
    hash: u64,
    ko: u16,
    log: Vec<UndoRec>,
    caps: Vec<Point>,
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

impl PartialEq for Board {
    /// Two boards are equal when they have the same size and the same stones.
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size && self.points().all(|p| self.get(p) == other.get(p))
    }
}

impl Eq for Board {}

impl Board {
    /// An empty board of `size`.
    pub fn new(size: Size) -> Board {
        let mut b = Board {
            size,
            cell: [BORDER; CELLS],
            chain: [0; CELLS],
            next: [0; CELLS],
            libs: [0; CELLS],
            count: [0; CELLS],
            empties: [0; MAX_AREA],
            empty_pos: [0; CELLS],
            n_empty: 0,
            stones: [0; 2],
            captures: [0; 2],
            hash: 0,
            ko: NO_POINT,
            log: Vec::new(),
            caps: Vec::new(),
        };
        for p in size.points() {
            b.cell[p.index()] = EMPTY;
            b.push_empty(p.index());
        }
        b
    }

    /// A board from a diagram, top row first: `X` (or `B`) black, `O` (or `W`) white, `.`, `+`
    /// or `-` empty; spaces are ignored. Every row must have the same width.
    pub fn from_rows(rows: &[&str]) -> Result<Board, DiagramError> {
        let rows: Vec<Vec<char>> = rows
            .iter()
            .map(|r| r.chars().filter(|c| !c.is_whitespace()).collect())
            .collect();
        let width = rows.first().map_or(0, Vec::len);
        let size = Size::new(width as u32, rows.len() as u32).map_err(|e| DiagramError {
            line: 0,
            why: e.to_string(),
        })?;
        let mut b = Board::new(size);
        for (r, line) in rows.iter().enumerate() {
            if line.len() != width {
                return Err(DiagramError {
                    line: r + 1,
                    why: format!("row has {} points, the first row {width}", line.len()),
                });
            }
            let y = size.rows() - 1 - r as u32;
            for (x, ch) in line.iter().enumerate() {
                let stone = match ch {
                    'X' | 'x' | 'B' | '#' => Some(Color::Black),
                    'O' | 'o' | 'W' => Some(Color::White),
                    '.' | '+' | '-' => None,
                    _ => {
                        return Err(DiagramError {
                            line: r + 1,
                            why: format!("unexpected `{ch}`; use X, O or ."),
                        })
                    }
                };
                if stone.is_some() {
                    // Cannot fail: the point is on the board.
                    let _ = b.set(Point::new(x as u32, y), stone);
                }
            }
        }
        Ok(b)
    }

    /// The board size.
    #[inline]
    pub fn size(&self) -> Size {
        self.size
    }

    /// Every point of the board, column by column from A1.
    pub fn points(&self) -> impl Iterator<Item = Point> {
        self.size.points()
    }

    /// The stone on `p`, or `None` when empty (or off this board).
    #[inline]
    pub fn get(&self, p: Point) -> Option<Color> {
        match self.cell[p.index()] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// Whether `p` is an empty point of this board.
    #[inline]
    pub fn is_empty(&self, p: Point) -> bool {
        self.cell[p.index()] == EMPTY
    }

    /// Whether `p` lies on this board.
    #[inline]
    pub fn contains(&self, p: Point) -> bool {
        self.size.contains(p)
    }

    /// The on-board orthogonal neighbours of `p` (2 to 4 of them).
    pub fn neighbours(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        DIRS.iter().filter_map(move |&d| {
            let q = nb(p.index(), d);
            (self.cell[q] != BORDER).then_some(Point(q as u16))
        })
    }

    /// The empty points, in no particular order.
    pub fn empty_points(&self) -> impl Iterator<Item = Point> + '_ {
        self.empties[..self.n_empty as usize]
            .iter()
            .map(|&i| Point(i))
    }

    /// Number of empty points.
    #[inline]
    pub fn empty_count(&self) -> usize {
        self.n_empty as usize
    }

    /// Number of stones of `c` on the board.
    #[inline]
    pub fn stone_count(&self, c: Color) -> usize {
        self.stones[c.index()] as usize
    }

    /// Stones of the opponent of `c` that `c` has captured by board plays (suicides included).
    #[inline]
    pub fn captures(&self, c: Color) -> u32 {
        self.captures[c.index()]
    }

    /// The position hash: the XOR of one Zobrist key per stone (independent of the side to move).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash of this position with `to_move` to play (for situational superko).
    #[inline]
    pub fn situational_hash(&self, to_move: Color) -> u64 {
        situational(self.hash, to_move)
    }

    /// The point where an immediate single-stone recapture is possible after the last play (the
    /// stone just captured by a ko capture), if any; simple ko forbids retaking it at once.
    #[inline]
    pub fn ko_point(&self) -> Option<Point> {
        (self.ko != NO_POINT).then_some(Point(self.ko))
    }

    /// A name for the chain through the stone on `p` (one of its stones), or `None` if empty.
    #[inline]
    pub fn chain_id(&self, p: Point) -> Option<Point> {
        self.get(p).map(|_| Point(self.chain[p.index()]))
    }

    /// Exact number of liberties of the chain through `p` (0 if `p` is empty).
    #[inline]
    pub fn liberty_count(&self, p: Point) -> usize {
        if self.get(p).is_none() {
            return 0;
        }
        self.libs[self.chain[p.index()] as usize] as usize
    }

    /// Number of stones of the chain through `p` (0 if `p` is empty).
    #[inline]
    pub fn chain_len(&self, p: Point) -> usize {
        if self.get(p).is_none() {
            return 0;
        }
        self.count[self.chain[p.index()] as usize] as usize
    }

    /// The stones of the chain through `p` (empty if `p` is empty), without allocating.
    pub fn chain_stones(&self, p: Point) -> ChainStones<'_> {
        ChainStones {
            board: self,
            start: p.0,
            cur: if self.get(p).is_some() { p.0 } else { NO_POINT },
        }
    }

    /// The liberties of the chain through `p`, sorted by index (empty if `p` is empty).
    pub fn liberties(&self, p: Point) -> Vec<Point> {
        let mut out = Vec::new();
        if self.get(p).is_some() {
            let id = self.chain[p.index()];
            let c = self.cell[p.index()];
            for s in self.chain_stones(p) {
                for d in DIRS {
                    let e = nb(s.index(), d);
                    if self.cell[e] == EMPTY && self.first_chain_neighbour(e, id, c) == s.0 {
                        out.push(Point(e as u16));
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// Whether `p` is a single-point eye of `c`: every neighbour is `c` (or the edge), and at most
    /// one diagonal (none on the edge) is an opponent stone.
    #[inline]
    pub fn is_eye(&self, p: Point, c: Color) -> bool {
        let i = p.index();
        if self.cell[i] != EMPTY {
            return false;
        }
        let own = stone(c);
        for d in DIRS {
            let v = self.cell[nb(i, d)];
            if v != own && v != BORDER {
                return false;
            }
        }
        let opp = other(own);
        let mut bad = 0;
        let mut edge = 0;
        for d in DIAGS {
            let v = self.cell[nb(i, d)];
            bad += (v == opp) as u32;
            edge += (v == BORDER) as u32;
        }
        bad + (edge > 0) as u32 <= 1
    }

    /// What playing `c` at `p` would do, without playing it; `Err` if occupied or off the board.
    pub fn probe(&self, p: Point, c: Color) -> Result<Probe, PlayError> {
        let i = p.index();
        match self.cell[i] {
            EMPTY => {}
            BORDER => return Err(PlayError::OffBoard),
            _ => return Err(PlayError::Occupied),
        }
        let own = stone(c);
        let opp = other(own);
        let mut seen = [NO_POINT; 4];
        let mut n_seen = 0;
        let mut hash = self.hash ^ key(own, i);
        let mut captured = 0u32;
        let mut captured_chains = 0;
        let mut empty_nb = false;
        let mut own_nb = false;
        let mut own_safe = false;
        let mut own_stones = 1u32;
        for d in DIRS {
            let q = nb(i, d);
            let v = self.cell[q];
            if v == EMPTY {
                empty_nb = true;
                continue;
            }
            if v == BORDER {
                continue;
            }
            let id = self.chain[q];
            if seen[..n_seen].contains(&id) {
                continue;
            }
            seen[n_seen] = id;
            n_seen += 1;
            if v == opp {
                if self.libs[id as usize] == 1 {
                    captured += self.count[id as usize] as u32;
                    captured_chains += 1;
                    hash ^= self.chain_hash(id);
                }
            } else {
                own_nb = true;
                own_stones += self.count[id as usize] as u32;
                if self.libs[id as usize] > 1 {
                    own_safe = true;
                }
            }
        }
        let suicide = captured == 0 && !empty_nb && !own_safe;
        if suicide {
            hash ^= key(own, i);
            for &id in &seen[..n_seen] {
                if self.cell[id as usize] == own {
                    hash ^= self.chain_hash(id);
                }
            }
        }
        Ok(Probe {
            captured,
            suicide: if suicide { own_stones } else { 0 },
            ko_capture: !own_nb && !empty_nb && captured == 1 && captured_chains == 1,
            hash,
        })
    }

    /// Whether `c` at `p` is a board play that neither is suicide nor retakes the simple-ko
    /// point (the quick test used by playouts).
    #[inline]
    pub fn is_simple_legal(&self, p: Point, c: Color) -> bool {
        let i = p.index();
        if self.cell[i] != EMPTY {
            return false;
        }
        if i as u16 == self.ko {
            // Retaking is a ko recapture exactly when it captures one stone; the capturer may
            // still fill the point (it captures nothing and is not suicide).
            return match self.probe(p, c) {
                Ok(pr) => pr.captured > 1 || (pr.captured == 0 && pr.suicide == 0),
                Err(_) => false,
            };
        }
        self.has_liberty_after(p, c)
    }

    /// Whether a stone of `c` at the empty point `p` would have a liberty once its captures are
    /// made, i.e. the play is not suicide (ko is not considered).
    #[inline]
    pub fn has_liberty_after(&self, p: Point, c: Color) -> bool {
        let i = p.index();
        let own = stone(c);
        let opp = other(own);
        for d in DIRS {
            let q = nb(i, d);
            let v = self.cell[q];
            if v == EMPTY {
                return true;
            }
            if v == BORDER {
                continue;
            }
            let l = self.libs[self.chain[q] as usize];
            if (v == own && l > 1) || (v == opp && l == 1) {
                return true;
            }
        }
        false
    }

    /// Whether `c` at `p` would capture at least one opponent chain.
    #[inline]
    pub fn captures_any(&self, p: Point, c: Color) -> bool {
        let opp = other(stone(c));
        DIRS.iter().any(|&d| {
            let q = nb(p.index(), d);
            self.cell[q] == opp && self.libs[self.chain[q] as usize] == 1
        })
    }

    /// The one liberty of the chain through `p` when it is in atari (exactly one liberty), else
    /// `None`; costs a walk of the chain.
    pub fn atari_liberty(&self, p: Point) -> Option<Point> {
        if self.liberty_count(p) != 1 {
            return None;
        }
        self.chain_stones(p).find_map(|s| {
            DIRS.iter()
                .map(|&d| nb(s.index(), d))
                .find(|&e| self.cell[e] == EMPTY)
                .map(|e| Point(e as u16))
        })
    }

    /// What is on cell `p` as a small code: 0 empty, 1 black, 2 white, 3 off the board (a
    /// padding cell of the layout, or a point outside this board's size).
    #[inline]
    pub fn code(&self, p: Point) -> u8 {
        self.cell[p.index()]
    }

    /// Forgets the simple-ko point (a pass ends the ko; used by playouts that pass).
    #[inline]
    pub fn clear_ko(&mut self) {
        self.ko = NO_POINT;
    }

    /// For playouts under simple ko: whether `c` may play at the empty point `p` without
    /// suicide, without retaking the ko, and without filling its own eye (see [`Board::is_eye`]).
    #[inline]
    pub(crate) fn playout_candidate(&self, p: Point, c: Color) -> bool {
        let i = p.index();
        // An empty neighbour settles it at once: no eye, no suicide, not the ko point.
        for d in DIRS {
            if self.cell[nb(i, d)] == EMPTY {
                return true;
            }
        }
        !self.is_eye(p, c) && self.is_simple_legal(p, c)
    }

    /// For playouts: the position hash after `c` plays at the empty point `p`, or `None` when
    /// the play is suicide or retakes the simple ko (one pass over the neighbours).
    #[inline]
    pub(crate) fn playout_hash_after(&self, p: Point, c: Color) -> Option<u64> {
        let i = p.index();
        let own = stone(c);
        let opp = other(own);
        let mut ok = false;
        let mut hash = self.hash ^ key(own, i);
        let mut seen = [NO_POINT; 4];
        let mut n_seen = 0;
        let mut captured = 0;
        for d in DIRS {
            let q = nb(i, d);
            let v = self.cell[q];
            if v == EMPTY {
                ok = true;
            } else if v == own {
                ok |= self.libs[self.chain[q] as usize] > 1;
            } else if v == opp {
                let id = self.chain[q];
                if self.libs[id as usize] == 1 && !seen[..n_seen].contains(&id) {
                    seen[n_seen] = id;
                    n_seen += 1;
                    hash ^= self.chain_hash(id);
                    captured += self.count[id as usize] as u32;
                    ok = true;
                }
            }
        }
        if !ok || (i as u16 == self.ko && captured == 1) {
            return None;
        }
        Some(hash)
    }

    /// Plays `c` at `p`: captures opponent chains left without liberties, then removes the
    /// mover's chain if it has none (suicide). Recorded for [`Board::undo`].
    pub fn play(&mut self, p: Point, c: Color) -> Result<PlayOutcome, PlayError> {
        self.check_playable(p)?;
        Ok(self.play_impl::<true>(p.index(), stone(c)))
    }

    /// Like [`Board::play`] but not recorded for undo (faster; for playouts).
    pub fn play_unrecorded(&mut self, p: Point, c: Color) -> Result<PlayOutcome, PlayError> {
        self.check_playable(p)?;
        Ok(self.play_impl::<false>(p.index(), stone(c)))
    }

    /// The stones the last recorded play captured (its own stones too, after a suicide).
    pub fn last_captured(&self) -> &[Point] {
        match self.log.last() {
            Some(r) => &self.caps[r.cap_start as usize..],
            None => &[],
        }
    }

    /// Number of recorded plays that [`Board::undo`] can take back.
    pub fn undo_depth(&self) -> usize {
        self.log.len()
    }

    /// Forgets the undo log (e.g. to start playouts from a copy).
    pub fn clear_undo(&mut self) {
        self.log.clear();
        self.caps.clear();
    }

    /// The `i`-th entry of the empty-point list (`i < empty_count()`), in no particular order.
    #[inline]
    pub fn empty_at(&self, i: usize) -> Point {
        Point(self.empties[i])
    }

    /// Swaps two entries of the empty-point list (its order carries no meaning).
    #[inline]
    pub(crate) fn swap_empties(&mut self, i: usize, j: usize) {
        let (a, b) = (self.empties[i], self.empties[j]);
        self.empties[i] = b;
        self.empties[j] = a;
        self.empty_pos[b as usize] = i as u16;
        self.empty_pos[a as usize] = j as u16;
    }

    fn check_playable(&self, p: Point) -> Result<(), PlayError> {
        match self.cell[p.index()] {
            EMPTY => Ok(()),
            BORDER => Err(PlayError::OffBoard),
            _ => Err(PlayError::Occupied),
        }
    }

    #[inline]
    fn push_empty(&mut self, i: usize) {
        self.empty_pos[i] = self.n_empty;
        self.empties[self.n_empty as usize] = i as u16;
        self.n_empty += 1;
    }

    #[inline]
    fn remove_empty(&mut self, i: usize) {
        let pos = self.empty_pos[i] as usize;
        self.n_empty -= 1;
        let last = self.empties[self.n_empty as usize];
        self.empties[pos] = last;
        self.empty_pos[last as usize] = pos as u16;
    }

    /// The XOR of the keys of every stone of chain `id`.
    fn chain_hash(&self, id: u16) -> u64 {
        let c = self.cell[id as usize];
        let mut h = 0;
        let mut s = id;
        loop {
            h ^= key(c, s as usize);
            s = self.next[s as usize];
            if s == id {
                return h;
            }
        }
    }

    /// The first neighbour of empty point `e`, in `DIRS` order, belonging to chain `id` (of cell
    /// value `c`: an empty cell's stale chain entry must not count).
    #[inline]
    fn first_chain_neighbour(&self, e: usize, id: u16, c: u8) -> u16 {
        for d in DIRS {
            let q = nb(e, d);
            if self.cell[q] == c && self.chain[q] == id {
                return q as u16;
            }
        }
        NO_POINT
    }

    /// Whether the empty point `e`, next to stone `s` of chain `b`, is a liberty that merging
    /// `b` into chain `a` (both of cell value `c`) adds: `a` does not touch it and `s` is `b`'s
    /// first stone next to it (so that each liberty is counted once). One pass over `e`'s
    /// neighbours.
    #[inline]
    fn gained_liberty(&self, e: usize, s: u16, b: u16, a: u16, c: u8) -> bool {
        let mut first = NO_POINT;
        for d in DIRS {
            let q = nb(e, d);
            if self.cell[q] == c {
                let id = self.chain[q];
                if id == a {
                    return false;
                }
                if id == b && first == NO_POINT {
                    first = q as u16;
                }
            }
        }
        first == s
    }

    /// Whether the empty point `e` is next to a stone of chain `id` (of cell value `c`).
    #[inline]
    fn touches_chain(&self, e: usize, id: u16, c: u8) -> bool {
        DIRS.iter().any(|&d| {
            let q = nb(e, d);
            self.cell[q] == c && self.chain[q] == id
        })
    }

    /// Exact liberty count of chain `id`: each empty neighbour is counted by its first
    /// neighbouring stone of the chain.
    fn count_libs(&self, id: u16) -> u16 {
        let c = self.cell[id as usize];
        let mut n = 0;
        let mut s = id;
        loop {
            for d in DIRS {
                let e = nb(s as usize, d);
                if self.cell[e] == EMPTY && self.first_chain_neighbour(e, id, c) == s {
                    n += 1;
                }
            }
            s = self.next[s as usize];
            if s == id {
                return n;
            }
        }
    }

    /// Names every stone of the ring through `start` `id`.
    #[inline]
    fn relabel_ring(&mut self, start: u16, id: u16) {
        let mut s = start;
        loop {
            self.chain[s as usize] = id;
            s = self.next[s as usize];
            if s == start {
                break;
            }
        }
    }

    /// Relabels chain `b` as part of chain `a` and splices the rings.
    fn merge(&mut self, a: u16, b: u16) {
        self.relabel_ring(b, a);
        self.next.swap(a as usize, b as usize);
        self.count[a as usize] += self.count[b as usize];
    }

    /// Removes chain `id` from the board, crediting liberties to the neighbouring chains; logs
    /// the stones when `RECORD`. Returns the number of stones removed.
    fn remove_chain_impl<const RECORD: bool>(&mut self, id: u16) -> u32 {
        let c = self.cell[id as usize];
        let opp = other(c);
        let n = self.count[id as usize] as u32;
        let mut s = id;
        loop {
            let si = s as usize;
            self.cell[si] = EMPTY;
            self.hash ^= key(c, si);
            self.push_empty(si);
            if RECORD {
                self.caps.push(Point(s));
            }
            self.adjust_neighbour_libs(si, opp, true);
            s = self.next[si];
            if s == id {
                break;
            }
        }
        self.stones[side(c)] -= n as u16;
        n
    }

    fn play_impl<const RECORD: bool>(&mut self, i: usize, own: u8) -> PlayOutcome {
        let opp = other(own);
        let p = i as u16;
        if RECORD {
            self.log.push(UndoRec {
                p,
                color: own,
                n_opp: 0,
                cap_start: self.caps.len() as u32,
                suicide: false,
                prev_ko: self.ko,
                prev_hash: self.hash,
                prev_caps: self.captures,
                prev_entry: [self.chain[i], self.next[i], self.count[i], self.libs[i]],
                own_ids: [NO_POINT; 4],
                own_libs: [0; 4],
                n_own: 0,
            });
        }
        self.cell[i] = own;
        self.hash ^= key(own, i);
        self.remove_empty(i);
        self.stones[side(own)] += 1;
        self.chain[i] = p;
        self.next[i] = p;
        self.count[i] = 1;

        let mut own_ids = [NO_POINT; 4];
        let mut n_own = 0;
        let mut opp_ids = [NO_POINT; 4];
        let mut n_opp = 0;
        let mut empty_nb = 0u16;
        for d in DIRS {
            let q = nb(i, d);
            let v = self.cell[q];
            if v == EMPTY {
                empty_nb += 1;
            } else if v == own {
                let id = self.chain[q];
                if !own_ids[..n_own].contains(&id) {
                    own_ids[n_own] = id;
                    n_own += 1;
                    if RECORD {
                        if let Some(r) = self.log.last_mut() {
                            r.own_libs[n_own - 1] = self.libs[id as usize];
                        }
                    }
                    self.libs[id as usize] -= 1;
                }
            } else if v == opp {
                let id = self.chain[q];
                if !opp_ids[..n_opp].contains(&id) {
                    opp_ids[n_opp] = id;
                    n_opp += 1;
                    self.libs[id as usize] -= 1;
                }
            }
        }
        self.libs[i] = empty_nb;

        // Captures.
        let mut captured = 0;
        let mut captured_chains = 0;
        let mut last_captured = NO_POINT;
        for &id in &opp_ids[..n_opp] {
            if self.libs[id as usize] == 0 {
                captured += self.remove_chain_impl::<RECORD>(id);
                captured_chains += 1;
                last_captured = id;
            }
        }
        self.captures[side(own)] += captured;

        // Join the new stone to its own neighbours.
        let id = match n_own {
            0 => {
                // `libs[i]` counted empty neighbours before captures; captures added the rest.
                p
            }
            _ => {
                // Merge into the largest chain, counting only the liberties it gains: each
                // other chain's liberties not already next to it, then the new stone's.
                let mut a = own_ids[0];
                for &b in &own_ids[1..n_own] {
                    if self.count[b as usize] > self.count[a as usize] {
                        a = b;
                    }
                }
                let mut libs = self.libs[a as usize];
                for &b in &own_ids[..n_own] {
                    if b == a {
                        continue;
                    }
                    let mut s = b;
                    loop {
                        for d in DIRS {
                            let e = nb(s as usize, d);
                            if self.cell[e] == EMPTY && self.gained_liberty(e, s, b, a, own) {
                                libs += 1;
                            }
                        }
                        s = self.next[s as usize];
                        if s == b {
                            break;
                        }
                    }
                    self.merge(a, b);
                }
                for d in DIRS {
                    let e = nb(i, d);
                    if self.cell[e] == EMPTY && !self.touches_chain(e, a, own) {
                        libs += 1;
                    }
                }
                self.merge(a, p);
                self.libs[a as usize] = libs;
                a
            }
        };

        let mut suicide = 0;
        if self.libs[id as usize] == 0 {
            suicide = self.remove_chain_impl::<RECORD>(id);
            self.captures[side(opp)] += suicide;
        }
        let ko_capture = n_own == 0 && empty_nb == 0 && captured == 1 && captured_chains == 1;
        self.ko = if ko_capture && suicide == 0 && self.libs[i] == 1 {
            last_captured
        } else {
            NO_POINT
        };
        if RECORD {
            if let Some(r) = self.log.last_mut() {
                r.n_opp = captured;
                r.suicide = suicide > 0;
                r.own_ids = own_ids;
                r.n_own = n_own as u8;
            }
        }
        PlayOutcome {
            captured,
            suicide,
            ko_capture,
        }
    }

    /// Takes back the last recorded play, restoring stones, chains (their names and the order
    /// of their stones too), liberties, hash, captures and the ko point exactly; only the order
    /// of the empty-point list may differ. Each step of the play is reversed in turn, so no
    /// chain is recomputed. Returns the point and colour undone, or `None` if none.
    pub fn undo(&mut self) -> Option<(Point, Color)> {
        let r = self.log.pop()?;
        let own = r.color;
        let opp = other(own);
        let pi = r.p as usize;
        let start = r.cap_start as usize;
        let opp_end = start + r.n_opp as usize;
        // The mover's chain removed by suicide comes back first (it went last), taking back
        // the liberties its removal gave the opponent's chains around it.
        if r.suicide {
            for k in opp_end..self.caps.len() {
                let s = self.caps[k].index();
                self.remove_empty(s);
                self.cell[s] = own;
                self.stones[side(own)] += 1;
                self.adjust_neighbour_libs(s, opp, false);
            }
        }
        // Split the merged chain back into the chains it was made of, in reverse order:
        // a merge relabels a ring and swaps two links, and swapping them again splits it.
        // The played stone still carries the name of the chain it was merged into.
        let a = self.chain[pi] as usize;
        if r.n_own > 0 {
            self.next.swap(a, pi);
            self.count[a] -= 1;
            for &b in r.own_ids[..r.n_own as usize].iter().rev() {
                if b as usize == a {
                    continue;
                }
                self.next.swap(a, b as usize);
                self.relabel_ring(b, b);
                self.count[a] -= self.count[b as usize];
            }
        }
        // Lift the played stone and give its point its old entries back.
        self.cell[pi] = EMPTY;
        self.push_empty(pi);
        self.stones[side(own)] -= 1;
        let [c0, n0, k0, l0] = r.prev_entry;
        self.chain[pi] = c0;
        self.next[pi] = n0;
        self.count[pi] = k0;
        self.libs[pi] = l0;
        // Put the captured stones back (their chains' names and rings were never touched);
        // the mover's chains next to them lose the liberties the captures gave.
        for k in start..opp_end {
            let s = self.caps[k].index();
            self.remove_empty(s);
            self.cell[s] = opp;
            self.stones[side(opp)] += 1;
        }
        for k in start..opp_end {
            let s = self.caps[k].index();
            self.adjust_neighbour_libs(s, own, false);
        }
        self.caps.truncate(start);
        // The mover's chains next to the point get their liberties back as they were, and the
        // opponent's chains next to it (captured ones: from 0 to 1) the point.
        for (k, &b) in r.own_ids[..r.n_own as usize].iter().enumerate() {
            self.libs[b as usize] = r.own_libs[k];
        }
        self.adjust_neighbour_libs(pi, opp, true);
        self.hash = r.prev_hash;
        self.captures = r.prev_caps;
        self.ko = r.prev_ko;
        let color = if own == BLACK {
            Color::Black
        } else {
            Color::White
        };
        Some((Point(r.p), color))
    }

    /// Adds one liberty to (or takes one from) each distinct chain of cell value `c` next to
    /// `p`.
    #[inline]
    fn adjust_neighbour_libs(&mut self, p: usize, c: u8, add: bool) {
        let mut seen = [NO_POINT; 4];
        let mut n_seen = 0;
        for d in DIRS {
            let q = nb(p, d);
            if self.cell[q] == c {
                let id = self.chain[q];
                if !seen[..n_seen].contains(&id) {
                    seen[n_seen] = id;
                    n_seen += 1;
                    if add {
                        self.libs[id as usize] += 1;
                    } else {
                        self.libs[id as usize] -= 1;
                    }
                }
            }
        }
    }

    /// Rebuilds (ids, rings, counts, exact liberties) every chain through the given cells.
    fn rebuild_chains(&mut self, cells: &[u16]) {
        let mut done = [0u64; CELLS.div_ceil(64)];
        let mut stack = [0u16; MAX_AREA];
        let mut heads = [0u16; MAX_AREA];
        let mut n_heads = 0;
        for &start in cells {
            let si = start as usize;
            let c = self.cell[si];
            if !is_stone(c) || done[si / 64] & (1 << (si % 64)) != 0 {
                continue;
            }
            // Flood fill, linking the ring as we go.
            let mut top = 0;
            stack[top] = start;
            top += 1;
            done[si / 64] |= 1 << (si % 64);
            let mut prev = start;
            let mut n = 0u16;
            while top > 0 {
                top -= 1;
                let s = stack[top];
                self.chain[s as usize] = start;
                self.next[prev as usize] = s;
                prev = s;
                n += 1;
                for d in DIRS {
                    let q = nb(s as usize, d);
                    if self.cell[q] == c && done[q / 64] & (1 << (q % 64)) == 0 {
                        done[q / 64] |= 1 << (q % 64);
                        stack[top] = q as u16;
                        top += 1;
                    }
                }
            }
            self.next[prev as usize] = start;
            self.count[si] = n;
            heads[n_heads] = start;
            n_heads += 1;
        }
        // Liberties only once every id is fresh (a stale id could alias a new one).
        for &h in &heads[..n_heads] {
            self.libs[h as usize] = self.count_libs(h);
        }
    }

    /// Sets up `p` as `stone` (SGF `AB`/`AW`/`AE`) without captures; clears the undo log and
    /// the ko point. The position may then hold chains without liberties, as a set-up may.
    pub fn set(&mut self, p: Point, stone: Option<Color>) -> Result<(), PlayError> {
        self.set_many(&[p], stone).map(|_| ())
    }

    /// Sets up every point of `points` as `stone` (one SGF `AB`/`AW`/`AE` property) without
    /// captures, in time linear in the points and the chains they touch; returns how many
    /// points changed. An off-board point changes nothing. Clears the undo log and the ko point.
    pub fn set_many(&mut self, points: &[Point], stone: Option<Color>) -> Result<usize, PlayError> {
        if points.iter().any(|p| self.cell[p.index()] == BORDER) {
            return Err(PlayError::OffBoard);
        }
        self.clear_undo();
        self.ko = NO_POINT;
        let new = stone.map_or(EMPTY, self::stone);
        let mut touched: Vec<u16> = Vec::new();
        let mut changed = 0;
        for p in points {
            let i = p.index();
            let old = self.cell[i];
            if old == new {
                continue;
            }
            if old == EMPTY {
                self.remove_empty(i);
            } else {
                self.hash ^= key(old, i);
                self.stones[side(old)] -= 1;
            }
            if new == EMPTY {
                self.push_empty(i);
            } else {
                self.hash ^= key(new, i);
                self.stones[side(new)] += 1;
            }
            self.cell[i] = new;
            changed += 1;
            touched.push(i as u16);
            touched.extend(DIRS.iter().map(|&d| nb(i, d) as u16));
        }
        if !touched.is_empty() {
            // Chains through the changed points and their neighbours may have split or joined:
            // rebuild each of them once.
            self.rebuild_chains(&touched);
        }
        Ok(changed)
    }

    /// Removes the whole chain through `p` (e.g. dead stones at scoring) without crediting
    /// captures; clears the undo log and the ko point. Returns its colour and size.
    pub fn remove_chain(&mut self, p: Point) -> Option<(Color, usize)> {
        let c = self.get(p)?;
        self.clear_undo();
        self.ko = NO_POINT;
        let n = self.remove_chain_impl::<false>(self.chain[p.index()]);
        Some((c, n as usize))
    }

    /// Adds `n` prisoners to `c`'s captures (e.g. dead stones taken off at scoring).
    pub fn add_captures(&mut self, c: Color, n: u32) {
        self.captures[c.index()] += n;
    }

    /// Recomputes every chain from scratch and checks it against the incremental state (for
    /// tests and debugging); returns a description of the first mismatch.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut fresh = self.clone();
        let all: Vec<u16> = self.points().map(|p| p.0).collect();
        fresh.rebuild_chains(&all);
        let mut h = 0;
        let mut stones = [0u16; 2];
        for p in self.points() {
            let i = p.index();
            if let Some(c) = self.get(p) {
                h ^= key(stone(c), i);
                stones[c.index()] += 1;
                if self.liberty_count(p) != fresh.liberty_count(p) {
                    return Err(format!(
                        "liberties of {p}: {} incremental vs {} fresh",
                        self.liberty_count(p),
                        fresh.liberty_count(p)
                    ));
                }
                if self.chain_len(p) != fresh.chain_len(p) {
                    return Err(format!("chain size of {p} differs"));
                }
                if self.chain[self.chain[i] as usize] != self.chain[i] {
                    return Err(format!("chain id of {p} is not a member of its chain"));
                }
                let mut members: Vec<_> = self.chain_stones(p).collect();
                let mut fresh_members: Vec<_> = fresh.chain_stones(p).collect();
                members.sort();
                fresh_members.sort();
                if members != fresh_members {
                    return Err(format!("stones of the chain through {p} differ"));
                }
            } else if self.cell[i] == EMPTY
                && self.empties[self.empty_pos[i] as usize] as usize != i
            {
                return Err(format!("empty list misses {p}"));
            }
        }
        if h != self.hash {
            return Err("hash differs from a fresh computation".into());
        }
        if stones != self.stones {
            return Err("stone counts differ".into());
        }
        if self.n_empty as usize + stones[0] as usize + stones[1] as usize != self.size.area() {
            return Err("empty count differs".into());
        }
        Ok(())
    }
}

/// Combines a position hash with the side to move (situational superko).
#[inline]
pub fn situational(hash: u64, to_move: Color) -> u64 {
    match to_move {
        Color::Black => hash,
        Color::White => hash ^ WHITE_TO_MOVE_KEY,
    }
}

/// Iterator over the stones of one chain.
pub struct ChainStones<'a> {
    board: &'a Board,
    start: u16,
    cur: u16,
}

impl Iterator for ChainStones<'_> {
    type Item = Point;
    fn next(&mut self) -> Option<Point> {
        if self.cur == NO_POINT {
            return None;
        }
        let p = self.cur;
        let n = self.board.next[p as usize];
        self.cur = if n == self.start { NO_POINT } else { n };
        Some(Point(p))
    }
}

impl fmt::Display for Board {
    /// A diagram: `X` black, `O` white, `.` empty, GTP coordinates on the edges, top row first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cols = self.size.cols();
        let letters: String = (0..cols)
            .map(|x| format!(" {}", &Point::new(x, 0).to_gtp()[..1]))
            .collect();
        writeln!(f, "   {letters}")?;
        for y in (0..self.size.rows()).rev() {
            write!(f, "{:>3}", y + 1)?;
            for x in 0..cols {
                let c = match self.get(Point::new(x, y)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                };
                write!(f, " {c}")?;
            }
            writeln!(f, " {}", y + 1)?;
        }
        writeln!(f, "   {letters}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baduk_rng::Rng;

    fn sz(n: u32) -> Size {
        Size::square(n).unwrap()
    }

    fn pt(s: &str, size: Size) -> Point {
        Point::from_gtp(s, size).unwrap()
    }

    pub(crate) fn board_from(rows: &[&str]) -> Board {
        Board::from_rows(rows).unwrap()
    }

    #[test]
    fn empty_board_has_every_point_empty() {
        let b = Board::new(Size::new(7, 5).unwrap());
        assert_eq!(b.empty_count(), 35);
        assert_eq!(b.points().count(), 35);
        assert!(b.points().all(|p| b.get(p).is_none()));
        assert_eq!(b.hash(), 0);
        assert_eq!(b.neighbours(Point::new(0, 0)).count(), 2);
        assert_eq!(b.neighbours(Point::new(3, 2)).count(), 4);
    }

    #[test]
    fn rules_art_capture_removes_chain_without_liberties() {
        let s = sz(5);
        let mut b = board_from(&[".....", ".....", "..O..", ".OXO.", "....."]);
        let out = b.play(pt("C1", s), Color::White).unwrap();
        assert_eq!(out.captured, 1);
        assert_eq!(b.get(pt("C2", s)), None);
        assert_eq!(b.captures(Color::White), 1);
        assert_eq!(b.last_captured(), &[pt("C2", s)]);
        b.check_consistency().unwrap();
    }

    #[test]
    fn liberties_are_exact_for_shared_liberties() {
        let s = sz(5);
        let mut b = Board::new(s);
        for m in ["B2", "C3", "D2"] {
            b.play(pt(m, s), Color::Black).unwrap();
        }
        // C2 joins three stones; C2's neighbours B2, D2, C3 are own, C1 is a liberty.
        b.play(pt("C2", s), Color::Black).unwrap();
        let libs = b.liberties(pt("C2", s));
        assert_eq!(b.liberty_count(pt("C2", s)), libs.len());
        assert_eq!(libs.len(), 8);
        b.check_consistency().unwrap();
    }

    #[test]
    fn suicide_removes_own_chain_and_credits_opponent() {
        let s = sz(3);
        let mut b = board_from(&[".O.", "O..", "..."]);
        let pr = b.probe(pt("A3", s), Color::Black).unwrap();
        assert_eq!(pr.suicide, 1);
        assert_eq!(pr.hash, b.hash());
        let out = b.play(pt("A3", s), Color::Black).unwrap();
        assert_eq!(out.suicide, 1);
        assert_eq!(b.get(pt("A3", s)), None);
        assert_eq!(b.captures(Color::White), 1);
        b.undo().unwrap();
        assert_eq!(b.captures(Color::White), 0);
        b.check_consistency().unwrap();
    }

    #[test]
    fn ko_capture_sets_the_ko_point() {
        let s = sz(4);
        let mut b = board_from(&[".XO.", "XO.O", ".XO.", "...."]);
        let pr = b.probe(pt("C3", s), Color::Black).unwrap();
        assert!(pr.ko_capture);
        let out = b.play(pt("C3", s), Color::Black).unwrap();
        assert!(out.ko_capture);
        assert_eq!(b.ko_point(), Some(pt("B3", s)));
        assert!(!b.is_simple_legal(pt("B3", s), Color::White));
        // The capturer may fill the ko point: it captures nothing and is not suicide.
        assert!(b.is_simple_legal(pt("B3", s), Color::Black));
        b.undo();
        assert_eq!(b.ko_point(), None);
        b.check_consistency().unwrap();
    }

    #[test]
    fn set_up_and_remove_chain_keep_chains_exact() {
        let s = sz(5);
        let mut b = board_from(&["XX...", "X.O..", ".OOO.", ".....", "....."]);
        b.check_consistency().unwrap();
        b.set(pt("C3", s), None).unwrap();
        b.check_consistency().unwrap();
        let (c, n) = b.remove_chain(pt("A5", s)).unwrap();
        assert_eq!((c, n), (Color::Black, 3));
        b.check_consistency().unwrap();
        assert!(b.set(Point::new(6, 6), None).is_err());
    }

    #[test]
    fn play_then_undo_restores_everything_in_random_games() {
        // Plays that capture, single-stone and multi-stone suicides: each must come up.
        let mut kinds = [0u32; 3];
        for (seed, n) in [(1u64, 9u32), (2, 5), (3, 13), (4, 19)] {
            let s = sz(n);
            let mut b = Board::new(s);
            let mut rng = Rng::new(seed);
            let mut snapshots = vec![];
            let mut color = Color::Black;
            for _ in 0..(n * n * 3) {
                let empties: Vec<Point> = b.empty_points().collect();
                if empties.is_empty() {
                    break;
                }
                let p = empties[rng.below(empties.len())];
                snapshots.push((
                    b.clone(),
                    b.hash(),
                    b.captures(Color::Black),
                    b.captures(Color::White),
                ));
                for q in empties.iter().copied() {
                    let quick = b.playout_hash_after(q, color);
                    let full = b.probe(q, color).unwrap();
                    let legal = b.is_simple_legal(q, color);
                    assert_eq!(legal, full.suicide == 0 && quick.is_some());
                    assert_eq!(quick, legal.then_some(full.hash));
                    assert_eq!(b.playout_candidate(q, color), legal && !b.is_eye(q, color));
                }
                let pr = b.probe(p, color).unwrap();
                let out = b.play(p, color).unwrap();
                kinds[0] += (out.captured > 0) as u32;
                kinds[1] += (out.suicide > 0) as u32;
                kinds[2] += (out.suicide > 1) as u32;
                assert_eq!(pr.hash, b.hash());
                if snapshots.len() % 5 == 0 {
                    b.check_consistency().unwrap();
                }
                color = color.opponent();
            }
            while let Some((old, h, cb, cw)) = snapshots.pop() {
                b.undo().unwrap();
                assert_eq!(b, old);
                // Chains come back exactly: names, the order of their stones, liberties.
                for q in b.points() {
                    assert_eq!(b.chain_id(q), old.chain_id(q));
                    assert_eq!(b.liberty_count(q), old.liberty_count(q));
                    assert!(b.chain_stones(q).eq(old.chain_stones(q)));
                }
                assert_eq!(
                    (b.hash(), b.captures(Color::Black), b.captures(Color::White)),
                    (h, cb, cw)
                );
                assert_eq!(b.ko_point(), old.ko_point());
                if snapshots.len() % 5 == 0 {
                    b.check_consistency().unwrap();
                }
            }
            assert!(b.undo().is_none());
        }
        assert!(kinds.iter().all(|&k| k > 0), "{kinds:?}");
    }

    #[test]
    fn eye_needs_own_neighbours_and_good_diagonals() {
        let s = sz(5);
        let b = board_from(&[".X...", "X.X..", ".X...", ".....", "....."]);
        assert!(b.is_eye(pt("B4", s), Color::Black));
        let b2 = board_from(&[".XO..", "X.X..", "OX...", ".....", "....."]);
        assert!(!b2.is_eye(pt("B4", s), Color::Black));
        let b3 = board_from(&[".X...", "X.X..", ".X...", ".....", "....."]);
        assert!(b3.is_eye(pt("A5", s), Color::Black));
        assert!(!b3.is_eye(pt("A5", s), Color::White));
    }

    #[test]
    fn search_queries_agree_with_exact_liberties_in_random_games() {
        for (seed, n) in [(7u64, 9u32), (8, 19), (9, 25)] {
            let s = sz(n);
            let mut b = Board::new(s);
            let mut rng = Rng::new(seed);
            let mut color = Color::Black;
            for _ in 0..(n * n * 2) {
                let k = b.empty_count();
                let p = b.empty_at(rng.below(k));
                for q in b.empty_points() {
                    let pr = b.probe(q, color).unwrap();
                    assert_eq!(b.has_liberty_after(q, color), pr.suicide == 0);
                    assert_eq!(b.captures_any(q, color), pr.captured > 0);
                }
                b.play_unrecorded(p, color).unwrap();
                for q in b.points() {
                    let libs = b.liberties(q);
                    let want = (libs.len() == 1).then(|| libs[0]);
                    assert_eq!(b.atari_liberty(q), want);
                    let code = match b.get(q) {
                        Some(Color::Black) => 1,
                        Some(Color::White) => 2,
                        None => 0,
                    };
                    assert_eq!(b.code(q), code);
                }
                color = color.opponent();
            }
            assert_eq!(b.code(Point::from_raw(0)), 3);
        }
    }

    #[test]
    fn eye_test_reaches_the_last_corner_of_the_largest_board() {
        // The top-right corner of 25×25 has the last cell of the layout as a diagonal.
        let s = sz(25);
        let mut b = Board::new(s);
        b.play(Point::new(23, 24), Color::Black).unwrap();
        b.play(Point::new(24, 23), Color::Black).unwrap();
        assert!(b.is_eye(Point::new(24, 24), Color::Black));
        b.clear_ko();
        assert_eq!(b.ko_point(), None);
    }

    #[test]
    fn diagram_errors_name_the_row() {
        assert_eq!(Board::from_rows(&["X.", "O"]).unwrap_err().line, 2);
        assert_eq!(Board::from_rows(&["X?", "O."]).unwrap_err().line, 1);
        assert!(Board::from_rows(&["X"]).is_err());
    }

    #[test]
    fn display_shows_gtp_coordinates() {
        let b = board_from(&["X.", ".O"]);
        let text = b.to_string();
        assert!(text.contains("2 X . 2"), "{text}");
        assert!(text.contains("1 . O 1"), "{text}");
        assert!(text.starts_with("    A B"), "{text}");
    }
}
