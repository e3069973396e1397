//! Tournament pairing and standings: Swiss, McMahon as the EGF runs it, round robin by Berger
//! tables, lichess-style arenas and a standing ladder, with the standings, tie-breaks, crosstable
//! and the EGF results file of each.
//!
//! Pure functions of the players and the history of the event: no clock (times are passed in as
//! milliseconds), no I/O, and every random choice comes from a seed, so the same event always
//! pairs the same way.
//!
//! - [`Swiss`] and [`McMahon`] pair one round at a time from the [`History`] ([`swiss`]).
//! - [`RoundRobin`] lays out every round at once ([`robin`]).
//! - [`Arena`] pairs continuously as games end ([`arena`]).
//! - [`Ladder`] keeps a standing ladder of challenges ([`ladder`]).
//! - [`Standings`] orders a Swiss or McMahon field with its tie-breaks and exports it as CSV and
//!   as an EGF results file ([`standings`]).

#![warn(missing_docs)]

pub mod arena;
pub mod ladder;
mod matching;
pub mod robin;
pub mod standings;
pub mod swiss;

pub use arena::{Arena, ArenaRow};
pub use ladder::{Ladder, LadderError};
pub use robin::RoundRobin;
pub use standings::{Cell, EgfHeader, Person, Row, Standings, TieBreak};
pub use swiss::{HandicapRule, McMahon, Swiss};

use std::fmt;
use std::str::FromStr;

/// A player's id, as the caller numbers its players.
pub type PlayerId = u32;

/// A Go rank, 30 kyu up to 9 dan.
///
/// Its [`Rank::value`] counts from 0 at 30k: 29 is 1k, 30 is 1d and 38 is 9d, the scale EGF
/// pairing programs use for a McMahon score at the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

impl Rank {
    /// The weakest rank, 30k.
    pub const MIN: Rank = Rank(0);
    /// The strongest rank, 9d.
    pub const MAX: Rank = Rank(38);

    /// `k` kyu (1 to 30).
    pub fn kyu(k: u8) -> Option<Rank> {
        (1..=30).contains(&k).then(|| Rank(30 - k))
    }

    /// `d` dan (1 to 9).
    pub fn dan(d: u8) -> Option<Rank> {
        (1..=9).contains(&d).then(|| Rank(29 + d))
    }

    /// The rank at `value` on the 30k = 0 scale (0 to 38).
    pub fn from_value(value: i32) -> Option<Rank> {
        (0..=38).contains(&value).then_some(Rank(value as u8))
    }

    /// Its number on the 30k = 0 … 9d = 38 scale.
    pub fn value(self) -> i32 {
        self.0 as i32
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 30 {
            write!(f, "{}d", self.0 - 29)
        } else {
            write!(f, "{}k", 30 - self.0)
        }
    }
}

/// Why a rank did not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankError(pub String);

impl fmt::Display for RankError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a rank from 30k to 9d: {:?}", self.0)
    }
}

impl std::error::Error for RankError {}

impl FromStr for Rank {
    type Err = RankError;

    /// Reads "5k", "3d", "12K" or "1D".
    fn from_str(s: &str) -> Result<Rank, RankError> {
        let err = || RankError(s.to_string());
        let t = s.trim();
        if t.len() < 2 || !t.is_ascii() {
            return Err(err());
        }
        let (num, kind) = t.split_at(t.len() - 1);
        if num.starts_with('+') || num.starts_with('0') {
            return Err(err());
        }
        let n: u8 = num.parse().map_err(|_| err())?;
        match kind {
            "k" | "K" => Rank::kyu(n),
            "d" | "D" => Rank::dan(n),
            _ => None,
        }
        .ok_or_else(err)
    }
}

/// A player as pairing sees them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Player {
    /// The caller's id.
    pub id: PlayerId,
    /// The rating (any scale where higher is stronger, e.g. Glicko).
    pub rating: f64,
    /// The declared rank.
    pub rank: Rank,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Black won.
    BlackWins,
    /// White won.
    WhiteWins,
    /// A draw (jigo): half a point each.
    Jigo,
    /// Not played (neither showed up, or the organiser voided it): no point to either, and no
    /// opponent in the tie-breaks.
    Unplayed,
}

/// One board of a round as paired: who takes which colour, and the handicap and komi.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pairing {
    /// The player with black.
    pub black: PlayerId,
    /// The player with white.
    pub white: PlayerId,
    /// Handicap: 0 an even game with the event's komi, 1 black moves first without komi
    /// (komi 0.5), 2 to 9 stones.
    pub handicap: u8,
    /// Komi given to white.
    pub komi: f64,
}

impl Pairing {
    /// The game this pairing became, with its outcome.
    pub fn finish(&self, outcome: Outcome) -> Game {
        Game {
            black: self.black,
            white: self.white,
            outcome,
            handicap: self.handicap,
            komi: self.komi,
        }
    }

    /// Whether `id` plays in it.
    pub fn has(&self, id: PlayerId) -> bool {
        self.black == id || self.white == id
    }
}

/// A finished game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Game {
    /// The player with black.
    pub black: PlayerId,
    /// The player with white.
    pub white: PlayerId,
    /// How it ended.
    pub outcome: Outcome,
    /// Handicap as in [`Pairing::handicap`].
    pub handicap: u8,
    /// Komi given to white.
    pub komi: f64,
}

impl Game {
    /// `id`'s points from this game: 1 a win, ½ a jigo, 0 a loss or an unplayed game.
    pub fn points(&self, id: PlayerId) -> f64 {
        match (self.outcome, id == self.black) {
            (Outcome::BlackWins, true) | (Outcome::WhiteWins, false) => 1.0,
            (Outcome::Jigo, _) => 0.5,
            _ => 0.0,
        }
    }

    /// `id`'s opponent (`id` must play in it).
    pub fn opponent(&self, id: PlayerId) -> PlayerId {
        if id == self.black {
            self.white
        } else {
            self.black
        }
    }

    /// The winner, if the game was played and not a jigo.
    pub fn winner(&self) -> Option<PlayerId> {
        match self.outcome {
            Outcome::BlackWins => Some(self.black),
            Outcome::WhiteWins => Some(self.white),
            _ => None,
        }
    }

    /// Whether `id` plays in it.
    pub fn has(&self, id: PlayerId) -> bool {
        self.black == id || self.white == id
    }
}

/// One round as paired: its boards and the player with the bye, if any.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RoundPairings {
    /// The boards, strongest first.
    pub pairings: Vec<Pairing>,
    /// The player who sits out with the bye's score.
    pub bye: Option<PlayerId>,
}

impl RoundPairings {
    /// The round played: every pairing with its outcome from `outcome`.
    pub fn finish(&self, mut outcome: impl FnMut(&Pairing) -> Outcome) -> Round {
        Round {
            games: self.pairings.iter().map(|p| p.finish(outcome(p))).collect(),
            bye: self.bye,
        }
    }
}

/// One finished round: its games and its bye. A player in neither sat the round out (no point).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Round {
    /// The games.
    pub games: Vec<Game>,
    /// The player given the bye.
    pub bye: Option<PlayerId>,
}

impl Round {
    /// `id`'s game in this round.
    pub fn game_of(&self, id: PlayerId) -> Option<&Game> {
        self.games.iter().find(|g| g.has(id))
    }
}

/// The event so far: its finished rounds in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// The rounds, first first.
    pub rounds: Vec<Round>,
}

impl History {
    /// Whether `a` and `b` have been paired before (an unplayed game counts: they were paired).
    pub fn met(&self, a: PlayerId, b: PlayerId) -> bool {
        self.rounds
            .iter()
            .any(|r| r.games.iter().any(|g| g.has(a) && g.has(b)))
    }

    /// How many byes `id` has had.
    pub fn byes(&self, id: PlayerId) -> usize {
        self.rounds.iter().filter(|r| r.bye == Some(id)).count()
    }

    /// `id`'s colour balance over even games: blacks minus whites (handicap games do not count).
    pub fn colour_balance(&self, id: PlayerId) -> i32 {
        let mut balance = 0;
        for g in self.rounds.iter().flat_map(|r| &r.games) {
            if g.handicap == 0 && g.outcome != Outcome::Unplayed {
                if g.black == id {
                    balance += 1;
                } else if g.white == id {
                    balance -= 1;
                }
            }
        }
        balance
    }
}

/// Writes points as "3", "2.5" or "-1.5".
pub(crate) fn fmt_points(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}
