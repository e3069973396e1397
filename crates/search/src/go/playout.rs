//! The playout policy: answer ataris (without running from a working ladder), capture, attack
//! and defend chains with two liberties near the last move (ladder-read), follow local 3×3
//! shapes near the last move, else a random move that neither fills an own eye nor throws a
//! group into atari.

use super::board::{Colour, FastBoard, Idx, PASS};
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

/// Distinct liberties (capped at `cap`, at most 3) the chain of a `c` stone at empty `i` would
/// have: its empty neighbours, those of the own chains it joins, and the points of neighbouring
/// enemy stones it captures.
#[inline]
pub fn liberties_after_upto(b: &FastBoard, i: Idx, c: Colour, cap: usize) -> usize {
    debug_assert!((1..=3).contains(&cap));
    let mut libs: [Idx; 3] = [0; 3];
    let mut n = 0usize;
    let add = |p: Idx, libs: &mut [Idx; 3], n: &mut usize| {
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
    let mut libs = [PASS; 2];
    let mut n = 0;
    for st in b.chain_stones(s) {
        for l in b.neighbours(st) {
            if b.is_empty(l) && !libs[..n].contains(&l) {
                libs[n] = l;
                n += 1;
                if n == 2 {
                    return Some(libs);
                }
            }
        }
    }
    None
}

/// Chains with two liberties next to the last move `around`: ataris on enemy ones that capture
/// in a ladder, and for own ones that such an atari threatens, the liberty that gets them three
/// liberties.
pub fn two_liberty_moves(b: &mut FastBoard, around: Idx, c: Colour, out: &mut Vec<Idx>) {
    if around == PASS {
        return;
    }
    let mut pts = [around; 5];
    pts[1..].copy_from_slice(&b.neighbours(around));
    let mut seen = [PASS; 5];
    for (k, &p) in pts.iter().enumerate() {
        let Some(owner) = b.stone(p) else { continue };
        let head = b.chain(p);
        if seen[..k].contains(&head) {
            continue;
        }
        seen[k] = head;
        let Some(libs) = two_liberties(b, p) else {
            continue;
        };
        if owner != c {
            // Attack: an atari whose stone is not itself in atari, where the defender's
            // extension gets two liberties at most, read out as a ladder.
            for (j, &a) in libs.iter().enumerate() {
                let other = libs[1 - j];
                if !playable(b, a, c)
                    || liberties_after_upto(b, a, c, 2) < 2
                    || liberties_after_upto(b, other, owner, 3) > 2
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
                let other = libs[1 - j];
                playable(b, a, owner.opp())
                    && liberties_after_upto(b, other, owner, 3) <= 2
                    && is_working_ladder_atari(b, a, owner.opp(), PLAYOUT_LADDER_BUDGET)
            });
            if threatened {
                for &l in &libs {
                    if playable(b, l, c)
                        && liberties_after_upto(b, l, c, 3) >= 3
                        && !out.contains(&l)
                    {
                        out.push(l);
                    }
                }
            }
        }
    }
}

/// Chooses the playout move for the side to move (PASS when nothing sensible is left). With
/// `shapes`, the replies near the last move are the 3×3 shapes the model rates well above an
/// empty neighbourhood, drawn in proportion to their gammas; without, the fixed shape list.
/// With `ladders`, escapes into working ladders are skipped and one move in eight looks for
/// ladder ataris on (and defences of) two-liberty chains next to the last move; without, the
/// policy (and its use of `rng`) is the plain one.
pub fn choose(
    b: &mut FastBoard,
    rng: &mut Rng,
    buf: &mut Vec<Idx>,
    shapes: Option<&Model>,
    ladders: bool,
) -> Idx {
    let c = b.to_move();
    let last = b.last_move();
    if last != PASS {
        buf.clear();
        tactical_moves(b, last, c, buf, ladders);
        if !buf.is_empty() && rng.below(16) != 0 {
            let m = buf[rng.below(buf.len())];
            if !bad_self_atari(b, m, c) {
                return m;
            }
        }
        buf.clear();
        // Ladder reads cost undos that rebuild chains: one move in eight.
        if ladders && rng.below(8) == 0 {
            two_liberty_moves(b, last, c, buf);
            if !buf.is_empty() {
                let m = buf[rng.below(buf.len())];
                if !bad_self_atari(b, m, c) {
                    return m;
                }
            }
            buf.clear();
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
                        if g > floor && !bad_self_atari(b, p, c) {
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
                        && !bad_self_atari(b, p, c)
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
    random_move(b, c, rng)
}

/// A random legal move that fills no own eye and is no bad self-atari; PASS when none is left.
pub fn random_move(b: &FastBoard, c: Colour, rng: &mut Rng) -> Idx {
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
        if i == b.ko() || b.is_eye(i, c) || !b.has_liberty_after(i, c) || bad_self_atari(b, i, c) {
            continue;
        }
        return i;
    }
    PASS
}

/// Plays the position out to the end (two passes or a move cap) and returns the board.
/// `amaf` records, for each point, the colour that played there first (1 black, 2 white);
/// `shapes` and `ladders` as for [`choose`].
pub fn playout(
    b: &mut FastBoard,
    rng: &mut Rng,
    amaf: &mut [u8],
    buf: &mut Vec<Idx>,
    shapes: Option<&Model>,
    ladders: bool,
) {
    let cap = b.move_count() as usize + 3 * b.width() * b.height();
    while b.passes() < 2 && (b.move_count() as usize) < cap {
        let c = b.to_move();
        let m = choose(b, rng, buf, shapes, ladders);
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
                    for cap in 1..=3 {
                        assert_eq!(liberties_after_upto(&b, i, c, cap), want.min(cap));
                        checked += 1;
                    }
                }
                let m = choose(&mut b, &mut rng, &mut buf, None, true);
                if b.passes() >= 2 {
                    break;
                }
                b.play(m, c);
            }
        }
        assert!(checked > 10_000);
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
            playout(&mut b, &mut rng, &mut amaf, &mut buf, None, true);
            for p in b.points() {
                if b.stone(p).is_some() {
                    assert!(b.pseudo_liberties(p) > 0);
                }
            }
            assert!(b.empty_count() < 40);
        }
    }
}
