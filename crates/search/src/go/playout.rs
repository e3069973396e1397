//! The playout policy: answer ataris (without running from a working ladder), capture, attack
//! and defend chains with two liberties near the last move (ladder-read), follow local 3×3
//! shapes near the last move, else a random move that neither fills an own eye nor throws a
//! group into atari.

use super::board::{Colour, FastBoard, Idx, MAX_CELLS, PASS};
use super::ladder::{is_futile_escape, is_working_ladder_atari};
use super::patterns::{raw_shape, Model};
use baduk_rng::Rng;
use std::sync::OnceLock;

/// The 3×3 shapes (Mogo-style hane, cut and edge patterns), centre = the move. `X`/`O` are the
/// two colours (either may be to move), `x`/`o` "not X"/"not O", `.` empty, `?` anything, `#`
/// off the board.
const SHAPES: &[[&str; 3]] = &[
    ["XOX", "...", "???"], // hane enclosing
    ["XO.", "...", "?.?"], // hane, no cut
    ["XO?", "X..", "x.?"], // magari
    [".O.", "X..", "..."], // diagonal attachment
    ["XO?", "O.o", "?o?"], // unprotected cut
    ["XO?", "O.X", "???"], // peeped cut
    ["?X?", "O.O", "ooo"], // cut, second form
    ["OX?", "o.O", "???"], // keima cut
    ["X.?", "O.?", "###"], // edge: chase
    ["OX?", "X.O", "###"], // edge: block the cut
    ["?X?", "x.O", "###"], // edge: block the connection
    ["?XO", "x.x", "###"], // edge: sagari
    ["?OX", "X.O", "###"], // edge: cut
];

fn cell_matches(p: u8, v: u8) -> bool {
    // v: 0 empty, 1 black, 2 white, 3 edge.
    match p {
        b'X' => v == 1,
        b'O' => v == 2,
        b'x' => v != 1,
        b'o' => v != 2,
        b'.' => v == 0,
        b'#' => v == 3,
        _ => true,
    }
}

/// Order of the 8 neighbours in a pattern code: NW N NE W E SW S SE (2 bits each).
const RING: [(usize, usize); 8] = [
    (0, 0),
    (0, 1),
    (0, 2),
    (1, 0),
    (1, 2),
    (2, 0),
    (2, 1),
    (2, 2),
];

/// All 8 symmetries of every shape, both colour assignments, as 3×3 grids of pattern letters.
fn shape_grids() -> Vec<[[u8; 3]; 3]> {
    let mut grids: Vec<[[u8; 3]; 3]> = Vec::new();
    for s in SHAPES {
        let mut g = [[0u8; 3]; 3];
        for r in 0..3 {
            g[r].copy_from_slice(&s[r].as_bytes()[..3]);
        }
        for swap in [false, true] {
            let mut h = g;
            if swap {
                for row in h.iter_mut() {
                    for c in row.iter_mut() {
                        *c = match *c {
                            b'X' => b'O',
                            b'O' => b'X',
                            b'x' => b'o',
                            b'o' => b'x',
                            o => o,
                        };
                    }
                }
            }
            for sym in 0..8 {
                let mut t = [[0u8; 3]; 3];
                for (r, row) in t.iter_mut().enumerate() {
                    for (c, cell) in row.iter_mut().enumerate() {
                        let (mut rr, mut cc) = (r, c);
                        if sym & 1 != 0 {
                            cc = 2 - cc;
                        }
                        if sym & 2 != 0 {
                            rr = 2 - rr;
                        }
                        if sym & 4 != 0 {
                            std::mem::swap(&mut rr, &mut cc);
                        }
                        *cell = h[rr][cc];
                    }
                }
                grids.push(t);
            }
        }
    }
    grids
}

fn build_table() -> Vec<bool> {
    let grids = shape_grids();
    // Each grid allows a set of values on each ring cell: mark every code in their product
    // (a few thousand codes in all, instead of testing all 65,536 codes against every grid).
    let mut table = vec![false; 1 << 16];
    for g in &grids {
        let mut codes = vec![0usize];
        for (k, &(r, c)) in RING.iter().enumerate() {
            let allowed: Vec<usize> = (0..4u8)
                .filter(|&v| cell_matches(g[r][c], v))
                .map(usize::from)
                .collect();
            codes = codes
                .iter()
                .flat_map(|&code| allowed.iter().map(move |&v| code | (v << (2 * k))))
                .collect();
        }
        for code in codes {
            table[code] = true;
        }
    }
    table
}

fn table() -> &'static [bool] {
    static T: OnceLock<Vec<bool>> = OnceLock::new();
    T.get_or_init(build_table)
}

/// The 16-bit code of the 3×3 neighbourhood of `i`.
#[inline]
pub fn shape_code(b: &FastBoard, i: Idx) -> usize {
    let s = b.stride() as Idx;
    let ring = [
        i - s - 1,
        i - s,
        i - s + 1,
        i - 1,
        i + 1,
        i + s - 1,
        i + s,
        i + s + 1,
    ];
    let mut code = 0usize;
    for (k, &p) in ring.iter().enumerate() {
        code |= (b.cell(p) as usize) << (2 * k);
    }
    code
}

/// Whether an empty point matches one of the 3×3 shapes.
#[inline]
pub fn matches_shape(b: &FastBoard, i: Idx) -> bool {
    table()[shape_code(b, i)]
}

/// Distinct liberties (capped at 3) the chain of a `c` stone at empty `i` would have.
pub fn liberties_after(b: &FastBoard, i: Idx, c: Colour) -> usize {
    liberties_after_upto(b, i, c, 3)
}

/// Distinct liberties (capped at `cap`, at most 4) the chain of a `c` stone at empty `i` would
/// have: its empty neighbours, those of the own chains it joins, and the points of neighbouring
/// enemy stones it captures.
#[inline]
pub fn liberties_after_upto(b: &FastBoard, i: Idx, c: Colour, cap: usize) -> usize {
    debug_assert!((1..=4).contains(&cap));
    let mut libs: [Idx; 4] = [0; 4];
    let mut n = 0usize;
    let add = |p: Idx, libs: &mut [Idx; 4], n: &mut usize| {
        if p != i && !libs[..*n].contains(&p) {
            libs[*n] = p;
            *n += 1;
        }
    };
    let nbs = b.neighbours(i);
    for &nb in &nbs {
        if b.is_empty(nb) {
            add(nb, &mut libs, &mut n);
            if n >= cap {
                return cap;
            }
        } else if b.stone(nb) == Some(c) && b.pseudo_liberties(nb) as usize > cap {
            // Liberty counts are exact: this chain alone keeps `cap` liberties besides `i`.
            return cap;
        }
    }
    for &nb in &nbs {
        match b.stone(nb) {
            Some(s) if s == c => {
                for st in b.chain_stones(nb) {
                    for l in b.neighbours(st) {
                        if b.is_empty(l) {
                            add(l, &mut libs, &mut n);
                            if n >= cap {
                                return cap;
                            }
                        }
                    }
                }
            }
            Some(_) if b.in_atari(nb) => {
                // A capture frees at least this neighbour.
                add(nb, &mut libs, &mut n);
                if n >= cap {
                    return cap;
                }
            }
            _ => {}
        }
    }
    n
}

/// Whether `c` at `i` is a self-atari that loses more than a single stone.
#[inline]
pub fn bad_self_atari(b: &FastBoard, i: Idx, c: Colour) -> bool {
    let mut empties = 0;
    for nb in b.neighbours(i) {
        if b.is_empty(nb) {
            empties += 1;
        }
    }
    if empties >= 2 {
        return false;
    }
    if liberties_after_upto(b, i, c, 2) >= 2 {
        return false;
    }
    // A lone stone thrown in is fine (it may be a useful sacrifice); a group is not.
    b.neighbours(i).iter().any(|&n| b.stone(n) == Some(c))
}

/// Whether `c` may play at `i` in a playout: legal under simple ko without suicide.
#[inline]
fn playable(b: &FastBoard, i: Idx, c: Colour) -> bool {
    b.is_empty(i) && i != b.ko() && b.has_liberty_after(i, c)
}

/// Plays a ladder read may make in a playout (a read that runs out counts as "escapes").
pub const PLAYOUT_LADDER_BUDGET: u32 = 120;

/// The switchable tactics of the playout policy. All off is the plain policy: the same moves,
/// and the same use of the random generator, as before any of them existed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Escapes into working ladders are skipped and one move in eight looks for ladder ataris
    /// on (and defences of) two-liberty chains next to the last move.
    pub ladders: bool,
    /// The self-atari filter lets captures and nakade throw-ins through, and rejects the other
    /// self-ataris of chains of two stones or more fifteen times in sixteen (off: every such
    /// self-atari is rejected, captures and nakade included).
    pub self_atari: bool,
    /// Chains the last move left with two liberties: the owner gains liberties (or captures a
    /// neighbour in atari), the attacker plays the atari that captures in a ladder.
    pub two_lib: bool,
    /// The vital point of a killable eye space (three cells, pyramid four, bulky and crossed
    /// five, rabbity six) next to the last move, surrounded by its colour (attack).
    pub nakade: bool,
    /// A ko the side to move holds (its stone in atari from the move before, the retake
    /// point surrounded by its stones) is connected when the opponent played elsewhere.
    pub ko: bool,
}

impl Policy {
    /// Only ladder reading (what the `ladders` flag of the plain policy meant).
    pub fn ladders(ladders: bool) -> Policy {
        Policy {
            ladders,
            ..Policy::default()
        }
    }
}

/// Moves that capture an enemy chain in atari next to `around` or save an own chain there
/// (with `ladders`, an extension that only runs into a working ladder is left out).
pub fn tactical_moves(
    b: &mut FastBoard,
    around: Idx,
    c: Colour,
    out: &mut Vec<Idx>,
    ladders: bool,
) {
    if around == PASS {
        return;
    }
    let mut pts = [around; 5];
    pts[1..].copy_from_slice(&b.neighbours(around));
    for &p in &pts {
        match b.stone(p) {
            Some(s) if s != c && b.in_atari(p) => {
                let l = b.atari_liberty(p);
                if playable(b, l, c) && !out.contains(&l) {
                    out.push(l);
                }
            }
            Some(s) if s == c && b.in_atari(p) => save_moves(b, p, c, out, ladders),
            _ => {}
        }
    }
}

/// Ways to save the `c` chain through `p`, which is in atari: capture an attacker in atari, or
/// extend when that gives two liberties or more (with `ladders`: three, or two that no ladder
/// takes).
pub fn save_moves(b: &mut FastBoard, p: Idx, c: Colour, out: &mut Vec<Idx>, ladders: bool) {
    for st in b.chain_stones(p) {
        for n in b.neighbours(st) {
            if b.stone(n) == Some(c.opp()) && b.in_atari(n) {
                let l = b.atari_liberty(n);
                if playable(b, l, c) && !out.contains(&l) {
                    out.push(l);
                }
            }
        }
    }
    let l = b.atari_liberty(p);
    if !ladders {
        if playable(b, l, c) && liberties_after_upto(b, l, c, 2) >= 2 && !out.contains(&l) {
            out.push(l);
        }
        return;
    }
    if playable(b, l, c) && !out.contains(&l) {
        match liberties_after_upto(b, l, c, 3) {
            3 => out.push(l),
            2 if !is_futile_escape(b, l, c, PLAYOUT_LADDER_BUDGET) => out.push(l),
            _ => {}
        }
    }
}

/// The two liberties of the chain through `s`, if it has exactly two.
fn two_liberties(b: &FastBoard, s: Idx) -> Option<[Idx; 2]> {
    if b.pseudo_liberties(s) != 2 {
        return None;
    }
    // The first empty neighbour met, then the first one that differs from it.
    let mut first = PASS;
    for st in b.chain_stones(s) {
        for l in b.neighbours(st) {
            if b.cell(l) == 0 {
                if first == PASS {
                    first = l;
                } else if l != first {
                    return Some([first, l]);
                }
            }
        }
    }
    None
}

/// [`liberties_after_upto`] for the owner of the chain through `s` extending at `libs[j]`,
/// when `libs` are exactly that chain's two liberties: the chain itself adds only its other
/// liberty, so it is not walked (only the other chains the extension joins are).
fn extension_liberties(b: &FastBoard, s: Idx, libs: [Idx; 2], j: usize, cap: usize) -> usize {
    debug_assert!((2..=4).contains(&cap));
    let i = libs[j];
    let own = b.cell(s);
    let mut set: [Idx; 4] = [libs[1 - j], PASS, PASS, PASS];
    let mut n = 1usize;
    let nbs = b.neighbours(i);
    // Empty neighbours (distinct points; only the other liberty may be counted already), and
    // an own chain that alone keeps `cap` liberties (not the chain itself: it has two).
    for &nb in &nbs {
        let v = b.cell(nb);
        if v == 0 {
            if nb != set[0] {
                set[n] = nb;
                n += 1;
                if n >= cap {
                    return cap;
                }
            }
        } else if v == own && b.pseudo_liberties(nb) as usize > cap {
            return cap;
        }
    }
    let head = b.chain(s);
    for &nb in &nbs {
        let v = b.cell(nb);
        let extra = if v == own && b.chain(nb) != head {
            // The liberties of another own chain joined (capped: it has at most `cap`).
            for st in b.chain_stones(nb) {
                for l in b.neighbours(st) {
                    if b.cell(l) == 0 && l != i && !set[..n].contains(&l) {
                        set[n] = l;
                        n += 1;
                        if n >= cap {
                            return cap;
                        }
                    }
                }
            }
            continue;
        } else if (v == 1 || v == 2) && v != own && b.in_atari(nb) {
            // A capture frees at least this neighbour.
            nb
        } else {
            continue;
        };
        if !set[..n].contains(&extra) {
            set[n] = extra;
            n += 1;
            if n >= cap {
                return cap;
            }
        }
    }
    n
}

/// The distinct chains with exactly two liberties through `around` and its neighbours: a
/// stone of each, its colour and its two liberties (at most five).
fn two_liberty_chains(b: &FastBoard, around: Idx) -> ([(Idx, Colour, [Idx; 2]); 5], usize) {
    let mut found = [(PASS, Colour::Black, [PASS; 2]); 5];
    let mut heads = [PASS; 5];
    let mut n = 0;
    if around == PASS {
        return (found, 0);
    }
    let nbs = b.neighbours(around);
    for p in [around, nbs[0], nbs[1], nbs[2], nbs[3]] {
        // The liberty count first (exact, and 0 off stones): most chains are skipped at once.
        let owner = match b.stone(p) {
            Some(o) if b.pseudo_liberties(p) == 2 => o,
            _ => continue,
        };
        let head = b.chain(p);
        if heads[..n].contains(&head) {
            continue;
        }
        if let Some(libs) = two_liberties(b, p) {
            heads[n] = head;
            found[n] = (p, owner, libs);
            n += 1;
        }
    }
    (found, n)
}

/// Chains with two liberties next to the last move `around`: ataris on enemy ones that capture
/// in a ladder, and for own ones that such an atari threatens, the liberty that gets them three
/// liberties.
pub fn two_liberty_moves(b: &mut FastBoard, around: Idx, c: Colour, out: &mut Vec<Idx>) {
    let (chains, n) = two_liberty_chains(b, around);
    for &(p, owner, libs) in &chains[..n] {
        // The liberties the chain's escape at `libs[1 - j]` keeps once the other side has
        // played `libs[j]` (the count before it includes `libs[j]`).
        let escape = |b: &FastBoard, j: usize| extension_liberties(b, p, libs, 1 - j, 4) - 1;
        if owner != c {
            // Attack: an atari whose stone is not itself in atari, where the defender's
            // extension gets two liberties at most, read out as a ladder.
            for (j, &a) in libs.iter().enumerate() {
                if !playable(b, a, c)
                    || liberties_after_upto(b, a, c, 2) < 2
                    || escape(b, j) > 2
                    || out.contains(&a)
                {
                    continue;
                }
                if is_working_ladder_atari(b, a, c, PLAYOUT_LADDER_BUDGET) {
                    out.push(a);
                }
            }
        } else {
            // Defence: when the opponent has an atari that captures, take the liberty that
            // gives three.
            let threatened = libs.iter().enumerate().any(|(j, &a)| {
                playable(b, a, owner.opp())
                    && escape(b, j) <= 2
                    && is_working_ladder_atari(b, a, owner.opp(), PLAYOUT_LADDER_BUDGET)
            });
            if threatened {
                for (k, &l) in libs.iter().enumerate() {
                    if playable(b, l, c)
                        && extension_liberties(b, p, libs, k, 3) >= 3
                        && !out.contains(&l)
                    {
                        out.push(l);
                    }
                }
            }
        }
    }
}

/// Cells of a small set that are orthogonally adjacent to `p` (stride `s`).
fn degree(cells: &[Idx], p: Idx, s: Idx) -> usize {
    cells
        .iter()
        .filter(|&&q| q + 1 == p || p + 1 == q || q + s == p || p + s == q)
        .count()
}

/// Whether the cells hold a 2×2 square.
fn has_square(cells: &[Idx], s: Idx) -> bool {
    cells
        .iter()
        .any(|&p| [p + 1, p + s, p + s + 1].iter().all(|q| cells.contains(q)))
}

/// What a small connected region of cells (stride `s`) is as an eye space with no stone in it:
/// `Some(Some(v))` a shape one move at `v` kills (straight or bent three, pyramid four, bulky
/// or crossed five, rabbity six), `Some(None)` a shape that is one eye however it is played
/// (two cells, the square four), `None` anything else.
pub fn eye_shape(cells: &[Idx], s: Idx) -> Option<Option<Idx>> {
    let n = cells.len();
    let mut best = (0usize, PASS, 0usize);
    for &p in cells {
        let d = degree(cells, p, s);
        if d > best.0 {
            best = (d, p, 1);
        } else if d == best.0 {
            best.2 += 1;
        }
    }
    let (d, v, ties) = best;
    match n {
        2 => Some(None),
        3 => Some(Some(v)).filter(|_| d == 2 && ties == 1),
        4 if d == 3 => Some(Some(v)),
        4 if has_square(cells, s) => Some(None),
        5 if d == 4 => Some(Some(v)),
        5 if d == 3 && ties == 1 && has_square(cells, s) => Some(Some(v)),
        6 if d == 4 && ties == 1 && has_square(cells, s) => Some(Some(v)),
        _ => None,
    }
}

/// Whether `c` at `i` is a self-atari that fills an enemy eye space with a shape that is dead
/// once taken: the chain it makes (two to six stones, `i` included) touches only enemy stones
/// and its last liberty, that liberty touches only enemy stones and the chain, and the
/// chain's cells form a dead eye shape ([`eye_shape`]).
pub fn is_nakade_throw_in(b: &FastBoard, i: Idx, c: Colour) -> bool {
    let mut cells: [Idx; 6] = [PASS; 6];
    cells[0] = i;
    let mut n = 1usize;
    for nb in b.neighbours(i) {
        if b.stone(nb) == Some(c) && !cells[..n].contains(&nb) {
            if n + b.chain_size(nb) > 6 {
                return false;
            }
            for st in b.chain_stones(nb) {
                cells[n] = st;
                n += 1;
            }
        }
    }
    let cells = &cells[..n];
    let mut lib = PASS;
    for &st in cells {
        for nb in b.neighbours(st) {
            if cells.contains(&nb) || b.cell(nb) == 3 {
                continue;
            }
            match b.stone(nb) {
                Some(s) if s == c => return false,
                Some(_) => {}
                None if lib == PASS || lib == nb => lib = nb,
                None => return false,
            }
        }
    }
    // The last liberty must be inside the space too (no empty point beside it): filling
    // from the outside of a group that has room is no nakade.
    n >= 2
        && lib != PASS
        && b.neighbours(lib)
            .iter()
            .all(|&nb| cells.contains(&nb) || b.cell(nb) == 3 || b.stone(nb) == Some(c.opp()))
        && eye_shape(cells, b.stride() as Idx).is_some()
}

/// The self-atari filter: whether the playout should not play `c` at `i`. Without `policy`'s
/// `self_atari`, [`bad_self_atari`]; with it, a capture is never rejected, a lone stone or a
/// nakade throw-in neither, and any other self-atari fifteen times in sixteen.
#[inline]
pub fn rejects_self_atari(b: &FastBoard, i: Idx, c: Colour, policy: Policy, rng: &mut Rng) -> bool {
    if !policy.self_atari {
        return bad_self_atari(b, i, c);
    }
    if !bad_self_atari(b, i, c) || b.captures_something(i, c) || is_nakade_throw_in(b, i, c) {
        return false;
    }
    rng.below(16) != 0
}

/// Whether the empty point `i` can belong to a space of six cells or fewer that only `owner`
/// (cell code 1 or 2) and the edge surround, judged from its 3×3 block alone: the empty cells
/// joined to `i` inside the block (its empty neighbours, and the empty corners next to one of
/// those) are part of the space, so there are six at most and none touches the other colour.
/// Open space (seven empty cells or more in the block) fails after eight reads.
fn may_be_small_eye_space(b: &FastBoard, i: Idx, owner: u8) -> bool {
    let s = b.stride() as Idx;
    let enemy = 3 - owner;
    let (n, w, e, so) = (b.cell(i - s), b.cell(i - 1), b.cell(i + 1), b.cell(i + s));
    if n == enemy || w == enemy || e == enemy || so == enemy {
        return false;
    }
    let (n, w, e, so) = (n == 0, w == 0, e == 0, so == 0);
    let mut cells = 1 + n as u32 + w as u32 + e as u32 + so as u32;
    // A corner is joined when one of its two neighbours in the block is.
    for (q, joined) in [
        (i - s - 1, n || w),
        (i - s + 1, n || e),
        (i + s - 1, so || w),
        (i + s + 1, so || e),
    ] {
        if joined {
            match b.cell(q) {
                0 => cells += 1,
                v if v == enemy => return false,
                _ => {}
            }
        }
    }
    cells <= 6
}

/// The killing (or saving) point of an empty eye space through `start` that only `owner`'s
/// stones (and the edge) surround, if it is one of [`eye_shape`]'s killable shapes. Most
/// points are ruled out by their 3×3 neighbourhood alone ([`may_be_small_eye_space`]).
pub fn nakade_point(b: &FastBoard, start: Idx, owner: Colour) -> Option<Idx> {
    if !may_be_small_eye_space(b, start, owner as u8 + 1) {
        return None;
    }
    eye_space_vital_point(b, start, owner)
}

/// [`nakade_point`] by walking the space (at most seven cells) without the 3×3 test.
// The membership test over the fixed array stays an inlined loop: `contains` calls the
// out-of-line slice search, which was a third of this walk's cost in callgrind.
#[allow(clippy::manual_contains)]
fn eye_space_vital_point(b: &FastBoard, start: Idx, owner: Colour) -> Option<Idx> {
    let mut cells: [Idx; 7] = [PASS; 7];
    cells[0] = start;
    let mut n = 1usize;
    let mut k = 0usize;
    while k < n {
        let p = cells[k];
        k += 1;
        for nb in b.neighbours(p) {
            match b.cell(nb) {
                0 => {
                    // `nb` is a board point, never PASS: the unused cells cannot match it.
                    if !cells.iter().any(|&q| q == nb) {
                        if n == 6 {
                            return None;
                        }
                        cells[n] = nb;
                        n += 1;
                    }
                }
                3 => {}
                v if v == owner as u8 + 1 => {}
                _ => return None,
            }
        }
    }
    eye_shape(&cells[..n], b.stride() as Idx).flatten()
}

/// Vital points, for `c` to play, of the killable eye spaces next to the enemy stone
/// `around` that the enemy surrounds.
fn nakade_moves(b: &FastBoard, around: Idx, c: Colour, out: &mut Vec<Idx>) {
    let owner = c.opp();
    if around == PASS || b.stone(around) != Some(owner) {
        return;
    }
    for nb in b.neighbours(around) {
        if b.is_empty(nb) {
            if let Some(v) = nakade_point(b, nb, owner) {
                if playable(b, v, c) && !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }
}

/// The ko `c` holds through its stone at `p` (its move before the last): `p` a lone stone in
/// atari whose liberty only `c`'s stones (or the edge) surround otherwise, so that the
/// opponent would retake there; the connecting point, when `c` may play it with two
/// liberties or more.
pub fn ko_to_connect(b: &FastBoard, p: Idx, c: Colour) -> Option<Idx> {
    if p == PASS || b.stone(p) != Some(c) || b.chain_size(p) != 1 || !b.in_atari(p) {
        return None;
    }
    let k = b.atari_liberty(p);
    let surrounded = b
        .neighbours(k)
        .iter()
        .all(|&n| n == p || b.cell(n) == 3 || b.stone(n) == Some(c));
    (surrounded && playable(b, k, c) && liberties_after_upto(b, k, c, 2) >= 2).then_some(k)
}

/// Two-liberty tactics next to the last move `around` without a ladder read for the owner:
/// an own chain left with two liberties (when an enemy atari on it would leave its escape two
/// liberties or fewer) captures an adjacent enemy chain in atari or takes the liberty that
/// gives three; an enemy chain with two liberties is put in atari where the escape would be
/// left in atari, or (with `read`) left two liberties in a ladder that works.
pub fn two_lib_tactics(b: &mut FastBoard, around: Idx, c: Colour, out: &mut Vec<Idx>, read: bool) {
    let (chains, n) = two_liberty_chains(b, around);
    for &(p, owner, libs) in &chains[..n] {
        if owner == c {
            // An enemy stone on one liberty leaves the escape on the other (which counts the
            // first as a liberty now) two liberties or fewer.
            let ext = [
                extension_liberties(b, p, libs, 0, 4),
                extension_liberties(b, p, libs, 1, 4),
            ];
            if ext[0] > 3 && ext[1] > 3 {
                continue;
            }
            for st in b.chain_stones(p) {
                for n in b.neighbours(st) {
                    if b.stone(n) == Some(c.opp()) && b.in_atari(n) {
                        let l = b.atari_liberty(n);
                        if playable(b, l, c) && !out.contains(&l) {
                            out.push(l);
                        }
                    }
                }
            }
            for (k, &l) in libs.iter().enumerate() {
                if playable(b, l, c) && ext[k] >= 3 && !out.contains(&l) {
                    out.push(l);
                }
            }
        } else {
            for (j, &a) in libs.iter().enumerate() {
                if !playable(b, a, c) || liberties_after_upto(b, a, c, 2) < 2 || out.contains(&a) {
                    continue;
                }
                // The escape's liberties once `a` is taken (the count includes `a`).
                let escape = extension_liberties(b, p, libs, 1 - j, 4) - 1;
                if escape <= 1
                    || (escape == 2
                        && read
                        && is_working_ladder_atari(b, a, c, PLAYOUT_LADDER_BUDGET))
                {
                    out.push(a);
                }
            }
        }
    }
}

/// A move drawn from `buf` that the self-atari filter lets through, if any (one draw).
fn pick(b: &FastBoard, buf: &[Idx], c: Colour, policy: Policy, rng: &mut Rng) -> Option<Idx> {
    if buf.is_empty() {
        return None;
    }
    let m = buf[rng.below(buf.len())];
    (!rejects_self_atari(b, m, c, policy, rng)).then_some(m)
}

/// Last good replies with forgetting (Baier and Drake, "The Power of Forgetting", 2010; the
/// idea, not any program's code): for each colour, the reply that colour last played to a
/// move, and to a pair of moves, in a simulation it won; a loss forgets the replies it played.
#[derive(Clone, Debug, Default)]
pub struct Replies {
    /// The reply of each colour to each point (`PASS`: none), indexed `colour * MAX_CELLS + point`.
    best: Vec<Idx>,
    /// The reply of each colour to each pair of moves, indexed
    /// `(colour * MAX_CELLS + before) * MAX_CELLS + last`.
    best2: Vec<Idx>,
    /// The moves of the simulation under way, the move before it first.
    seq: Vec<(Colour, Idx)>,
}

impl Replies {
    /// No replies known (the tables, about 2 MB, are allocated by the first [`Replies::begin`]).
    pub fn new() -> Replies {
        Replies::default()
    }

    /// The reply `c` last won with after `prev` (`PASS`: none).
    #[inline]
    pub fn reply(&self, c: Colour, prev: Idx) -> Idx {
        self.best[c as usize * MAX_CELLS + prev as usize]
    }

    /// The reply `c` last won with after `before` then `prev` (`PASS`: none).
    #[inline]
    pub fn reply2(&self, c: Colour, before: Idx, prev: Idx) -> Idx {
        self.best2[(c as usize * MAX_CELLS + before as usize) * MAX_CELLS + prev as usize]
    }

    /// Starts a simulation after `before` then `last` (`PASS` where there was none), `last`
    /// played by `by`.
    pub fn begin(&mut self, by: Colour, before: Idx, last: Idx) {
        if self.best.is_empty() {
            self.best = vec![PASS; 2 * MAX_CELLS];
            self.best2 = vec![PASS; 2 * MAX_CELLS * MAX_CELLS];
        }
        self.seq.clear();
        self.seq.push((by.opp(), before));
        self.seq.push((by, last));
    }

    /// Notes a move of the simulation.
    #[inline]
    pub fn record(&mut self, c: Colour, m: Idx) {
        self.seq.push((c, m));
    }

    /// Learns from the simulation's result: the winner's replies are kept, the loser's
    /// forgotten.
    pub fn learn(&mut self, black_won: bool) {
        let winner = if black_won {
            Colour::Black
        } else {
            Colour::White
        };
        for w in self.seq.windows(3) {
            let ((_, before), (_, prev), (c, m)) = (w[0], w[1], w[2]);
            if prev == PASS || m == PASS {
                continue;
            }
            let k = c as usize * MAX_CELLS + prev as usize;
            // A pair with a pass in it has no two-move reply.
            let k2 = (before != PASS)
                .then(|| (c as usize * MAX_CELLS + before as usize) * MAX_CELLS + prev as usize);
            // The winner keeps its reply; the loser forgets it if it was the stored one.
            let won = c == winner;
            let update = |slot: &mut Idx| {
                if won {
                    *slot = m;
                } else if *slot == m {
                    *slot = PASS;
                }
            };
            update(&mut self.best[k]);
            if let Some(k2) = k2 {
                update(&mut self.best2[k2]);
            }
        }
    }
}

/// Chooses the playout move for the side to move (PASS when nothing sensible is left). With
/// `shapes`, the replies near the last move are the 3×3 shapes the model rates well above an
/// empty neighbourhood, drawn in proportion to their gammas; without, the fixed shape list.
/// `policy` switches the tactics on; with all of them off, the policy (and its use of `rng`)
/// is the plain one. In order: answers to ataris near the last move, the ko connection,
/// two-liberty tactics, ladder ataris (one move in eight), nakade, shapes, a random move.
/// With `replies`, the last good reply to the last two moves, then to the last move, comes first.
pub fn choose(
    b: &mut FastBoard,
    rng: &mut Rng,
    buf: &mut Vec<Idx>,
    shapes: Option<&Model>,
    policy: Policy,
    replies: Option<&Replies>,
) -> Idx {
    let c = b.to_move();
    let last = b.last_move();
    let ladders = policy.ladders;
    if last != PASS {
        if let Some(r) = replies {
            let before = b.last_move2();
            let two = if before != PASS {
                r.reply2(c, before, last)
            } else {
                PASS
            };
            for m in [two, r.reply(c, last)] {
                if m != PASS
                    && playable(b, m, c)
                    && !b.is_eye(m, c)
                    && !rejects_self_atari(b, m, c, policy, rng)
                {
                    return m;
                }
            }
        }
        buf.clear();
        tactical_moves(b, last, c, buf, ladders);
        if !buf.is_empty() && rng.below(16) != 0 {
            if let Some(m) = pick(b, buf, c, policy, rng) {
                return m;
            }
        }
        buf.clear();
        if policy.ko {
            if let Some(k) = ko_to_connect(b, b.last_move2(), c) {
                if rng.below(4) != 0 {
                    return k;
                }
            }
        }
        // A quarter of the moves (drawn first: the reads are the cost; seven in eight, until
        // 2026-12-03, cost about a quarter of the 19×19 rate for the same tactical-suite
        // score), reading ladders in a quarter of those.
        if policy.two_lib && rng.below(4) == 0 {
            let read = rng.below(4) == 0;
            two_lib_tactics(b, last, c, buf, read);
            if let Some(m) = pick(b, buf, c, policy, rng) {
                return m;
            }
            buf.clear();
        }
        // Ladder reads cost undos that rebuild chains: one move in eight.
        if ladders && rng.below(8) == 0 {
            two_liberty_moves(b, last, c, buf);
            if let Some(m) = pick(b, buf, c, policy, rng) {
                return m;
            }
            buf.clear();
        }
        // Half the time: attack the eye space the opponent's move just made. (Defending the
        // one the own move before it made, as until 2026-12-03, cost a tenth of the 19×19
        // rate and no tactical-suite point: the suite scored 131 without it, 123 with it.)
        if policy.nakade && rng.below(2) == 0 {
            nakade_moves(b, last, c, buf);
            if !buf.is_empty() {
                return buf[rng.below(buf.len())];
            }
        }
        let s = b.stride() as Idx;
        let ring = [
            last - s - 1,
            last - s,
            last - s + 1,
            last - 1,
            last + 1,
            last + s - 1,
            last + s,
            last + s + 1,
        ];
        match shapes {
            Some(m) => {
                let mut w = [0f32; 8];
                let mut total = 0f32;
                let floor = m.playout_shape_floor();
                for p in ring {
                    if b.is_empty(p) && playable(b, p, c) {
                        let g = m.shape_gamma(raw_shape(b, p, c));
                        if g > floor && !rejects_self_atari(b, p, c, policy, rng) {
                            w[buf.len()] = g;
                            total += g;
                            buf.push(p);
                        }
                    }
                }
                if !buf.is_empty() && rng.below(8) != 0 {
                    let mut x = rng.unit() as f32 * total;
                    for (k, &p) in buf.iter().enumerate() {
                        x -= w[k];
                        if x <= 0.0 {
                            return p;
                        }
                    }
                    return buf[buf.len() - 1];
                }
            }
            None => {
                let table = table();
                for p in ring {
                    if b.is_empty(p)
                        && table[shape_code(b, p)]
                        && playable(b, p, c)
                        && !rejects_self_atari(b, p, c, policy, rng)
                    {
                        buf.push(p);
                    }
                }
                if !buf.is_empty() && rng.below(8) != 0 {
                    return buf[rng.below(buf.len())];
                }
            }
        }
    }
    random_move(b, c, rng, policy)
}

/// A random legal move that fills no own eye and that the self-atari filter lets through;
/// PASS when none is left.
pub fn random_move(b: &FastBoard, c: Colour, rng: &mut Rng, policy: Policy) -> Idx {
    let n = b.empty_count();
    if n == 0 {
        return PASS;
    }
    let start = rng.below(n);
    for k in 0..n {
        let mut j = start + k;
        if j >= n {
            j -= n;
        }
        let i = b.empty_at(j);
        if i == b.ko()
            || b.is_eye(i, c)
            || !b.has_liberty_after(i, c)
            || rejects_self_atari(b, i, c, policy, rng)
        {
            continue;
        }
        return i;
    }
    PASS
}

/// Plays the position out to the end (two passes or a move cap) and returns the board.
/// `amaf` records, for each point, the colour that played there first (1 black, 2 white);
/// `shapes` and `policy` as for [`choose`].
/// With `replies`, their moves are tried first and every move is recorded in them.
pub fn playout(
    b: &mut FastBoard,
    rng: &mut Rng,
    amaf: &mut [u8],
    buf: &mut Vec<Idx>,
    shapes: Option<&Model>,
    policy: Policy,
    mut replies: Option<&mut Replies>,
) {
    let cap = b.move_count() as usize + 3 * b.width() * b.height();
    while b.passes() < 2 && (b.move_count() as usize) < cap {
        let c = b.to_move();
        let m = choose(b, rng, buf, shapes, policy, replies.as_deref());
        if let Some(r) = replies.as_deref_mut() {
            r.record(c, m);
        }
        if m == PASS {
            b.pass();
        } else {
            if amaf[m as usize] == 0 {
                amaf[m as usize] = c as u8 + 1;
            }
            b.play(m, c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table by brute force: every code tested against every grid of every shape.
    fn brute_force_table() -> Vec<bool> {
        let grids = shape_grids();
        (0..1usize << 16)
            .map(|code| {
                grids.iter().any(|g| {
                    RING.iter()
                        .enumerate()
                        .all(|(k, &(r, c))| cell_matches(g[r][c], ((code >> (2 * k)) & 3) as u8))
                })
            })
            .collect()
    }

    #[test]
    fn shape_table_marks_exactly_the_codes_some_shape_matches() {
        assert_eq!(build_table(), brute_force_table());
    }

    #[test]
    fn liberties_after_matches_a_plain_count_in_random_playouts() {
        // The count by sets: empty neighbours, empty neighbours of the own chains joined, and
        // enemy neighbours in atari (their point frees up), `i` itself excluded.
        fn by_sets(b: &FastBoard, i: Idx, c: Colour) -> usize {
            let mut libs = std::collections::BTreeSet::new();
            for n in b.neighbours(i) {
                match b.stone(n) {
                    None if b.is_empty(n) => {
                        libs.insert(n);
                    }
                    Some(s) if s == c => {
                        for st in b.chain_stones(n) {
                            libs.extend(b.neighbours(st).into_iter().filter(|&l| b.is_empty(l)));
                        }
                    }
                    Some(_) if b.in_atari(n) => {
                        libs.insert(n);
                    }
                    _ => {}
                }
            }
            libs.remove(&i);
            libs.len()
        }
        let mut rng = Rng::new(11);
        let mut buf = Vec::new();
        let mut checked = 0;
        for size in [5, 9, 13] {
            let mut b = FastBoard::new(size, size);
            for _ in 0..size * size * 2 {
                let c = b.to_move();
                for k in 0..b.empty_count() {
                    let i = b.empty_at(k);
                    let want = by_sets(&b, i, c);
                    for cap in 1..=4 {
                        assert_eq!(liberties_after_upto(&b, i, c, cap), want.min(cap));
                        checked += 1;
                    }
                }
                let m = choose(
                    &mut b,
                    &mut rng,
                    &mut buf,
                    None,
                    Policy::ladders(true),
                    None,
                );
                if b.passes() >= 2 {
                    break;
                }
                b.play(m, c);
            }
        }
        assert!(checked > 10_000);
    }

    /// Positions along random playouts with every tactic on (sizes 5 to 19), each handed to
    /// `check` before the next move is played.
    fn along_random_playouts(seed: u64, mut check: impl FnMut(&mut FastBoard)) {
        let mut rng = Rng::new(seed);
        let mut buf = Vec::new();
        for size in [5, 9, 13, 19] {
            let mut b = FastBoard::new(size, size);
            for _ in 0..size * size * 2 {
                check(&mut b);
                let c = b.to_move();
                let m = choose(&mut b, &mut rng, &mut buf, None, on(), None);
                if b.passes() >= 2 {
                    break;
                }
                b.play(m, c);
            }
        }
    }

    #[test]
    fn extension_liberties_match_the_general_count() {
        let mut checked = 0;
        along_random_playouts(12, |b| {
            for p in b.points().collect::<Vec<_>>() {
                let (Some(c), Some(libs)) = (b.stone(p), two_liberties(b, p)) else {
                    continue;
                };
                for j in 0..2 {
                    for cap in 2..=4 {
                        let want = liberties_after_upto(b, libs[j], c, cap);
                        assert_eq!(extension_liberties(b, p, libs, j, cap), want);
                        checked += 1;
                    }
                }
            }
        });
        assert!(checked > 5_000, "{checked}");
    }

    #[test]
    fn the_three_by_three_test_never_hides_a_vital_point() {
        let (mut found, mut skipped) = (0, 0);
        along_random_playouts(13, |b| {
            for i in b.points().filter(|&i| b.is_empty(i)).collect::<Vec<_>>() {
                for owner in [Colour::Black, Colour::White] {
                    let full = eye_space_vital_point(b, i, owner);
                    assert_eq!(nakade_point(b, i, owner), full);
                    found += full.is_some() as u32;
                    skipped += !may_be_small_eye_space(b, i, owner as u8 + 1) as u32;
                }
            }
        });
        assert!(found > 100 && skipped > 10_000, "{found} {skipped}");
    }

    #[test]
    fn shape_table_knows_the_hane() {
        // X O X over an empty row: the point under O is an enclosing hane for either colour.
        let mut b = FastBoard::new(9, 9);
        b.setup(b.idx(3, 3), Colour::Black);
        b.setup(b.idx(4, 3), Colour::White);
        b.setup(b.idx(5, 3), Colour::Black);
        assert!(matches_shape(&b, b.idx(4, 4)));
        assert!(!matches_shape(&b, b.idx(0, 8)));
    }

    #[test]
    fn playout_policy_captures_a_chain_in_atari() {
        let mut b = FastBoard::new(9, 9);
        b.setup(b.idx(4, 4), Colour::White);
        b.setup(b.idx(3, 4), Colour::Black);
        b.setup(b.idx(5, 4), Colour::Black);
        b.set_to_move(Colour::Black);
        b.play(b.idx(4, 3), Colour::Black);
        b.play(b.idx(0, 0), Colour::White);
        let mut out = Vec::new();
        let at = b.idx(4, 5);
        tactical_moves(&mut b, at, Colour::Black, &mut out, true);
        assert_eq!(out, vec![b.idx(4, 5)]);
    }

    #[test]
    fn playouts_end_and_leave_no_chain_without_liberties() {
        let mut rng = Rng::new(3);
        let mut amaf = vec![0u8; super::super::board::MAX_CELLS];
        let mut buf = Vec::new();
        for _ in 0..20 {
            let mut b = FastBoard::new(9, 9);
            amaf.iter_mut().for_each(|a| *a = 0);
            playout(
                &mut b,
                &mut rng,
                &mut amaf,
                &mut buf,
                None,
                Policy::ladders(true),
                None,
            );
            for p in b.points() {
                if b.stone(p).is_some() {
                    assert!(b.pseudo_liberties(p) > 0);
                }
            }
            assert!(b.empty_count() < 40);
        }
    }

    fn board(rows: &[&str]) -> FastBoard {
        FastBoard::from_rows(rows)
    }

    /// Whether Black at `i` puts a chain of two stones or more in atari without capturing.
    fn plain_self_atari(b: &FastBoard, i: Idx) -> bool {
        bad_self_atari(b, i, Colour::Black) && !b.captures_something(i, Colour::Black)
    }

    fn on() -> Policy {
        Policy {
            ladders: true,
            self_atari: true,
            two_lib: true,
            nakade: true,
            ko: true,
        }
    }

    #[test]
    fn the_self_atari_filter_never_rejects_a_capture() {
        // Black A1 captures White A2 but is left in atari itself (three stones, liberty A2):
        // the old filter rejects it, the new one lets it through every time.
        let b = board(&[
            ".....", //
            ".....", //
            "XO...", //
            "OXO..", //
            ".XO..",
        ]);
        let i = b.idx(0, 4);
        assert!(b.captures_something(i, Colour::Black));
        assert!(
            bad_self_atari(&b, i, Colour::Black),
            "the old filter rejects it"
        );
        let mut rng = Rng::new(1);
        for _ in 0..200 {
            assert!(!rejects_self_atari(&b, i, Colour::Black, on(), &mut rng));
        }
    }

    #[test]
    fn the_self_atari_filter_rejects_a_plain_group_self_atari_mostly() {
        // Black B2 joins B1 into a two-stone chain whose one liberty, B3, opens outwards: no
        // nakade, rejected fifteen times in sixteen (always by the old filter).
        let b = board(&[
            ".....", //
            ".....", //
            ".....", //
            "O.O..", //
            "OXO..",
        ]);
        let i = b.idx(1, 3);
        assert!(plain_self_atari(&b, i));
        assert!(!is_nakade_throw_in(&b, i, Colour::Black));
        let mut rng = Rng::new(2);
        let rejected = (0..160)
            .filter(|_| rejects_self_atari(&b, i, Colour::Black, on(), &mut rng))
            .count();
        assert!((130..160).contains(&rejected), "{rejected}/160");
        assert!(rejects_self_atari(
            &b,
            i,
            Colour::Black,
            Policy::default(),
            &mut rng
        ));
    }

    #[test]
    fn a_nakade_throw_in_passes_the_filter() {
        // Black's square inside White's six-point space: D3 makes a bulky five in atari at
        // D2, dead once captured.
        let b = board(&[
            "OOOOO", //
            "OXX.O", //
            "OXX.O", //
            "OOOOO", //
            ".....",
        ]);
        let i = b.idx(3, 2);
        assert!(plain_self_atari(&b, i));
        assert!(is_nakade_throw_in(&b, i, Colour::Black));
        let mut rng = Rng::new(3);
        for _ in 0..100 {
            assert!(!rejects_self_atari(&b, i, Colour::Black, on(), &mut rng));
        }
        // A U-shaped five (alive once captured: two eyes) is no nakade.
        let u = board(&[
            "OOOOO", //
            "OX..O", //
            "OXXXO", //
            "OOOOO", //
            ".....",
        ]);
        let j = u.idx(3, 1);
        assert!(bad_self_atari(&u, j, Colour::Black));
        assert!(!is_nakade_throw_in(&u, j, Colour::Black));
    }

    #[test]
    fn the_vital_point_of_every_killable_eye_shape_is_found() {
        // Each eye space is White's (a wall of O) in a 7×7 board's corner area; `*` marks the
        // vital point, `.` the other cells of the space.
        let cases: &[&[&str]] = &[
            // straight three
            &["OOOOO", "O.*.O", "OOOOO"],
            // bent three
            &["OOOO", "O*.O", "O.OO", "OOO."],
            // pyramid four
            &["OOOOO", "O.*.O", "OO.OO", "OOOO."],
            // bulky five
            &["OOOOO", "O..OO", "O.*.O", "OOOOO"],
            // crossed five
            &["OOOOO", "OO.OO", "O.*.O", "OO.OO", "OOOOO"],
            // rabbity six
            &["OOOOO", "OO.OO", "O.*.O", "OO..O", "OOOOO"],
        ];
        for rows in cases {
            let clean: Vec<String> = rows.iter().map(|r| r.replace('*', ".")).collect();
            let refs: Vec<&str> = clean.iter().map(|r| r.as_str()).collect();
            let b = board(&refs);
            let (mut vital, mut start) = (PASS, PASS);
            for (y, r) in rows.iter().enumerate() {
                for (x, ch) in r.bytes().enumerate() {
                    if ch == b'*' {
                        vital = b.idx(x, y);
                    }
                    if ch == b'.' && start == PASS && y < rows.len() - 1 {
                        start = b.idx(x, y);
                    }
                }
            }
            assert_eq!(
                nakade_point(&b, start, Colour::White),
                Some(vital),
                "{rows:?}"
            );
            // The policy finds it after White's last move on the wall, for Black (attack).
            let mut out = Vec::new();
            let wall = b.neighbours(vital).into_iter().chain(b.neighbours(start));
            let wall: Vec<Idx> = wall
                .filter(|&n| b.stone(n) == Some(Colour::White))
                .collect();
            nakade_moves(&b, wall[0], Colour::Black, &mut out);
            assert_eq!(out, vec![vital], "{rows:?}");
        }
        // Alive shapes have no vital point: straight four, bent four, a six-cell rectangle.
        for rows in [
            &["OOOOOO", "O....O", "OOOOOO"][..],
            &["OOOO.", "O..OO", "OO..O", "OOOOO"][..],
            &["OOOOO", "O...O", "O...O", "OOOOO"][..],
        ] {
            let b = board(rows);
            assert_eq!(
                nakade_point(&b, b.idx(1, 1), Colour::White),
                None,
                "{rows:?}"
            );
        }
        // A space touching a black stone is not White's eye space.
        let b = board(&["OOOOO", "O...X", "OOOOO"]);
        assert_eq!(nakade_point(&b, b.idx(1, 1), Colour::White), None);
    }

    #[test]
    fn the_two_liberty_defender_extends_to_three_liberties() {
        // White E4 leaves Black's D4 D3 with two liberties, C3 and E3; an atari at E3 would
        // leave the escape at C3 two liberties: Black takes E3 and three liberties.
        let mut b = board(&[
            ".......", //
            ".......", //
            "...O...", //
            "..OX...", //
            ".O.X...", //
            "...O...", //
            ".......",
        ]);
        b.set_to_move(Colour::White);
        b.play(b.idx(4, 3), Colour::White);
        let c = Colour::Black;
        assert_eq!(b.pseudo_liberties(b.idx(3, 3)), 2);
        let mut out = Vec::new();
        let last = b.last_move();
        two_lib_tactics(&mut b, last, c, &mut out, true);
        assert_eq!(out, vec![b.idx(4, 4)]);
        b.play(out[0], c);
        assert!(b.liberties_upto(b.idx(3, 3), 3) >= 3);
    }

    #[test]
    fn the_two_liberty_attacker_plays_the_atari_that_ladders() {
        // White D4 has two liberties, D5 and E4. The atari at D5 drives it out at E4 with two
        // liberties into a working ladder; the atari at E4 lets it out with three. `top` is
        // the board's top row (a ladder breaker or not).
        fn attack(top: &str) -> (FastBoard, Vec<Idx>) {
            let rows = [
                top, ".......", ".......", "..X....", "...XX..", ".......", ".......",
            ];
            let mut b = board(&rows);
            b.set_to_move(Colour::White);
            b.play(b.idx(3, 3), Colour::White);
            let mut out = Vec::new();
            let last = b.last_move();
            two_lib_tactics(&mut b, last, Colour::Black, &mut out, true);
            (b, out)
        }
        let (b, out) = attack(".......");
        assert_eq!(out, vec![b.idx(3, 2)]);
        // A breaker on the ladder's path (a white stone up and to the right) stops it.
        let (mut b, out) = attack("......O");
        let atari = b.idx(3, 2);
        let worked = is_working_ladder_atari(&mut b, atari, Colour::Black, PLAYOUT_LADDER_BUDGET);
        assert_eq!(out.contains(&atari), worked);
    }

    #[test]
    fn the_ladder_rule_reads_the_atari_whose_escape_gets_two_liberties() {
        // The position of the test above: the atari at D5 leaves White's escape at E4 two
        // liberties and the ladder works; at E4 the escape gets three. The liberty count of
        // the escape once counted the atari point, and no such atari was ever read.
        let mut b = board(&[
            ".......", ".......", ".......", "..X....", "...XX..", ".......", ".......",
        ]);
        b.set_to_move(Colour::White);
        b.play(b.idx(3, 3), Colour::White);
        let mut out = Vec::new();
        let last = b.last_move();
        two_liberty_moves(&mut b, last, Colour::Black, &mut out);
        assert_eq!(out, vec![b.idx(3, 2)]);
        // White to defend (Black's last move elsewhere) takes a liberty that gives three
        // (before the fix the threat was never seen and nothing came back).
        b.play(b.idx(6, 6), Colour::Black);
        let mut out = Vec::new();
        let near = b.idx(3, 3);
        two_liberty_moves(&mut b, near, Colour::White, &mut out);
        assert!(out.contains(&b.idx(4, 3)), "{out:?}");
        for &l in &out {
            assert!(liberties_after_upto(&b, l, Colour::White, 3) >= 3);
        }
    }

    #[test]
    fn the_policy_connects_a_ko_it_holds() {
        // . X O .
        // X O . O
        // . X O .   Black takes the ko at C2; White plays elsewhere; Black connects at B2.
        let mut b = board(&[
            ".XO..", //
            "XO.O.", //
            ".XO..", //
            ".....", //
            ".....",
        ]);
        b.play(b.idx(2, 1), Colour::Black);
        assert_eq!(b.ko(), b.idx(1, 1));
        b.play(b.idx(4, 4), Colour::White);
        assert_eq!(
            ko_to_connect(&b, b.last_move2(), Colour::Black),
            Some(b.idx(1, 1))
        );
        let mut rng = Rng::new(4);
        let mut buf = Vec::new();
        let connects = (0..40)
            .filter(|_| choose(&mut b, &mut rng, &mut buf, None, on(), None) == b.idx(1, 1))
            .count();
        assert!(connects >= 20, "{connects}/40");
        // White, to move right after the capture, cannot retake (simple ko).
        let mut w = board(&[
            ".XO..", //
            "XO.O.", //
            ".XO..", //
            ".....", //
            ".....",
        ]);
        w.play(w.idx(2, 1), Colour::Black);
        for _ in 0..40 {
            assert_ne!(
                choose(&mut w, &mut rng, &mut buf, None, on(), None),
                w.idx(1, 1)
            );
        }
    }

    #[test]
    fn playouts_with_every_tactic_on_end_with_no_chain_without_liberties() {
        let mut amaf = vec![0u8; super::super::board::MAX_CELLS];
        let mut buf = Vec::new();
        let mut rng = Rng::new(9);
        for size in [9, 13, 19] {
            for _ in 0..5 {
                let mut b = FastBoard::new(size, size);
                playout(&mut b, &mut rng, &mut amaf, &mut buf, None, on(), None);
                for p in b.points() {
                    if b.stone(p).is_some() {
                        assert!(b.pseudo_liberties(p) > 0);
                    }
                }
                assert!(b.empty_count() < size * size / 2);
            }
        }
    }

    #[test]
    fn last_good_replies_keep_the_winners_and_forget_the_losers() {
        let b = FastBoard::new(9, 9);
        let (p, q, r, t) = (b.idx(2, 2), b.idx(6, 6), b.idx(2, 6), b.idx(6, 2));
        let mut lg = Replies::new();
        // White played p, then Black q, White r, Black t.
        let simulate = |lg: &mut Replies, black_won: bool| {
            lg.begin(Colour::White, PASS, p);
            for (c, m) in [(Colour::Black, q), (Colour::White, r), (Colour::Black, t)] {
                lg.record(c, m);
            }
            lg.learn(black_won);
        };
        simulate(&mut lg, true);
        assert_eq!(lg.reply(Colour::Black, p), q);
        assert_eq!(lg.reply(Colour::Black, r), t);
        assert_eq!(lg.reply2(Colour::Black, q, r), t);
        assert_eq!(
            lg.reply(Colour::White, q),
            PASS,
            "the loser's replies are not kept"
        );
        // The same moves lost by Black: its replies are forgotten.
        simulate(&mut lg, false);
        assert_eq!(lg.reply(Colour::Black, p), PASS);
        assert_eq!(lg.reply2(Colour::Black, q, r), PASS);
        assert_eq!(lg.reply(Colour::White, q), r);
    }

    #[test]
    fn a_playout_plays_a_stored_reply_only_where_it_is_legal() {
        let mut b = FastBoard::new(9, 9);
        let (p, q) = (b.idx(4, 4), b.idx(2, 6));
        let mut lg = Replies::new();
        lg.begin(Colour::White, PASS, PASS);
        lg.record(Colour::Black, p);
        lg.record(Colour::White, q);
        lg.learn(false);
        b.play(p, Colour::Black);
        let pick = |b: &FastBoard, seed: u64, replies: Option<&Replies>| {
            let mut buf = Vec::new();
            let mut rng = Rng::new(seed);
            choose(
                &mut b.clone(),
                &mut rng,
                &mut buf,
                None,
                Policy::default(),
                replies,
            )
        };
        assert_eq!(
            pick(&b, 3, Some(&lg)),
            q,
            "White's reply to the centre is played"
        );
        // With the reply point taken, the policy chooses as without replies.
        let mut c = FastBoard::new(9, 9);
        c.play(q, Colour::Black);
        c.play(b.idx(0, 0), Colour::White);
        c.play(p, Colour::Black);
        let (with, without) = (pick(&c, 5, Some(&lg)), pick(&c, 5, None));
        assert_eq!(with, without);
        assert_ne!(with, q);
    }
}
