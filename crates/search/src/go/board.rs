//! The search's view of a Go position: a thin wrapper over the rules library's
//! [`baduk_go::Board`], which alone decides the physics (captures, suicide, the simple-ko point,
//! exact liberty counts, the Zobrist hash). The wrapper adds what is not board physics (side to
//! move, passes, the last two moves, the move count) and the index-based API the search uses.
//!
//! An [`Idx`] is the library's raw point index ([`Point::index`]): a padded layout with a fixed
//! row stride of [`STRIDE`] shared by every size, so neighbours are `±1` and `±stride()`. The
//! wrapper's rows count from the top (`idx(x, 0)` is the top row) while the library's count from
//! the bottom; the index of a point is the same in both.

use baduk_go::board::WHITE_TO_MOVE_KEY;
use baduk_go::point::STRIDE;
use baduk_go::{Board, Color, Point, Size};

/// Largest board side the bot plays on.
pub const MAX_SIDE: usize = baduk_go::point::MAX_SIDE as usize;
/// Cells of the padded array (every index and every neighbour or diagonal of a point is below).
pub const MAX_CELLS: usize = Point::INDEX_LIMIT;

/// A cell index of the padded array; 0 is never on the board and stands for "pass / none".
pub type Idx = u16;
/// The pass move (and "no point").
pub const PASS: Idx = 0;

/// A player's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    /// The first player.
    Black,
    /// The second player.
    White,
}

impl Colour {
    /// The other colour.
    #[inline]
    pub fn opp(self) -> Colour {
        match self {
            Colour::Black => Colour::White,
            Colour::White => Colour::Black,
        }
    }

    /// 0 for Black, 1 for White.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The rules library's colour.
    #[inline]
    pub fn lib(self) -> Color {
        match self {
            Colour::Black => Color::Black,
            Colour::White => Color::White,
        }
    }
}

/// What a rule set says about moves that leave the mover's own chain without liberties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuicidePolicy {
    /// No suicide (also used where suicide loses: the bot never chooses a losing move).
    Forbidden,
    /// Multi-stone suicide allowed, single-stone forbidden.
    MultiStone,
    /// Any suicide allowed.
    Allowed,
}

/// Hash key xor-ed in when White is to move (situational superko): the library's.
pub const ZOBRIST_WHITE_TO_MOVE: u64 = WHITE_TO_MOVE_KEY;

#[inline]
fn pt(i: Idx) -> Point {
    Point::from_raw(i)
}

#[inline]
fn ix(p: Point) -> Idx {
    p.index() as Idx
}

/// A Go position for search: the library board plus side to move and recent moves.
#[derive(Clone)]
pub struct FastBoard {
    board: Board,
    width: usize,
    height: usize,
    to_move: Colour,
    passes: u32,
    last: Idx,
    last2: Idx,
    moves: u32,
}

impl FastBoard {
    /// An empty `width`×`height` board with Black to move; sides are clamped to `2..=MAX_SIDE`.
    pub fn new(width: usize, height: usize) -> FastBoard {
        let width = width.clamp(2, MAX_SIDE);
        let height = height.clamp(2, MAX_SIDE);
        let size = Size::new(width as u32, height as u32).expect("clamped to the library's sizes");
        FastBoard {
            board: Board::new(size),
            width,
            height,
            to_move: Colour::Black,
            passes: 0,
            last: PASS,
            last2: PASS,
            moves: 0,
        }
    }

    /// A board drawn as rows, top row first: `X` black, `O` white, anything else empty;
    /// Black to move (for tests and hand-made positions).
    pub fn from_rows(rows: &[&str]) -> FastBoard {
        let mut b = FastBoard::new(rows.first().map_or(0, |r| r.len()), rows.len());
        for (y, r) in rows.iter().enumerate() {
            for (x, ch) in r.bytes().enumerate() {
                match ch {
                    b'X' => b.setup(b.idx(x, y), Colour::Black),
                    b'O' => b.setup(b.idx(x, y), Colour::White),
                    _ => {}
                }
            }
        }
        b
    }

    /// The library board underneath (its rows count from the bottom).
    #[inline]
    pub fn lib(&self) -> &Board {
        &self.board
    }

    /// Board width.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Board height.
    #[inline]
    pub fn height(&self) -> usize {
        self.height
    }

    /// Row stride of the padded array.
    #[inline]
    pub fn stride(&self) -> usize {
        STRIDE
    }

    /// The index of column `x`, row `y` (0-based from the top-left).
    #[inline]
    pub fn idx(&self, x: usize, y: usize) -> Idx {
        ((self.height - y) * STRIDE + x + 1) as Idx
    }

    /// Column and row of an on-board index.
    #[inline]
    pub fn xy(&self, i: Idx) -> (usize, usize) {
        let i = i as usize;
        (i % STRIDE - 1, self.height - i / STRIDE)
    }

    /// Whether `i` is a point of the board.
    #[inline]
    pub fn on_board(&self, i: Idx) -> bool {
        (i as usize) < MAX_CELLS && self.cell(i) != 3
    }

    /// Every on-board index, row by row.
    pub fn points(&self) -> impl Iterator<Item = Idx> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| self.idx(x, y)))
    }

    /// The four orthogonal neighbours (some may be off the board).
    #[inline]
    pub fn neighbours(&self, i: Idx) -> [Idx; 4] {
        let s = STRIDE as Idx;
        [i - s, i - 1, i + 1, i + s]
    }

    /// The four diagonal neighbours (some may be off the board).
    #[inline]
    pub fn diagonals(&self, i: Idx) -> [Idx; 4] {
        let s = STRIDE as Idx;
        [i - s - 1, i - s + 1, i + s - 1, i + s + 1]
    }

    /// Who owns point `i` when a playout ends: +1 Black, −1 White (a stone, or an empty point
    /// touching only that colour), 0 for an empty point touching both or neither.
    pub fn owner_at(&self, i: Idx) -> f32 {
        match self.cell(i) {
            1 => 1.0,
            2 => -1.0,
            _ => match self.touching(i) {
                1 => 1.0,
                2 => -1.0,
                _ => 0.0,
            },
        }
    }

    /// The colours next to `i` as bits: 1 Black, 2 White.
    #[inline]
    fn touching(&self, i: Idx) -> u8 {
        let mut t = 0u8;
        for n in self.neighbours(i) {
            let v = self.cell(n);
            if v == 1 || v == 2 {
                t |= v;
            }
        }
        t
    }

    /// The stone at `i`, if any.
    #[inline]
    pub fn stone(&self, i: Idx) -> Option<Colour> {
        match self.cell(i) {
            1 => Some(Colour::Black),
            2 => Some(Colour::White),
            _ => None,
        }
    }

    /// Raw cell code: 0 empty, 1 black, 2 white, 3 off board.
    #[inline]
    pub fn cell(&self, i: Idx) -> u8 {
        self.board.code(pt(i))
    }

    /// Whether `i` is an empty board point.
    #[inline]
    pub fn is_empty(&self, i: Idx) -> bool {
        self.board.is_empty(pt(i))
    }

    /// The colour to move.
    #[inline]
    pub fn to_move(&self) -> Colour {
        self.to_move
    }

    /// Sets the colour to move (GTP lets either colour play).
    pub fn set_to_move(&mut self, c: Colour) {
        self.to_move = c;
    }

    /// The Zobrist hash of the stones (without the side to move).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.board.hash()
    }

    /// The hash including the side to move (situational superko).
    #[inline]
    pub fn situational_hash(&self) -> u64 {
        self.board.situational_hash(self.to_move.lib())
    }

    /// The simple-ko point (where an immediate single-stone recapture is forbidden), if any.
    #[inline]
    pub fn ko(&self) -> Idx {
        self.board.ko_point().map_or(PASS, ix)
    }

    /// Stones captured by `c` so far.
    #[inline]
    pub fn captures(&self, c: Colour) -> u32 {
        self.board.captures(c.lib())
    }

    /// Consecutive passes just played.
    #[inline]
    pub fn passes(&self) -> u32 {
        self.passes
    }

    /// The last move (PASS if a pass or none).
    #[inline]
    pub fn last_move(&self) -> Idx {
        self.last
    }

    /// The move before the last one.
    #[inline]
    pub fn last_move2(&self) -> Idx {
        self.last2
    }

    /// Moves played on this board (passes included).
    #[inline]
    pub fn move_count(&self) -> u32 {
        self.moves
    }

    /// Number of empty points.
    #[inline]
    pub fn empty_count(&self) -> usize {
        self.board.empty_count()
    }

    /// The `k`-th empty point (`k < empty_count()`).
    #[inline]
    pub fn empty_at(&self, k: usize) -> Idx {
        ix(self.board.empty_at(k))
    }

    /// Head (representative) of the chain through stone `i`; PASS for an empty point.
    #[inline]
    pub fn chain(&self, i: Idx) -> Idx {
        self.board.chain_id(pt(i)).map_or(PASS, ix)
    }

    /// Number of stones of the chain through `i`.
    #[inline]
    pub fn chain_size(&self, i: Idx) -> usize {
        self.board.chain_len(pt(i))
    }

    /// The stones of the chain through `i`.
    pub fn chain_stones(&self, i: Idx) -> impl Iterator<Item = Idx> + '_ {
        self.board.chain_stones(pt(i)).map(ix)
    }

    /// Whether the chain through stone `i` has exactly one liberty.
    #[inline]
    pub fn in_atari(&self, i: Idx) -> bool {
        self.board.liberty_count(pt(i)) == 1
    }

    /// The single liberty of a chain in atari (PASS otherwise).
    #[inline]
    pub fn atari_liberty(&self, i: Idx) -> Idx {
        self.board.atari_liberty(pt(i)).map_or(PASS, ix)
    }

    /// Counts the distinct liberties of the chain through `i`, stopping at `cap`.
    #[inline]
    pub fn liberties_upto(&self, i: Idx, cap: usize) -> usize {
        self.board.liberty_count(pt(i)).min(cap)
    }

    /// Liberty count of the chain through `i` (exact; 0 exactly when it has no liberty).
    #[inline]
    pub fn pseudo_liberties(&self, i: Idx) -> u16 {
        self.board.liberty_count(pt(i)) as u16
    }

    /// Whether `i` is an empty point surrounded by `c` as a real-looking eye (for playouts).
    #[inline]
    pub fn is_eye(&self, i: Idx, c: Colour) -> bool {
        self.board.is_eye(pt(i), c.lib())
    }

    /// Whether the stone `c` at empty `i` would be legal ignoring superko: empty point, not the
    /// simple-ko point, and not suicide unless `suicide` allows it.
    pub fn is_legal(&self, i: Idx, c: Colour, suicide: SuicidePolicy) -> bool {
        if i == PASS {
            return true;
        }
        if !self.on_board(i) || !self.is_empty(i) || i == self.ko() {
            return false;
        }
        if self.has_liberty_after(i, c) {
            return true;
        }
        match suicide {
            SuicidePolicy::Forbidden => false,
            SuicidePolicy::Allowed => true,
            SuicidePolicy::MultiStone => {
                self.neighbours(i).iter().any(|&n| self.stone(n) == Some(c))
            }
        }
    }

    /// Whether a stone `c` at empty `i` has a liberty after its captures (i.e. is not suicide).
    #[inline]
    pub fn has_liberty_after(&self, i: Idx, c: Colour) -> bool {
        self.board.has_liberty_after(pt(i), c.lib())
    }

    /// Whether playing `c` at `i` would capture at least one enemy chain.
    #[inline]
    pub fn captures_something(&self, i: Idx, c: Colour) -> bool {
        self.board.captures_any(pt(i), c.lib())
    }

    /// The hash the stones would have after `c` plays at `i` (captures and suicide included),
    /// without playing it.
    pub fn hash_after(&self, i: Idx, c: Colour) -> u64 {
        if i == PASS {
            return self.hash();
        }
        self.board
            .probe(pt(i), c.lib())
            .map_or(self.hash(), |pr| pr.hash)
    }

    /// Plays `c` at the empty point `i` for reading (ladders): recorded so that
    /// [`FastBoard::undo_read`] takes it back exactly. The side to move, passes and last moves
    /// are left as they are; every such play must be undone before the board is used on.
    #[inline]
    pub fn play_read(&mut self, i: Idx, c: Colour) {
        let out = self.board.play(pt(i), c.lib());
        debug_assert!(out.is_ok(), "reading play on a non-empty point");
    }

    /// Takes back the last [`FastBoard::play_read`].
    #[inline]
    pub fn undo_read(&mut self) {
        let undone = self.board.undo();
        debug_assert!(undone.is_some(), "undo_read without a reading play");
    }

    /// Whether `c` at `i` is a board play that is not suicide and does not retake the
    /// simple ko (superko aside).
    #[inline]
    pub fn is_simple_legal(&self, i: Idx, c: Colour) -> bool {
        self.board.is_simple_legal(pt(i), c.lib())
    }

    /// Forgets consecutive passes (to play on from a finished position).
    pub fn reset_passes(&mut self) {
        self.passes = 0;
    }

    /// Plays a pass for the side to move.
    pub fn pass(&mut self) {
        self.board.clear_ko();
        self.passes += 1;
        self.last2 = self.last;
        self.last = PASS;
        self.moves += 1;
        self.to_move = self.to_move.opp();
    }

    /// Plays `c` at `i` (or passes when `i == PASS`) without checking legality beyond what the
    /// caller did; resolves captures and suicide. Returns the number of stones captured.
    pub fn play(&mut self, i: Idx, c: Colour) -> u32 {
        if i == PASS {
            self.to_move = c;
            self.pass();
            return 0;
        }
        let out = self.board.play_unrecorded(pt(i), c.lib());
        debug_assert!(out.is_ok(), "play on a non-empty point");
        self.passes = 0;
        self.last2 = self.last;
        self.last = i;
        self.moves += 1;
        self.to_move = c.opp();
        out.map_or(0, |o| o.captured)
    }

    /// Puts a stone as a set-up stone (handicap, SGF `AB`/`AW`): no captures, no move history.
    pub fn setup(&mut self, i: Idx, c: Colour) {
        if self.on_board(i) && self.is_empty(i) {
            // Cannot fail: the point is on the board.
            let _ = self.board.set(pt(i), Some(c.lib()));
        }
    }

    /// Area score (stones plus empty regions reached by one colour only), Black minus White,
    /// without komi: every stone on the board counts as alive.
    pub fn area_score(&self) -> i32 {
        let (b, w) = self.area_counts();
        b as i32 - w as i32
    }

    /// Stones plus solely-surrounded empty points for Black and for White, stones as they stand.
    pub fn area_counts(&self) -> (u32, u32) {
        let mut b = 0u32;
        let mut w = 0u32;
        let mut reach = [false; MAX_CELLS];
        let mut stack: Vec<Idx> = Vec::new();
        for i in self.points() {
            match self.cell(i) {
                1 => b += 1,
                2 => w += 1,
                _ => {
                    if reach[i as usize] {
                        continue;
                    }
                    let mut touches = 0u8;
                    let mut region = 0u32;
                    stack.clear();
                    stack.push(i);
                    reach[i as usize] = true;
                    while let Some(p) = stack.pop() {
                        region += 1;
                        for n in self.neighbours(p) {
                            match self.cell(n) {
                                0 if !reach[n as usize] => {
                                    reach[n as usize] = true;
                                    stack.push(n);
                                }
                                v @ (1 | 2) => touches |= v,
                                _ => {}
                            }
                        }
                    }
                    match touches {
                        1 => b += region,
                        2 => w += region,
                        _ => {}
                    }
                }
            }
        }
        (b, w)
    }

    /// Fast area score for a finished playout: stones plus single-point eyes.
    pub fn playout_area_score(&self) -> i32 {
        let mut s = 0i32;
        for i in self.points() {
            match self.cell(i) {
                1 => s += 1,
                2 => s -= 1,
                _ => match self.touching(i) {
                    1 => s += 1,
                    2 => s -= 1,
                    _ => {}
                },
            }
        }
        s
    }

    /// Stones of each colour on the board (Black, White).
    pub fn stone_counts(&self) -> (u32, u32) {
        (
            self.board.stone_count(Color::Black) as u32,
            self.board.stone_count(Color::White) as u32,
        )
    }

    /// An ASCII picture, row 0 on top (`X` black, `O` white, `.` empty).
    pub fn render(&self) -> String {
        let mut s = String::new();
        for y in 0..self.height {
            for x in 0..self.width {
                s.push(match self.cell(self.idx(x, y)) {
                    1 => 'X',
                    2 => 'O',
                    _ => '.',
                });
            }
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(b: &mut FastBoard, x: usize, y: usize, c: Colour) -> u32 {
        let i = b.idx(x, y);
        assert!(b.is_legal(i, c, SuicidePolicy::Forbidden), "{x},{y}");
        b.play(i, c)
    }

    #[test]
    fn indices_are_the_library_points_with_rows_from_the_top() {
        for (w, h) in [(9, 9), (19, 19), (7, 5), (25, 25)] {
            let b = FastBoard::new(w, h);
            assert_eq!(b.points().count(), w * h);
            for y in 0..h {
                for x in 0..w {
                    let i = b.idx(x, y);
                    assert_eq!(b.xy(i), (x, y));
                    let p = Point::new(x as u32, (h - 1 - y) as u32);
                    assert_eq!(i as usize, p.index());
                    assert_eq!(b.cell(i), 0);
                    let on: Vec<Idx> = b
                        .neighbours(i)
                        .into_iter()
                        .filter(|&n| b.on_board(n))
                        .collect();
                    let lib: Vec<Idx> = b.lib().neighbours(p).map(ix).collect();
                    assert_eq!(on.len(), lib.len());
                    assert!(on.iter().all(|n| lib.contains(n)));
                    for d in b.diagonals(i) {
                        assert!((d as usize) < MAX_CELLS);
                    }
                }
            }
            assert!(!b.on_board(PASS));
        }
    }

    #[test]
    fn corner_stone_is_captured_by_two_stones() {
        let mut b = FastBoard::new(9, 9);
        put(&mut b, 0, 0, Colour::Black);
        put(&mut b, 1, 0, Colour::White);
        assert!(b.in_atari(b.idx(0, 0)));
        assert_eq!(b.atari_liberty(b.idx(0, 0)), b.idx(0, 1));
        assert_eq!(put(&mut b, 0, 1, Colour::White), 1);
        assert!(b.is_empty(b.idx(0, 0)));
        assert_eq!(b.captures(Colour::White), 1);
        assert_eq!(b.empty_count(), 79);
    }

    #[test]
    fn simple_ko_forbids_immediate_recapture() {
        // . X O .
        // X O . O
        // . X O .
        let mut b = FastBoard::new(5, 5);
        for (x, y, c) in [
            (1, 0, Colour::Black),
            (0, 1, Colour::Black),
            (1, 2, Colour::Black),
            (2, 0, Colour::White),
            (3, 1, Colour::White),
            (2, 2, Colour::White),
            (1, 1, Colour::White),
        ] {
            put(&mut b, x, y, c);
        }
        assert_eq!(put(&mut b, 2, 1, Colour::Black), 1);
        assert_eq!(b.ko(), b.idx(1, 1));
        assert!(!b.is_legal(b.idx(1, 1), Colour::White, SuicidePolicy::Forbidden));
        let before = b.hash();
        b.pass();
        assert_eq!(b.hash(), before);
        assert!(b.is_legal(b.idx(1, 1), Colour::White, SuicidePolicy::Forbidden));
    }

    #[test]
    fn hash_after_matches_play_including_captures() {
        let mut b = FastBoard::new(9, 9);
        let mut rng = baduk_rng::Rng::new(5);
        for _ in 0..300 {
            let c = b.to_move();
            let legal: Vec<Idx> = b
                .points()
                .filter(|&i| b.is_legal(i, c, SuicidePolicy::Allowed))
                .collect();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len())];
            let h = b.hash_after(m, c);
            b.play(m, c);
            assert_eq!(h, b.hash());
            // Pseudo-liberty bookkeeping agrees with an exact count.
            for p in b.points() {
                if b.stone(p).is_some() {
                    let exact = b.liberties_upto(p, 1000);
                    assert!(exact >= 1);
                    assert_eq!(b.in_atari(p), exact == 1);
                }
            }
        }
    }

    #[test]
    fn multi_stone_suicide_removes_the_chain() {
        // White at (1,0) and (0,1)... build: black chain (0,0),(1,0) with white around.
        let mut b = FastBoard::new(5, 5);
        for (x, y, c) in [
            (0, 1, Colour::White),
            (1, 1, Colour::White),
            (2, 0, Colour::White),
            (0, 0, Colour::Black),
        ] {
            b.setup(b.idx(x, y), c);
        }
        let i = b.idx(1, 0);
        assert!(!b.is_legal(i, Colour::Black, SuicidePolicy::Forbidden));
        assert!(b.is_legal(i, Colour::Black, SuicidePolicy::MultiStone));
        b.play(i, Colour::Black);
        assert!(b.is_empty(b.idx(0, 0)) && b.is_empty(i));
        assert_eq!(b.captures(Colour::White), 2);
    }
}
