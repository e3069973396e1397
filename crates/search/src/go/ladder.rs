//! A fast ladder reader: whether a chain in atari can run, and whether an atari on a chain with
//! two liberties captures it in a ladder (the attacker only ever plays ataris).
//!
//! The reading plays on the board itself and takes every play back ([`FastBoard::play_read`],
//! [`FastBoard::undo_read`]), so a read costs no copy of the board. The defender may extend
//! from atari or capture an attacking chain in atari (a ladder breaker that captures, or a
//! stone of the ladder left in atari); the attacker tries both ataris at each step. A read
//! stops after a budget of plays and then counts as "the chain escapes": a ladder is only
//! called working when it has been read out.

use super::board::{Colour, FastBoard, Idx, PASS};

/// Plays a read may make before it gives up (the chain is then taken to escape): enough for
/// a ladder across a 19×19 board with a few side branches.
pub const LADDER_BUDGET: u32 = 400;

/// Deepest ladder read (plays on one line of reading).
const MAX_DEPTH: u32 = 120;

struct Reader {
    budget: u32,
}

/// The (up to two) liberties of the chain through `s`; the count is exact up to 3.
fn two_libs(b: &FastBoard, s: Idx) -> (usize, [Idx; 2]) {
    let mut libs = [PASS; 2];
    let mut n = 0usize;
    for st in b.chain_stones(s) {
        for l in b.neighbours(st) {
            if b.is_empty(l) && !libs[..n.min(2)].contains(&l) {
                if n >= 2 {
                    return (3, libs);
                }
                libs[n] = l;
                n += 1;
            }
        }
    }
    (n, libs)
}

/// Liberties of the attacking chains in atari around the chain through `s` (at most 8).
fn counter_captures(b: &FastBoard, s: Idx, def: Colour, out: &mut [Idx; 8]) -> usize {
    let mut n = 0usize;
    let att = def.opp();
    for st in b.chain_stones(s) {
        for q in b.neighbours(st) {
            if b.stone(q) == Some(att) && b.in_atari(q) {
                let l = b.atari_liberty(q);
                if l != PASS && !out[..n].contains(&l) && n < out.len() {
                    out[n] = l;
                    n += 1;
                }
            }
        }
    }
    n
}

impl Reader {
    fn spend(&mut self) -> bool {
        if self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    /// The chain through `s` is in atari with its owner to move: can it live out of atari
    /// (reach three liberties, or two the attacker cannot take by ataris)?
    fn escapes(&mut self, b: &mut FastBoard, s: Idx, depth: u32) -> bool {
        let def = match b.stone(s) {
            Some(c) => c,
            None => return false,
        };
        if depth > MAX_DEPTH {
            return true;
        }
        // Capture an attacker in atari next to the chain.
        let mut caps = [PASS; 8];
        let n = counter_captures(b, s, def, &mut caps);
        for &l in &caps[..n] {
            if !b.is_simple_legal(l, def) {
                continue;
            }
            if !self.spend() {
                return true;
            }
            b.play_read(l, def);
            let saved = self.after_defence(b, s, depth);
            b.undo_read();
            if saved {
                return true;
            }
        }
        // Extend at the liberty.
        let l = b.atari_liberty(s);
        if l == PASS || !b.is_simple_legal(l, def) {
            return false;
        }
        if !self.spend() {
            return true;
        }
        b.play_read(l, def);
        let saved = self.after_defence(b, s, depth);
        b.undo_read();
        saved
    }

    /// After the defender's move: does the chain through `s` stay out of a ladder?
    fn after_defence(&mut self, b: &mut FastBoard, s: Idx, depth: u32) -> bool {
        let (n, libs) = two_libs(b, s);
        match n {
            0 | 1 => false,
            2 => !self.captures(b, s, libs, depth + 1),
            _ => true,
        }
    }

    /// The chain through `s` has the two liberties `libs`, the attacker to move: does an
    /// atari on one of them capture it in the end?
    fn captures(&mut self, b: &mut FastBoard, s: Idx, libs: [Idx; 2], depth: u32) -> bool {
        let att = match b.stone(s) {
            Some(c) => c.opp(),
            None => return true,
        };
        if depth > MAX_DEPTH {
            return false;
        }
        for &a in &libs {
            if !b.is_simple_legal(a, att) {
                continue;
            }
            // An atari whose stone the defender can at once capture is tried like any
            // other: the reading sees the counter-capture.
            if !self.spend() {
                return false;
            }
            b.play_read(a, att);
            let works = b.in_atari(s) && !self.escapes(b, s, depth + 1);
            b.undo_read();
            if works {
                return true;
            }
            if self.budget == 0 {
                return false;
            }
        }
        false
    }
}

/// The chain through stone `s` is in atari and its owner is to move: whether the attacker
/// captures it however it runs (extending or capturing an attacker in atari), reading ataris
/// only, within [`LADDER_BUDGET`] plays. False when the chain has not exactly one liberty.
/// The board is left exactly as it was.
pub fn is_ladder_captured(b: &mut FastBoard, s: Idx) -> bool {
    is_ladder_captured_within(b, s, LADDER_BUDGET)
}

/// [`is_ladder_captured`] with a budget of `budget` plays (a read that runs out says "not
/// captured").
pub fn is_ladder_captured_within(b: &mut FastBoard, s: Idx, budget: u32) -> bool {
    if b.stone(s).is_none() || !b.in_atari(s) {
        return false;
    }
    let mut r = Reader { budget };
    let escapes = r.escapes(b, s, 0);
    // A read that ran out of budget proved nothing.
    !escapes && r.budget > 0
}

/// The chain through stone `s` has exactly two liberties and its opponent is to move: whether
/// an atari captures it in a ladder; the atari that does, or PASS.
pub fn ladder_atari(b: &mut FastBoard, s: Idx, budget: u32) -> Idx {
    if b.stone(s).is_none() {
        return PASS;
    }
    let (n, libs) = two_libs(b, s);
    if n != 2 {
        return PASS;
    }
    let att = b.stone(s).map(Colour::opp).unwrap_or(Colour::Black);
    let mut r = Reader { budget };
    for &a in &libs {
        if !b.is_simple_legal(a, att) || !r.spend() {
            continue;
        }
        b.play_read(a, att);
        let works = b.in_atari(s) && !r.escapes(b, s, 1);
        b.undo_read();
        if works && r.budget > 0 {
            return a;
        }
    }
    PASS
}

/// Whether `c` playing at the empty point `i` puts an enemy chain with two liberties into an
/// atari that captures it in a ladder (with the opponent then to move).
pub fn is_working_ladder_atari(b: &mut FastBoard, i: Idx, c: Colour, budget: u32) -> bool {
    if !b.is_simple_legal(i, c) {
        return false;
    }
    let mut r = Reader { budget };
    b.play_read(i, c);
    let mut works = false;
    for q in b.neighbours(i) {
        if b.stone(q) == Some(c.opp()) && b.in_atari(q) && !r.escapes(b, q, 1) && r.budget > 0 {
            works = true;
            break;
        }
    }
    b.undo_read();
    works
}

/// Whether `c` extending at the empty point `i` (the liberty of an own chain in atari next to
/// it) leaves the chain with two liberties and caught in a working ladder: running is futile.
pub fn is_futile_escape(b: &mut FastBoard, i: Idx, c: Colour, budget: u32) -> bool {
    if !b.is_simple_legal(i, c) {
        return false;
    }
    b.play_read(i, c);
    let (n, libs) = two_libs(b, i);
    let futile = match n {
        0 | 1 => true,
        2 => {
            let mut r = Reader { budget };
            r.captures(b, i, libs, 1) && r.budget > 0
        }
        _ => false,
    };
    b.undo_read();
    futile
}

/// What the ladder reader says of a move (for the tree's priors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LadderVerdict {
    /// No ladder involved.
    None,
    /// Extends an own chain out of atari into a ladder that catches it.
    FutileEscape,
    /// Ataris an enemy chain with two liberties that then runs away.
    FailingAtari,
    /// Ataris an enemy chain with two liberties that the ladder then captures.
    WorkingAtari,
}

/// Judges `c` at the empty point `i`: an escape from atari that runs into a working ladder,
/// or an atari on a two-liberty chain that does or does not capture it in a ladder. A move that
/// captures something is never judged (a counter-capture changes the reading).
pub fn judge_move(b: &mut FastBoard, i: Idx, c: Colour, budget: u32) -> LadderVerdict {
    if !b.is_simple_legal(i, c) || b.captures_something(i, c) {
        return LadderVerdict::None;
    }
    let nbs = b.neighbours(i);
    let escape = nbs.iter().any(|&n| b.stone(n) == Some(c) && b.in_atari(n));
    if escape {
        return if is_futile_escape(b, i, c, budget) {
            LadderVerdict::FutileEscape
        } else {
            LadderVerdict::None
        };
    }
    let atari = nbs
        .iter()
        .any(|&n| b.stone(n) == Some(c.opp()) && b.pseudo_liberties(n) == 2);
    if !atari {
        return LadderVerdict::None;
    }
    if is_working_ladder_atari(b, i, c, budget) {
        LadderVerdict::WorkingAtari
    } else {
        LadderVerdict::FailingAtari
    }
}
