//! Round robin by Berger tables.
//!
//! The players get numbers 1…n in the order given (or drawn with a seed); an odd field gets a
//! dummy numbered n + 1 and whoever meets it has the bye. With m the (even) count, round r
//! (1…m − 1) pairs i and j (both below m) when i + j ≡ r + 1 (mod m − 1), and m with the i for
//! which 2i ≡ r + 1. Colours are the Berger table's (FIDE's tables, first-named white): between
//! i < j < m the lower number has white when j − i is odd, the higher when it is even; m has
//! white in even rounds. Everyone meets everyone once, and each player's whites and blacks
//! differ by at most one.

use crate::standings::Standings;
use crate::{History, Pairing, Player, PlayerId, RoundPairings, TieBreak};
use baduk_rng::Rng;

/// A round robin's players in Berger order.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundRobin {
    /// The players; the first is number 1.
    pub order: Vec<PlayerId>,
    /// Komi of every game.
    pub komi: f64,
}

/// One game of a Berger table by numbers from 1: (white, black).
pub fn berger_round(m: usize, round: usize) -> Vec<(usize, usize)> {
    debug_assert!(m.is_multiple_of(2) && m >= 2 && (1..m).contains(&round));
    let k = m - 1;
    let target = (round + 1) % k;
    let mut games = Vec::with_capacity(m / 2);
    // The game of m first, as the tables list it.
    let i = (1..m)
        .find(|&i| (2 * i) % k == target)
        .expect("one i meets m");
    games.push(if round.is_multiple_of(2) {
        (m, i)
    } else {
        (i, m)
    });
    for a in 1..m {
        for b in a + 1..m {
            if (a + b) % k == target {
                games.push(if (b - a) % 2 == 1 { (a, b) } else { (b, a) });
            }
        }
    }
    games
}

impl RoundRobin {
    /// Players numbered in the order given; komi 6.5.
    pub fn new(order: Vec<PlayerId>) -> RoundRobin {
        RoundRobin { order, komi: 6.5 }
    }

    /// Players numbered by a draw from `seed`.
    pub fn drawn(players: &[PlayerId], seed: u64) -> RoundRobin {
        let mut order = players.to_vec();
        Rng::new(seed).shuffle(&mut order);
        RoundRobin::new(order)
    }

    /// The number of rounds.
    pub fn rounds(&self) -> usize {
        let n = self.order.len();
        if n < 2 {
            0
        } else {
            n + n % 2 - 1
        }
    }

    /// Round `round` (from 1) as pairings; `None` past the last round.
    pub fn round(&self, round: usize) -> Option<RoundPairings> {
        if round == 0 || round > self.rounds() {
            return None;
        }
        let n = self.order.len();
        let m = n + n % 2;
        let mut out = RoundPairings::default();
        for (white, black) in berger_round(m, round) {
            if white > n {
                out.bye = Some(self.order[black - 1]);
            } else if black > n {
                out.bye = Some(self.order[white - 1]);
            } else {
                out.pairings.push(Pairing {
                    black: self.order[black - 1],
                    white: self.order[white - 1],
                    handicap: 0,
                    komi: self.komi,
                });
            }
        }
        Some(out)
    }

    /// The standings of `players` after `history`: points (a bye scores nothing: everyone of an
    /// odd field has one), then SODOS, the tie-break that means something when everyone meets
    /// everyone (SOS and SOSOS are listed too).
    pub fn standings(&self, players: &[Player], history: &History) -> Standings {
        Standings::compute(
            players,
            history,
            |_| 0.0,
            0.0,
            "Score",
            &[
                TieBreak::Score,
                TieBreak::Sodos,
                TieBreak::Sos,
                TieBreak::Sosos,
            ],
        )
    }
}
