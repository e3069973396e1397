//! Uniformly random light playouts: the benchmark of `baduk bench go` and a building block for
//! Monte-Carlo bots.
//!
//! A playout picks, uniformly among the board plays that are legal (no suicide, no forbidden
//! repetition) and do not fill a single-point eye of the mover's own, and passes when there is
//! none; two consecutive passes end it. Suicide is never chosen, even where the rules allow it.

use crate::board::{situational, Board};
use crate::point::Color;
use crate::rules::Ko;
use baduk_rng::Rng;

/// Reusable state for playouts (the repetition table), so that playouts do not allocate.
#[derive(Clone, Debug, Default)]
pub struct Playouts {
    seen: HashSet64,
}

/// An open-addressing set of Zobrist hashes (linear probing; 0 is kept apart as a flag).
#[derive(Clone, Debug, Default)]
struct HashSet64 {
    slots: Vec<u64>,
    mask: usize,
    has_zero: bool,
}

impl HashSet64 {
    /// Empties the set, sized for up to `n` keys at a load factor of at most 1/2.
    fn reset(&mut self, n: usize) {
        let want = (2 * n + 2).next_power_of_two();
        if self.slots.len() < want {
            self.slots = vec![0; want];
        } else {
            self.slots.fill(0);
        }
        self.mask = self.slots.len() - 1;
        self.has_zero = false;
    }

    #[inline]
    fn contains(&self, k: u64) -> bool {
        if k == 0 {
            return self.has_zero;
        }
        let mut i = (k as usize) & self.mask;
        loop {
            let v = self.slots[i];
            if v == k {
                return true;
            }
            if v == 0 {
                return false;
            }
            i = (i + 1) & self.mask;
        }
    }

    #[inline]
    fn insert(&mut self, k: u64) {
        if k == 0 {
            self.has_zero = true;
            return;
        }
        let mut i = (k as usize) & self.mask;
        loop {
            let v = self.slots[i];
            if v == k {
                return;
            }
            if v == 0 {
                self.slots[i] = k;
                return;
            }
            i = (i + 1) & self.mask;
        }
    }
}

/// What one playout did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayoutResult {
    /// Moves played, passes included.
    pub moves: u32,
    /// Whether it stopped at the move cap (three moves per point) instead of two passes.
    pub capped: bool,
}

impl Playouts {
    /// Fresh playout state.
    pub fn new() -> Playouts {
        Playouts::default()
    }

    /// Plays `board` out from `to_move` to two passes under repetition rule `ko`
    /// (`simple`; `positional` or `situational` superko; `jk` is treated as simple ko).
    pub fn run(
        &mut self,
        board: &mut Board,
        to_move: Color,
        ko: Ko,
        rng: &mut Rng,
    ) -> PlayoutResult {
        let cap = 3 * board.size().area() as u32;
        let superko = matches!(ko, Ko::Positional | Ko::Situational);
        let situational_ko = ko == Ko::Situational;
        if superko {
            self.seen.reset(cap as usize + 1);
            let key = if situational_ko {
                situational(board.hash(), to_move)
            } else {
                board.hash()
            };
            self.seen.insert(key);
        }
        let mut color = to_move;
        let mut moves = 0;
        let mut passes = 0;
        while moves < cap {
            let mut k = board.empty_count();
            let mut played = false;
            while k > 0 {
                let i = rng.below(k);
                let p = board.empty_at(i);
                let ok = if superko {
                    !board.is_eye(p, color)
                        && match board.playout_hash_after(p, color) {
                            Some(h) if situational_ko => {
                                !self.seen.contains(situational(h, color.opponent()))
                            }
                            Some(h) => !self.seen.contains(h),
                            None => false,
                        }
                } else {
                    board.playout_candidate(p, color)
                };
                if ok {
                    // Cannot fail: `p` is an empty point of the board.
                    let _ = board.play_unrecorded(p, color);
                    played = true;
                    break;
                }
                board.swap_empties(i, k - 1);
                k -= 1;
            }
            moves += 1;
            if played {
                passes = 0;
            } else {
                passes += 1;
                if passes == 2 {
                    return PlayoutResult {
                        moves,
                        capped: false,
                    };
                }
            }
            color = color.opponent();
            if superko {
                let key = if situational_ko {
                    situational(board.hash(), color)
                } else {
                    board.hash()
                };
                self.seen.insert(key);
            }
        }
        PlayoutResult {
            moves,
            capped: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::point::Size;

    #[test]
    fn playouts_are_deterministic_for_a_seed_and_end_with_two_passes() {
        let size = Size::square(9).unwrap();
        for ko in [Ko::Simple, Ko::Positional, Ko::Situational] {
            let mut totals = vec![];
            for _ in 0..2 {
                let mut rng = Rng::new(7);
                let mut pl = Playouts::new();
                let mut total = 0;
                for _ in 0..20 {
                    let mut b = Board::new(size);
                    let r = pl.run(&mut b, Color::Black, ko, &mut rng);
                    b.check_consistency().unwrap();
                    // Every empty point left is an eye or illegal for both sides.
                    total += r.moves;
                }
                totals.push(total);
            }
            assert_eq!(totals[0], totals[1]);
        }
    }

    #[test]
    fn playouts_leave_only_eyes_or_illegal_points() {
        let mut rng = Rng::new(3);
        let mut b = Board::new(Size::square(7).unwrap());
        let r = Playouts::new().run(&mut b, Color::Black, Ko::Simple, &mut rng);
        assert!(!r.capped);
        let to_move = if r.moves & 1 == 0 {
            Color::Black
        } else {
            Color::White
        };
        for p in b.empty_points().collect::<Vec<_>>() {
            assert!(
                b.is_eye(p, to_move) || !b.is_simple_legal(p, to_move),
                "{p}\n{b}"
            );
        }
    }
}
