//! A room's counted time: a correspondence clock stops on its side's weekends and vacations
//! (`game::calendar`); every other clock counts wall-clock time.

use super::Room;
use crate::game::calendar::{Away, Calendar};
use crate::game::clock::ClockKind;
use baduk_go::TimeControl;

/// A seat without an account: UTC, never on vacation.
static NOBODY: Away = Away {
    tz_min: 0,
    vacations: Vec::new(),
};

impl Room {
    /// The calendar of `side`'s clock, if it is a correspondence clock.
    fn calendar(&self, side: usize) -> Option<Calendar<'_>> {
        let ClockKind::Go(TimeControl::Correspondence { weekends, .. }) = self.clocks.kind else {
            return None;
        };
        let away = self.seats[side]
            .player
            .as_ref()
            .map_or(&NOBODY, |p| &p.away);
        Some(Calendar { away, weekends })
    }

    /// The time `side`'s clock counts between `from` and `to`.
    pub fn counted(&self, side: usize, from: i64, to: i64) -> i64 {
        match self.calendar(side) {
            Some(c) => c.counted(from, to),
            None => to - from,
        }
    }

    /// The wall-clock time at which `side`'s clock has counted `ms` since `from`.
    pub fn counted_until(&self, side: usize, from: i64, ms: i64) -> i64 {
        match self.calendar(side) {
            Some(c) => c.after(from, ms),
            None => from.saturating_add(ms),
        }
    }

    /// Whether `side`'s clock is stopped at `t` (its weekend or its vacation).
    pub fn clock_stopped(&self, side: usize, t: i64) -> bool {
        self.calendar(side).is_some_and(|c| c.stopped_at(t))
    }

    /// Whether the account at `seat` is on vacation at `t` (its correspondence clock stopped).
    pub fn on_vacation(&self, seat: usize, t: i64) -> bool {
        self.calendar(seat).is_some_and(|c| c.away.on_vacation(t))
    }

    /// Gives the seats `account_id` holds its new time zone and vacations; whether that
    /// changed any.
    pub fn set_away(&mut self, account_id: &str, away: &Away) -> bool {
        let mut changed = false;
        for seat in self.seats.iter_mut() {
            if let Some(p) = seat.player.as_mut().filter(|p| p.id == account_id) {
                changed |= p.away != *away;
                p.away = away.clone();
            }
        }
        changed
    }
}
