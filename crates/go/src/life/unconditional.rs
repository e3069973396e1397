//! Unconditional status in GNU Go's sense: Benson's pass-alive chains, plus the opponent
//! stones that are unconditionally dead and the territory they stand in.
//!
//! For one colour `c` (the opponent is `o`) on a scratch copy of the board:
//!
//! 1. `o` may play any number of moves in a row. Every chain of `c` that `o` can capture by
//!    filling its liberties (one sweep over them, then the last one even if it retakes a ko) is
//!    removed, and the sweep repeats until nothing more falls. What is left cannot be captured.
//!    Two-stone chains standing alone (no other stone of `c` in their 3×3 neighbourhoods, and
//!    away from the edge) are kept out of this step: they may be the inside of a seki.
//! 2. If nothing is left, nothing is settled for `c`.
//! 3. `o` fills the liberties of the surviving chains wherever legal, then extends its own
//!    chains in atari while that is not suicide.
//! 4. A two-stone chain of step 1 whose eye shape lets `o` build a connected diagonal pair
//!    inside (the shape where `o` would live in seki rather than die) gets a third stone of `c`,
//!    which breaks the seki shape; then `o` fills the liberties of those chains.
//! 5. Each `o` chain with exactly two adjacent liberties plays one of them (the one leaving `c`
//!    the more open point, then `o` the more liberties).
//! 6. The surviving chains of `c` are alive and their liberties are `c`'s territory; every `o`
//!    chain in atari and its liberty are territory too. Mapped back to the real board, a stone
//!    of `o` on territory is dead.
//!
//! This is GNU Go 3.8's `unconditional_status` (engine/unconditional.c), re-derived from its
//! documented algorithm; the two colours are run White first, then Black, and Black's verdict
//! wins where they overlap (as GNU Go's does).

use super::benson::Benson;
use crate::board::Board;
use crate::point::{Color, Point};
use crate::scoring::PointSet;

/// GNU Go's unconditional status of every point: alive chains, and each colour's territory
/// (empty points and the opponent's dead stones on it).
pub fn unconditional(board: &Board) -> Benson {
    let mut out = Benson {
        alive: PointSet::new(),
        territory: [PointSet::new(); 2],
    };
    let order = gnugo_order(board);
    let mut work = board.clone();
    work.clear_undo();
    for c in [Color::White, Color::Black] {
        let marks = one_colour(&mut work, &order, c);
        for &p in &order {
            if !marks.contains(p) {
                continue;
            }
            match board.get(p) {
                Some(s) if s == c => {
                    out.alive.insert(p);
                    out.territory[c.opponent().index()].remove(p);
                }
                _ => {
                    out.territory[c.index()].insert(p);
                    out.territory[c.opponent().index()].remove(p);
                    out.alive.remove(p);
                }
            }
        }
    }
    out
}

/// The board's points top row first, left to right (GNU Go's scan order).
fn gnugo_order(board: &Board) -> Vec<Point> {
    let size = board.size();
    let mut v: Vec<Point> = size.points().collect();
    v.sort_by_key(|p| (std::cmp::Reverse(p.y()), p.x()));
    v
}

/// Plays `c` at `p` if it is empty, not suicide and not a simple-ko retake.
fn try_play(b: &mut Board, p: Point, c: Color) -> bool {
    if b.is_empty(p) && b.is_simple_legal(p, c) {
        b.play(p, c).is_ok()
    } else {
        false
    }
}

/// Takes back recorded plays until `depth` remain.
fn undo_to(b: &mut Board, depth: usize) {
    while b.undo_depth() > depth {
        b.undo();
    }
}

/// Liberties `c` would have after playing the empty point `p`, ignoring captures, up to 4.
fn approx_libs(b: &Board, p: Point, c: Color) -> usize {
    let mut libs: [Option<Point>; 4] = [None; 4];
    let mut n = 0;
    let mut add = |q: Point, n: &mut usize| {
        if q != p && *n < 4 && !libs[..*n].contains(&Some(q)) {
            libs[*n] = Some(q);
            *n += 1;
        }
    };
    for q in b.neighbours(p) {
        match b.get(q) {
            None => add(q, &mut n),
            Some(s) if s == c => {
                for l in b.liberties(q) {
                    add(l, &mut n);
                }
            }
            Some(_) => {}
        }
    }
    n
}

/// GNU Go's analysis for colour `c`; returns the marked points (alive stones and territory,
/// to be read against the original board). Leaves `b` as it found it.
fn one_colour(b: &mut Board, order: &[Point], c: Color) -> PointSet {
    let o = c.opponent();
    let base = b.undo_depth();
    let mut marks = PointSet::new();

    // Lone two-stone chains that may hold a seki inside.
    let mut seki = PointSet::new();
    let size = b.size();
    for &p in order {
        if b.get(p) != Some(c) || b.chain_len(p) != 2 || seki.contains(p) {
            continue;
        }
        let isolated = b.chain_stones(p).all(|s| {
            (-1i32..=1).all(|dx| {
                (-1i32..=1).all(|dy| {
                    let (x, y) = (s.x() as i32 + dx, s.y() as i32 + dy);
                    if x < 0 || y < 0 {
                        return false;
                    }
                    match Point::try_new(x as u32, y as u32) {
                        Some(q) if size.contains(q) => {
                            b.get(q) != Some(c) || b.chain_id(q) == b.chain_id(p)
                        }
                        _ => false,
                    }
                })
            })
        });
        if isolated {
            for s in b.chain_stones(p) {
                seki.insert(s);
            }
        }
    }

    // Step 1: capture every chain of `c` that can be captured.
    let mut found_any;
    loop {
        let mut captured = false;
        found_any = false;
        let mut done = PointSet::new();
        for &p in order {
            if b.get(p) != Some(c) || done.contains(p) || seki.contains(p) {
                continue;
            }
            found_any = true;
            let save = b.undo_depth();
            for l in b.liberties(p) {
                try_play(b, l, o);
            }
            if b.is_empty(p) {
                captured = true;
            } else if b.liberty_count(p) == 1 {
                let last = b.liberties(p)[0];
                // The last liberty captures, so only a ko could forbid it; it is allowed here.
                let _ = b.play(last, o);
                captured = true;
            } else {
                undo_to(b, save);
                for s in b.chain_stones(p) {
                    done.insert(s);
                }
            }
        }
        if !captured {
            break;
        }
    }
    if !found_any {
        undo_to(b, base);
        return marks;
    }

    // Step 3: fill the liberties of the invincible chains, then extend `o` chains in atari.
    let mut done = PointSet::new();
    for &p in order {
        if b.get(p) != Some(c) || seki.contains(p) || done.contains(p) {
            continue;
        }
        for s in b.chain_stones(p) {
            done.insert(s);
        }
        for l in b.liberties(p) {
            try_play(b, l, o);
        }
    }
    loop {
        let mut any = false;
        for &p in order {
            if b.get(p) == Some(o) && b.liberty_count(p) == 1 {
                let l = b.liberties(p)[0];
                any |= try_play(b, l, o);
            }
        }
        if !any {
            break;
        }
    }

    // Step 4: break the seki shape inside lone two-stone chains.
    let mut done = PointSet::new();
    for &p in order {
        if !seki.contains(p) || b.is_empty(p) || done.contains(p) {
            continue;
        }
        for s in b.chain_stones(p) {
            done.insert(s);
        }
        'dirs: for up in [(0i32, 1i32), (1, 0), (0, -1), (-1, 0)] {
            let at = |dx: i32, dy: i32| -> Option<Point> {
                let (x, y) = (p.x() as i32 + dx, p.y() as i32 + dy);
                if x < 0 || y < 0 {
                    return None;
                }
                Point::try_new(x as u32, y as u32).filter(|&q| size.contains(q))
            };
            let empty = |b: &Board, q: Option<Point>| q.is_some_and(|q| b.is_empty(q));
            if at(up.0, up.1).map(|q| b.get(q)) != Some(Some(c))
                || !empty(b, at(2 * up.0, 2 * up.1))
                || !empty(b, at(-up.0, -up.1))
            {
                continue;
            }
            let side = (-up.1, up.0);
            for right in [side, (-side.0, -side.1)] {
                if !empty(b, at(right.0, right.1)) || !empty(b, at(up.0 - right.0, up.1 - right.1))
                {
                    continue;
                }
                let save = b.undo_depth();
                let left = at(-right.0, -right.1);
                let far = at(up.0 + right.0, up.1 + right.1);
                for q in [left, far].into_iter().flatten() {
                    if b.is_empty(q) {
                        try_play(b, q, o);
                    }
                }
                let joined = match (left, far) {
                    (Some(l), Some(f)) => {
                        b.get(l) == Some(o) && b.get(f) == Some(o) && b.chain_id(l) == b.chain_id(f)
                    }
                    _ => false,
                };
                undo_to(b, save);
                if joined {
                    if let Some(q) = at(-up.0, -up.1) {
                        try_play(b, q, c);
                    }
                    break;
                }
            }
            if b.chain_len(p) > 2 {
                break 'dirs;
            }
        }
    }
    for &p in order {
        if seki.contains(p) && !b.is_empty(p) {
            for l in b.liberties(p) {
                try_play(b, l, o);
            }
        }
    }

    // Step 5: an `o` chain with two adjacent liberties plays one of them.
    for &p in order {
        if b.get(p) != Some(o) || b.liberty_count(p) != 2 {
            continue;
        }
        let libs = b.liberties(p);
        let (a, z) = (libs[0], libs[1]);
        if a.x().abs_diff(z.x()) + a.y().abs_diff(z.y()) != 1 {
            continue;
        }
        let (a_open, z_open) = (approx_libs(b, a, c), approx_libs(b, z, c));
        let (a_lib, z_lib) = (approx_libs(b, a, o), approx_libs(b, z, o));
        let pick = if a_open > z_open || (a_open == z_open && a_lib >= z_lib) {
            a
        } else {
            z
        };
        try_play(b, pick, o);
    }

    // Step 6: read off the alive chains and the territory.
    for &p in order {
        match b.get(p) {
            Some(s) if s == c && !seki.contains(p) => {
                marks.insert(p);
                if b.chain_id(p) == Some(p) {
                    for l in b.liberties(p) {
                        marks.insert(l);
                    }
                }
            }
            Some(s) if s == o && b.liberty_count(p) == 1 => {
                marks.insert(p);
                marks.insert(b.liberties(p)[0]);
            }
            _ => {}
        }
    }
    undo_to(b, base);
    marks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::life::{benson, Unconditional};

    /// The verdict as rows of letters, top row first: `a` alive, `d` dead, `b`/`w` territory,
    /// `.` undecided.
    fn grid(rows: &[&str]) -> Vec<String> {
        let b = Board::from_rows(rows).expect("diagram");
        let v = unconditional(&b);
        let size = b.size();
        (0..size.rows())
            .rev()
            .map(|y| {
                (0..size.cols())
                    .map(|x| match v.status(&b, Point::new(x, y)) {
                        Unconditional::Alive => 'a',
                        Unconditional::Dead => 'd',
                        Unconditional::BlackTerritory => 'b',
                        Unconditional::WhiteTerritory => 'w',
                        Unconditional::Undecided => '.',
                    })
                    .collect()
            })
            .collect()
    }

    // Every expected grid below is GNU Go 3.8's `unconditional_status` of the same position.

    #[test]
    fn gnugo_unconditional_stone_that_cannot_make_two_eyes_is_dead() {
        let rows = [
            ".X...X.", "XXXXXXX", "XXO..XX", "XX...XX", "XX...XX", "XXXXXXX", ".X...X.",
        ];
        let want = [
            "babbbab", "aaaaaaa", "aadbbaa", "aabbbaa", "aabbbaa", "aaaaaaa", "babbbab",
        ];
        assert_eq!(grid(&rows), want);
        // Plain Benson leaves that stone open: the middle point touches no black stone.
        let b = Board::from_rows(&rows).expect("diagram");
        let p = Point::new(2, 4);
        assert_eq!(benson(&b).status(&b, p), Unconditional::Undecided);
    }

    #[test]
    fn gnugo_unconditional_stone_with_room_to_live_is_undecided() {
        let rows = [
            ".X...X.", "XXXXXXX", "X.....X", "X..O..X", "X.....X", "XXXXXXX", ".X...X.",
        ];
        let want = [
            "babbbab", "aaaaaaa", "a.....a", "a.....a", "a.....a", "aaaaaaa", "babbbab",
        ];
        assert_eq!(grid(&rows), want);
    }

    #[test]
    fn gnugo_unconditional_nothing_settled_without_an_invincible_chain() {
        let rows = [
            ".......", ".XXX...", ".X.X...", ".XXX..O", ".......", ".......", ".......",
        ];
        assert!(grid(&rows).iter().all(|r| r == "......."));
    }

    #[test]
    fn gnugo_unconditional_two_stones_in_a_connected_eye_make_seki_not_death() {
        // Black's ring is one chain: White's pair plus a diagonal stone would live in seki,
        // so neither side is settled inside.
        let rows = [
            "..OOOO.O.",
            "OOOXXOOOO",
            "OXX.XOOOO",
            "OX.OXXOOO",
            "OXXO.XO.O",
            "OOX.XXOOO",
            ".OXXXOOOO",
            ".OOOOOOOO",
            "OO.O.O.O.",
        ];
        let want = [
            "wwaaaawaw",
            "aaa..aaaa",
            "a....aaaa",
            "a.....aaa",
            "a.....awa",
            "aa....aaa",
            "wa...aaaa",
            "waaaaaaaa",
            "aawawawaw",
        ];
        assert_eq!(grid(&rows), want);
    }

    #[test]
    fn gnugo_unconditional_two_stones_in_a_cut_eye_leave_the_group_dead() {
        // The same shape with Black's ring cut at F6: Black dies, White's pair lives.
        let rows = [
            "..OOOO.O.",
            "OOOXXOOOO",
            "OXX.XOOOO",
            "OX.OXOOOO",
            "OXXO.XO.O",
            "OOX.XXOOO",
            ".OXXXOOOO",
            ".OOOOOOOO",
            "OO.O.O.O.",
        ];
        let want = [
            "wwaaaawaw",
            "aaaddaaaa",
            "addwdaaaa",
            "adwadaaaa",
            "addawdawa",
            "aadwddaaa",
            "wadddaaaa",
            "waaaaaaaa",
            "aawawawaw",
        ];
        assert_eq!(grid(&rows), want);
    }
}
