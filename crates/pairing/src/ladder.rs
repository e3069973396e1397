//! A standing ladder: players in a line, challenges upwards, no clock inside (times are passed
//! in as milliseconds).
//!
//! A player may challenge anyone up to [`Ladder::reach`] places above. If the challenger wins,
//! they take the challenged player's place and everyone from there down to the challenger's old
//! place shifts down one; otherwise (a loss, a jigo, an unplayed game) nothing moves. The same
//! two players may not play a ladder game again within [`Ladder::cooldown_ms`]. A player without
//! a game for [`Ladder::inactivity_ms`] drops one place, and again after each further such
//! period ([`Ladder::decay`]).

use crate::PlayerId;
use std::collections::HashMap;
use std::fmt;

/// Why a challenge was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LadderError {
    /// A player is not on the ladder.
    NotOnLadder(PlayerId),
    /// A player challenged themself.
    SamePlayer,
    /// The challenged player is not above the challenger.
    NotAbove,
    /// The challenged player is more than the reach above.
    TooFar,
    /// These two played too recently; they may play again at this time.
    Cooldown {
        /// When they may play again (ms).
        until_ms: u64,
    },
}

impl fmt::Display for LadderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LadderError::NotOnLadder(id) => write!(f, "player {id} is not on the ladder"),
            LadderError::SamePlayer => write!(f, "a player cannot challenge themself"),
            LadderError::NotAbove => write!(f, "the challenged player is not above"),
            LadderError::TooFar => write!(f, "the challenged player is out of reach"),
            LadderError::Cooldown { until_ms } => {
                write!(f, "these two may play again at {until_ms} ms")
            }
        }
    }
}

impl std::error::Error for LadderError {}

/// A ladder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ladder {
    /// How many places above a player may challenge.
    pub reach: usize,
    /// Time between two games of the same two players (ms).
    pub cooldown_ms: u64,
    /// Time without a game after which a player drops a place (ms).
    pub inactivity_ms: u64,
    order: Vec<PlayerId>,
    /// When each player last played, joined or last dropped.
    active_since: HashMap<PlayerId, u64>,
    /// When each pair last played.
    last_pair: HashMap<(PlayerId, PlayerId), u64>,
}

fn pair_key(a: PlayerId, b: PlayerId) -> (PlayerId, PlayerId) {
    (a.min(b), a.max(b))
}

impl Ladder {
    /// An empty ladder.
    pub fn new(reach: usize, cooldown_ms: u64, inactivity_ms: u64) -> Ladder {
        Ladder {
            reach,
            cooldown_ms,
            inactivity_ms,
            order: Vec::new(),
            active_since: HashMap::new(),
            last_pair: HashMap::new(),
        }
    }

    /// The players, top first.
    pub fn order(&self) -> &[PlayerId] {
        &self.order
    }

    /// `id`'s place, 0 at the top.
    pub fn position(&self, id: PlayerId) -> Option<usize> {
        self.order.iter().position(|&p| p == id)
    }

    /// Adds `id` at the bottom at `now_ms` (no change if already on); their place.
    pub fn join(&mut self, id: PlayerId, now_ms: u64) -> usize {
        if let Some(p) = self.position(id) {
            return p;
        }
        self.order.push(id);
        self.active_since.insert(id, now_ms);
        self.order.len() - 1
    }

    /// Takes `id` off the ladder; those below move up one.
    pub fn leave(&mut self, id: PlayerId) {
        self.order.retain(|&p| p != id);
        self.active_since.remove(&id);
    }

    /// Notes that `a` and `b` last played each other at `at_ms` (a stored ladder read back).
    pub fn set_last_played(&mut self, a: PlayerId, b: PlayerId, at_ms: u64) {
        self.last_pair.insert(pair_key(a, b), at_ms);
    }

    /// When each pair last played: `(a, b, at_ms)` with `a < b`.
    pub fn last_played(&self) -> Vec<(PlayerId, PlayerId, u64)> {
        self.last_pair
            .iter()
            .map(|(&(a, b), &at)| (a, b, at))
            .collect()
    }

    /// When `id` last played, joined or dropped (ms).
    pub fn active_since(&self, id: PlayerId) -> Option<u64> {
        self.active_since.get(&id).copied()
    }

    /// Whether `challenger` may challenge `target` at `now_ms`.
    pub fn can_challenge(
        &self,
        challenger: PlayerId,
        target: PlayerId,
        now_ms: u64,
    ) -> Result<(), LadderError> {
        if challenger == target {
            return Err(LadderError::SamePlayer);
        }
        let c = self
            .position(challenger)
            .ok_or(LadderError::NotOnLadder(challenger))?;
        let t = self
            .position(target)
            .ok_or(LadderError::NotOnLadder(target))?;
        if t >= c {
            return Err(LadderError::NotAbove);
        }
        if c - t > self.reach {
            return Err(LadderError::TooFar);
        }
        if let Some(&at) = self.last_pair.get(&pair_key(challenger, target)) {
            let until_ms = at.saturating_add(self.cooldown_ms);
            if now_ms < until_ms {
                return Err(LadderError::Cooldown { until_ms });
            }
        }
        Ok(())
    }

    /// Records a challenge game played at `now_ms`: `winner` is the winner, `None` a jigo or an
    /// unplayed game. Refused (nothing changes) when the challenge was not allowed.
    pub fn record(
        &mut self,
        challenger: PlayerId,
        target: PlayerId,
        winner: Option<PlayerId>,
        now_ms: u64,
    ) -> Result<(), LadderError> {
        self.can_challenge(challenger, target, now_ms)?;
        if winner == Some(challenger) {
            let c = self.position(challenger).expect("checked");
            let t = self.position(target).expect("checked");
            let id = self.order.remove(c);
            self.order.insert(t, id);
        }
        self.active_since.insert(challenger, now_ms);
        self.active_since.insert(target, now_ms);
        self.last_pair.insert(pair_key(challenger, target), now_ms);
        Ok(())
    }

    /// Drops every player inactive for [`Ladder::inactivity_ms`] at `now_ms` by one place
    /// (bottom-up, so two inactive neighbours each drop one); the players dropped.
    pub fn decay(&mut self, now_ms: u64) -> Vec<PlayerId> {
        let mut dropped = Vec::new();
        if self.order.len() < 2 {
            return dropped;
        }
        for at in (0..self.order.len() - 1).rev() {
            let id = self.order[at];
            let since = self.active_since.get(&id).copied().unwrap_or(0);
            if now_ms.saturating_sub(since) >= self.inactivity_ms {
                self.order.swap(at, at + 1);
                self.active_since.insert(id, now_ms);
                dropped.push(id);
            }
        }
        dropped
    }
}
