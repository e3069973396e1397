//! The bot's own fast position: a padded array with chains kept as circular lists and
//! pseudo-liberties (count, sum, sum of squares) so that captures and ataris cost O(1) to
//! detect. It is the search's scratch board, not the rules authority: the rules library decides
//! what is legal at the root, and this board follows the same rules data inside the tree.

/// Largest board side the bot plays on.
pub const MAX_SIDE: usize = 25;
/// Cells of the padded array for the largest board.
pub const MAX_CELLS: usize = (MAX_SIDE + 2) * (MAX_SIDE + 2);

/// A cell index of the padded array; 0 is never on the board and stands for "pass / none".
pub type Idx = u16;
/// The pass move (and "no point").
pub const PASS: Idx = 0;

const EMPTY: u8 = 0;
const EDGE: u8 = 3;

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

    #[inline]
    fn cell(self) -> u8 {
        self as u8 + 1
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

const fn splitmix(mut s: u64) -> (u64, u64) {
    s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn zobrist_table() -> [[u64; MAX_CELLS]; 2] {
    let mut t = [[0u64; MAX_CELLS]; 2];
    let mut s = 0x0BAD_0C0F_FEE0_u64;
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < MAX_CELLS {
            let (ns, z) = splitmix(s);
            s = ns;
            t[c][i] = z;
            i += 1;
        }
        c += 1;
    }
    t
}

static ZOBRIST: [[u64; MAX_CELLS]; 2] = zobrist_table();
/// Hash key xor-ed in when White is to move (situational superko).
pub const ZOBRIST_WHITE_TO_MOVE: u64 = 0x5DEE_CE66_D1CE_4E5B;

/// A Go position for search: stones, chains, pseudo-liberties, captures, simple-ko point, hash.
#[derive(Clone)]
pub struct FastBoard {
    width: usize,
    height: usize,
    stride: usize,
    cells: [u8; MAX_CELLS],
    next: [Idx; MAX_CELLS],
    head: [Idx; MAX_CELLS],
    size: [u16; MAX_CELLS],
    plib: [u16; MAX_CELLS],
    lsum: [u32; MAX_CELLS],
    lsq: [u64; MAX_CELLS],
    empties: [Idx; MAX_CELLS],
    empty_pos: [u16; MAX_CELLS],
    n_empty: usize,
    hash: u64,
    ko: Idx,
    to_move: Colour,
    /// Stones captured by Black (index 0) and White (index 1).
    captures: [u32; 2],
    passes: u32,
    last: Idx,
    last2: Idx,
    moves: u32,
}

impl FastBoard {
    /// An empty `width`×`height` board with Black to move; sides must be in `1..=MAX_SIDE`.
    pub fn new(width: usize, height: usize) -> FastBoard {
        let width = width.clamp(1, MAX_SIDE);
        let height = height.clamp(1, MAX_SIDE);
        let stride = width + 2;
        let mut b = FastBoard {
            width,
            height,
            stride,
            cells: [EDGE; MAX_CELLS],
            next: [0; MAX_CELLS],
            head: [0; MAX_CELLS],
            size: [0; MAX_CELLS],
            plib: [0; MAX_CELLS],
            lsum: [0; MAX_CELLS],
            lsq: [0; MAX_CELLS],
            empties: [0; MAX_CELLS],
            empty_pos: [0; MAX_CELLS],
            n_empty: 0,
            hash: 0,
            ko: PASS,
            to_move: Colour::Black,
            captures: [0; 2],
            passes: 0,
            last: PASS,
            last2: PASS,
            moves: 0,
        };
        for y in 0..height {
            for x in 0..width {
                let i = b.idx(x, y);
                b.cells[i as usize] = EMPTY;
                b.empty_pos[i as usize] = b.n_empty as u16;
                b.empties[b.n_empty] = i;
                b.n_empty += 1;
            }
        }
        b
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
        self.stride
    }

    /// The index of column `x`, row `y` (0-based from the top-left).
    #[inline]
    pub fn idx(&self, x: usize, y: usize) -> Idx {
        ((y + 1) * self.stride + x + 1) as Idx
    }

    /// Column and row of an on-board index.
    #[inline]
    pub fn xy(&self, i: Idx) -> (usize, usize) {
        let i = i as usize;
        (i % self.stride - 1, i / self.stride - 1)
    }

    /// Whether `i` is a point of the board.
    #[inline]
    pub fn on_board(&self, i: Idx) -> bool {
        (i as usize) < MAX_CELLS && self.cells[i as usize] != EDGE
    }

    /// Every on-board index, row by row.
    pub fn points(&self) -> impl Iterator<Item = Idx> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| self.idx(x, y)))
    }

    /// The four orthogonal neighbours (some may be off the board).
    #[inline]
    pub fn neighbours(&self, i: Idx) -> [Idx; 4] {
        let s = self.stride as Idx;
        [i - s, i - 1, i + 1, i + s]
    }

    /// The four diagonal neighbours (some may be off the board).
    #[inline]
    pub fn diagonals(&self, i: Idx) -> [Idx; 4] {
        let s = self.stride as Idx;
        [i - s - 1, i - s + 1, i + s - 1, i + s + 1]
    }

    /// Who owns point `i` when a playout ends: +1 Black, −1 White (a stone, or an empty point
    /// touching only that colour), 0 for an empty point touching both or neither.
    pub fn owner_at(&self, i: Idx) -> f32 {
        match self.stone(i) {
            Some(Colour::Black) => 1.0,
            Some(Colour::White) => -1.0,
            None => {
                let mut t = 0u8;
                for nb in self.neighbours(i) {
                    if let Some(s) = self.stone(nb) {
                        t |= s as u8 + 1;
                    }
                }
                match t {
                    1 => 1.0,
                    2 => -1.0,
                    _ => 0.0,
                }
            }
        }
    }

    /// The stone at `i`, if any.
    #[inline]
    pub fn stone(&self, i: Idx) -> Option<Colour> {
        match self.cells[i as usize] {
            1 => Some(Colour::Black),
            2 => Some(Colour::White),
            _ => None,
        }
    }

    /// Raw cell code: 0 empty, 1 black, 2 white, 3 off board.
    #[inline]
    pub fn cell(&self, i: Idx) -> u8 {
        self.cells[i as usize]
    }

    /// Whether `i` is an empty board point.
    #[inline]
    pub fn is_empty(&self, i: Idx) -> bool {
        self.cells[i as usize] == EMPTY
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
        self.hash
    }

    /// The hash including the side to move (situational superko).
    #[inline]
    pub fn situational_hash(&self) -> u64 {
        match self.to_move {
            Colour::Black => self.hash,
            Colour::White => self.hash ^ ZOBRIST_WHITE_TO_MOVE,
        }
    }

    /// The simple-ko point (where an immediate single-stone recapture is forbidden), if any.
    #[inline]
    pub fn ko(&self) -> Idx {
        self.ko
    }

    /// Stones captured by `c` so far.
    #[inline]
    pub fn captures(&self, c: Colour) -> u32 {
        self.captures[c.index()]
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
        self.n_empty
    }

    /// The `k`-th empty point (`k < empty_count()`).
    #[inline]
    pub fn empty_at(&self, k: usize) -> Idx {
        self.empties[k]
    }

    /// Head (representative) of the chain through stone `i`.
    #[inline]
    pub fn chain(&self, i: Idx) -> Idx {
        self.head[i as usize]
    }

    /// Number of stones of the chain through `i`.
    #[inline]
    pub fn chain_size(&self, i: Idx) -> usize {
        self.size[self.head[i as usize] as usize] as usize
    }

    /// The stones of the chain through `i`.
    pub fn chain_stones(&self, i: Idx) -> impl Iterator<Item = Idx> + '_ {
        let start = i;
        let mut cur = Some(i);
        std::iter::from_fn(move || {
            let c = cur?;
            let n = self.next[c as usize];
            cur = if n == start { None } else { Some(n) };
            Some(c)
        })
    }

    /// Whether the chain through stone `i` has exactly one liberty.
    #[inline]
    pub fn in_atari(&self, i: Idx) -> bool {
        let h = self.head[i as usize] as usize;
        let p = self.plib[h] as u64;
        let s = self.lsum[h] as u64;
        p > 0 && s * s == self.lsq[h] * p
    }

    /// The single liberty of a chain in atari (meaningless otherwise).
    #[inline]
    pub fn atari_liberty(&self, i: Idx) -> Idx {
        let h = self.head[i as usize] as usize;
        (self.lsum[h] / self.plib[h] as u32) as Idx
    }

    /// Counts the distinct liberties of the chain through `i`, stopping at `cap`.
    pub fn liberties_upto(&self, i: Idx, cap: usize) -> usize {
        if self.plib[self.head[i as usize] as usize] == 0 {
            return 0;
        }
        if self.in_atari(i) {
            return 1.min(cap);
        }
        let mut seen: Vec<Idx> = Vec::with_capacity(8);
        for s in self.chain_stones(i) {
            for nb in self.neighbours(s) {
                if self.cells[nb as usize] == EMPTY && !seen.contains(&nb) {
                    seen.push(nb);
                    if seen.len() >= cap {
                        return cap;
                    }
                }
            }
        }
        seen.len()
    }

    /// Pseudo-liberty count of the chain through `i` (0 exactly when it has no liberty).
    #[inline]
    pub fn pseudo_liberties(&self, i: Idx) -> u16 {
        self.plib[self.head[i as usize] as usize]
    }

    /// Whether `i` is an empty point surrounded by `c` as a real-looking eye (for playouts).
    pub fn is_eye(&self, i: Idx, c: Colour) -> bool {
        let cc = c.cell();
        for n in self.neighbours(i) {
            let v = self.cells[n as usize];
            if v != cc && v != EDGE {
                return false;
            }
        }
        let mut bad = 0;
        let mut edge = false;
        for d in self.diagonals(i) {
            let v = self.cells[d as usize];
            if v == EDGE {
                edge = true;
            } else if v != cc && v != EMPTY {
                bad += 1;
            }
        }
        if edge {
            bad == 0
        } else {
            bad < 2
        }
    }

    /// Whether the stone `c` at empty `i` would be legal ignoring superko: empty point, not the
    /// simple-ko point, and not suicide unless `suicide` allows it.
    pub fn is_legal(&self, i: Idx, c: Colour, suicide: SuicidePolicy) -> bool {
        if i == PASS {
            return true;
        }
        if !self.on_board(i) || self.cells[i as usize] != EMPTY || i == self.ko {
            return false;
        }
        if self.has_liberty_after(i, c) {
            return true;
        }
        match suicide {
            SuicidePolicy::Forbidden => false,
            SuicidePolicy::Allowed => true,
            SuicidePolicy::MultiStone => self
                .neighbours(i)
                .iter()
                .any(|&n| self.cells[n as usize] == c.cell()),
        }
    }

    /// Whether a stone `c` at empty `i` has a liberty after its captures (i.e. is not suicide).
    #[inline]
    pub fn has_liberty_after(&self, i: Idx, c: Colour) -> bool {
        let cc = c.cell();
        for n in self.neighbours(i) {
            let v = self.cells[n as usize];
            if v == EMPTY {
                return true;
            }
            if v == EDGE {
                continue;
            }
            let atari = self.in_atari(n);
            if v == cc {
                if !atari {
                    return true;
                }
            } else if atari {
                return true;
            }
        }
        false
    }

    /// Whether playing `c` at `i` would capture at least one enemy chain.
    #[inline]
    pub fn captures_something(&self, i: Idx, c: Colour) -> bool {
        let oc = c.opp().cell();
        self.neighbours(i)
            .iter()
            .any(|&n| self.cells[n as usize] == oc && self.in_atari(n))
    }

    /// The hash the stones would have after `c` plays at `i` (captures and suicide included),
    /// without playing it.
    pub fn hash_after(&self, i: Idx, c: Colour) -> u64 {
        if i == PASS {
            return self.hash;
        }
        let mut h = self.hash ^ ZOBRIST[c.index()][i as usize];
        let oc = c.opp().cell();
        let mut done: [Idx; 4] = [0; 4];
        let mut nd = 0;
        let mut captured = false;
        for n in self.neighbours(i) {
            if self.cells[n as usize] == oc && self.in_atari(n) {
                let hd = self.head[n as usize];
                if done[..nd].contains(&hd) {
                    continue;
                }
                done[nd] = hd;
                nd += 1;
                captured = true;
                for s in self.chain_stones(n) {
                    h ^= ZOBRIST[c.opp().index()][s as usize];
                }
            }
        }
        if !captured && !self.has_liberty_after(i, c) {
            // Suicide: the new stone and its friendly neighbours vanish.
            h ^= ZOBRIST[c.index()][i as usize];
            let mut nd = 0;
            let mut done: [Idx; 4] = [0; 4];
            for n in self.neighbours(i) {
                if self.cells[n as usize] == c.cell() {
                    let hd = self.head[n as usize];
                    if done[..nd].contains(&hd) {
                        continue;
                    }
                    done[nd] = hd;
                    nd += 1;
                    for s in self.chain_stones(n) {
                        h ^= ZOBRIST[c.index()][s as usize];
                    }
                }
            }
        }
        h
    }

    /// Forgets consecutive passes (to play on from a finished position).
    pub fn reset_passes(&mut self) {
        self.passes = 0;
    }

    /// Plays a pass for the side to move.
    pub fn pass(&mut self) {
        self.ko = PASS;
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
        debug_assert!(self.is_empty(i));
        let cc = c.cell();
        let oc = c.opp().cell();
        self.place(i, c);
        let mut captured = 0u32;
        let mut last_captured = PASS;
        for n in self.neighbours(i) {
            let v = self.cells[n as usize];
            if v == cc {
                let a = self.head[n as usize];
                let b = self.head[i as usize];
                if a != b {
                    self.merge(a, b);
                }
            }
        }
        for n in self.neighbours(i) {
            if self.cells[n as usize] == oc && self.plib[self.head[n as usize] as usize] == 0 {
                let k = self.remove_chain(n);
                captured += k;
                last_captured = n;
            }
        }
        self.captures[c.index()] += captured;
        self.ko = PASS;
        if captured == 1 && self.size[self.head[i as usize] as usize] == 1 && self.in_atari(i) {
            self.ko = last_captured;
        }
        if self.plib[self.head[i as usize] as usize] == 0 {
            let k = self.remove_chain(i);
            self.captures[c.opp().index()] += k;
        }
        self.passes = 0;
        self.last2 = self.last;
        self.last = i;
        self.moves += 1;
        self.to_move = c.opp();
        captured
    }

    /// Puts a stone without captures bookkeeping of the move history (setup stones, handicap).
    pub fn setup(&mut self, i: Idx, c: Colour) {
        if !self.on_board(i) || !self.is_empty(i) {
            return;
        }
        let tm = self.to_move;
        let (last, last2, moves, passes, caps) = (
            self.last,
            self.last2,
            self.moves,
            self.passes,
            self.captures,
        );
        self.play(i, c);
        self.to_move = tm;
        self.last = last;
        self.last2 = last2;
        self.moves = moves;
        self.passes = passes;
        self.captures = caps;
        self.ko = PASS;
    }

    fn place(&mut self, i: Idx, c: Colour) {
        let iu = i as usize;
        self.cells[iu] = c.cell();
        self.hash ^= ZOBRIST[c.index()][iu];
        // Remove from the empty list.
        let pos = self.empty_pos[iu] as usize;
        self.n_empty -= 1;
        let moved = self.empties[self.n_empty];
        self.empties[pos] = moved;
        self.empty_pos[moved as usize] = pos as u16;
        self.head[iu] = i;
        self.next[iu] = i;
        self.size[iu] = 1;
        self.plib[iu] = 0;
        self.lsum[iu] = 0;
        self.lsq[iu] = 0;
        for n in self.neighbours(i) {
            let v = self.cells[n as usize];
            if v == EMPTY {
                self.add_lib(i, n);
            } else if v != EDGE {
                let h = self.head[n as usize] as usize;
                self.plib[h] -= 1;
                self.lsum[h] -= i as u32;
                self.lsq[h] -= (i as u64) * (i as u64);
            }
        }
    }

    #[inline]
    fn add_lib(&mut self, chain_stone: Idx, lib: Idx) {
        let h = self.head[chain_stone as usize] as usize;
        self.plib[h] += 1;
        self.lsum[h] += lib as u32;
        self.lsq[h] += (lib as u64) * (lib as u64);
    }

    fn merge(&mut self, a: Idx, b: Idx) {
        // Relabel the smaller chain into the larger.
        let (big, small) = if self.size[a as usize] >= self.size[b as usize] {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small;
        loop {
            self.head[s as usize] = big;
            s = self.next[s as usize];
            if s == small {
                break;
            }
        }
        let (bu, su) = (big as usize, small as usize);
        self.next.swap(bu, su);
        self.size[bu] += self.size[su];
        self.plib[bu] += self.plib[su];
        self.lsum[bu] += self.lsum[su];
        self.lsq[bu] += self.lsq[su];
    }

    fn remove_chain(&mut self, any: Idx) -> u32 {
        let c = self.cells[any as usize];
        let ci = (c - 1) as usize;
        let mut count = 0;
        let mut s = any;
        loop {
            let su = s as usize;
            let nxt = self.next[su];
            self.cells[su] = EMPTY;
            self.hash ^= ZOBRIST[ci][su];
            self.empty_pos[su] = self.n_empty as u16;
            self.empties[self.n_empty] = s;
            self.n_empty += 1;
            count += 1;
            s = nxt;
            if s == any {
                break;
            }
        }
        // Give liberties back to the neighbouring chains.
        let mut s = any;
        loop {
            for n in self.neighbours(s) {
                let v = self.cells[n as usize];
                if v != EMPTY && v != EDGE {
                    self.add_lib(n, s);
                }
            }
            let nxt = self.next[s as usize];
            self.head[s as usize] = 0;
            s = nxt;
            if s == any {
                break;
            }
        }
        count
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
        let mut reach = [0u8; MAX_CELLS];
        let mut stack: Vec<Idx> = Vec::new();
        let mut region: Vec<Idx> = Vec::new();
        for i in self.points() {
            match self.cells[i as usize] {
                1 => b += 1,
                2 => w += 1,
                _ => {
                    if reach[i as usize] != 0 {
                        continue;
                    }
                    let mut touches = 0u8;
                    stack.clear();
                    region.clear();
                    stack.push(i);
                    reach[i as usize] = 4;
                    while let Some(p) = stack.pop() {
                        region.push(p);
                        for n in self.neighbours(p) {
                            match self.cells[n as usize] {
                                EMPTY if reach[n as usize] == 0 => {
                                    reach[n as usize] = 4;
                                    stack.push(n);
                                }
                                1 => touches |= 1,
                                2 => touches |= 2,
                                _ => {}
                            }
                        }
                    }
                    match touches {
                        1 => b += region.len() as u32,
                        2 => w += region.len() as u32,
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
            match self.cells[i as usize] {
                1 => s += 1,
                2 => s -= 1,
                _ => {
                    let mut t = 0u8;
                    for n in self.neighbours(i) {
                        let v = self.cells[n as usize];
                        if v == 1 || v == 2 {
                            t |= v;
                        }
                    }
                    if t == 1 {
                        s += 1;
                    } else if t == 2 {
                        s -= 1;
                    }
                }
            }
        }
        s
    }

    /// Stones of each colour on the board (Black, White).
    pub fn stone_counts(&self) -> (u32, u32) {
        let mut b = 0;
        let mut w = 0;
        for i in self.points() {
            match self.cells[i as usize] {
                1 => b += 1,
                2 => w += 1,
                _ => {}
            }
        }
        (b, w)
    }

    /// An ASCII picture, row 0 on top (`X` black, `O` white, `.` empty).
    pub fn render(&self) -> String {
        let mut s = String::new();
        for y in 0..self.height {
            for x in 0..self.width {
                s.push(match self.cells[self.idx(x, y) as usize] {
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
