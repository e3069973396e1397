//! Counted time of a correspondence clock: wall-clock time less the side's weekends (Saturday
//! and Sunday in its account's time zone, when the game pauses them) and its vacations. The
//! clocks charge counted time; a deadline is the wall-clock time at which enough has counted.

pub use crate::store::types::Away;

/// A day in milliseconds.
pub const DAY_MS: i64 = 86_400_000;
/// A week in milliseconds.
const WEEK_MS: i64 = 7 * DAY_MS;
/// The time zones accepted, in minutes east of UTC (UTC−12:00 to UTC+14:00).
pub const TZ_RANGE: std::ops::RangeInclusive<i32> = -720..=840;

/// When one side's clock stops: its account's time zone and vacations, and whether the game
/// pauses weekends.
#[derive(Clone, Copy, Debug)]
pub struct Calendar<'a> {
    /// The account's time zone and vacations.
    pub away: &'a Away,
    /// Whether Saturdays and Sundays do not count.
    pub weekends: bool,
}

impl Calendar<'_> {
    /// The weekend (Saturday 00:00 to Monday 00:00, local time) that contains `t` or comes
    /// next, as UTC ms.
    fn weekend_from(&self, t: i64) -> (i64, i64) {
        let off = self.away.tz_min as i64 * 60_000;
        let local = t + off;
        let day = local.div_euclid(DAY_MS);
        // 1970-01-01 was a Thursday: Monday is 0.
        let monday = day - (day + 3).rem_euclid(7);
        let sat = (monday + 5) * DAY_MS - off;
        let (s, e) = (sat, sat + 2 * DAY_MS);
        if e <= t {
            (s + WEEK_MS, e + WEEK_MS)
        } else {
            (s, e)
        }
    }

    /// The stop (a weekend or a vacation) that ends after `t` and starts first, if any.
    fn next_stop(&self, t: i64) -> Option<(i64, i64)> {
        let vacation = self.away.vacations.iter().copied().find(|&(_, e)| e > t);
        let weekend = self.weekends.then(|| self.weekend_from(t));
        match (vacation, weekend) {
            (Some(v), Some(w)) => Some(if v.0 <= w.0 { v } else { w }),
            (v, w) => v.or(w),
        }
    }

    /// The time counted between `from` and `to` (0 if `to` is not later).
    pub fn counted(&self, from: i64, to: i64) -> i64 {
        let (mut cursor, mut total) = (from, 0);
        while cursor < to {
            match self.next_stop(cursor) {
                Some((s, e)) if s < to => {
                    total += (s - cursor).max(0);
                    cursor = cursor.max(e);
                }
                _ => {
                    total += to - cursor;
                    break;
                }
            }
        }
        total
    }

    /// The earliest wall-clock time at which `ms` have counted since `from`.
    pub fn after(&self, from: i64, ms: i64) -> i64 {
        let (mut cursor, mut left) = (from, ms.max(0));
        while left > 0 {
            match self.next_stop(cursor) {
                Some((s, e)) => {
                    if s > cursor {
                        if left <= s - cursor {
                            break;
                        }
                        left -= s - cursor;
                    }
                    cursor = cursor.max(e);
                }
                None => break,
            }
        }
        cursor.saturating_add(left)
    }

    /// Whether the clock is stopped at `t` (a weekend or a vacation).
    pub fn stopped_at(&self, t: i64) -> bool {
        self.next_stop(t).is_some_and(|(s, _)| s <= t)
    }
}

impl Away {
    /// Whether the account is on vacation at `t`.
    pub fn on_vacation(&self, t: i64) -> bool {
        self.vacations.iter().any(|&(s, e)| s <= t && t < e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000;
    /// Monday 2026-12-07 00:00 UTC.
    const MONDAY: i64 = 1_796_601_600_000;

    fn away(tz_min: i32) -> Away {
        Away {
            tz_min,
            vacations: vec![],
        }
    }

    #[test]
    fn the_test_monday_is_a_monday() {
        assert_eq!((MONDAY / DAY_MS + 3).rem_euclid(7), 0);
    }

    #[test]
    fn without_weekends_or_vacations_wall_time_counts() {
        let a = away(540);
        let c = Calendar {
            away: &a,
            weekends: false,
        };
        assert_eq!(c.counted(MONDAY, MONDAY + 10 * DAY_MS), 10 * DAY_MS);
        assert_eq!(c.after(MONDAY, 10 * DAY_MS), MONDAY + 10 * DAY_MS);
        assert!(!c.stopped_at(MONDAY + 5 * DAY_MS));
    }

    #[test]
    fn weekends_in_utc_skip_saturday_and_sunday() {
        let a = away(0);
        let c = Calendar {
            away: &a,
            weekends: true,
        };
        // Monday to the next Monday: five days count.
        assert_eq!(c.counted(MONDAY, MONDAY + 7 * DAY_MS), 5 * DAY_MS);
        // Five days from Wednesday noon: Wed, Thu, Fri (2.5 days), then Mon, Tue (2.5): Wed noon.
        let wed = MONDAY + 2 * DAY_MS + 12 * H;
        assert_eq!(c.after(wed, 5 * DAY_MS), wed + 7 * DAY_MS);
        // From Friday 18:00, 6 hours reach Saturday 00:00: the flag falls then, not later.
        let fri = MONDAY + 4 * DAY_MS + 18 * H;
        assert_eq!(c.after(fri, 6 * H), MONDAY + 5 * DAY_MS);
        // 7 hours: an hour into Monday.
        assert_eq!(c.after(fri, 7 * H), MONDAY + 7 * DAY_MS + H);
        // A turn begun on a Saturday starts counting on Monday.
        let sat = MONDAY + 5 * DAY_MS + 3 * H;
        assert_eq!(c.counted(sat, MONDAY + 7 * DAY_MS + 2 * H), 2 * H);
        assert!(c.stopped_at(sat));
    }

    #[test]
    fn weekends_east_of_utc_begin_earlier_in_utc() {
        // Seoul (UTC+9): Saturday 00:00 there is Friday 15:00 UTC.
        let a = away(540);
        let c = Calendar {
            away: &a,
            weekends: true,
        };
        let fri_15 = MONDAY + 4 * DAY_MS + 15 * H;
        assert!(c.stopped_at(fri_15));
        assert!(!c.stopped_at(fri_15 - 1));
        assert_eq!(c.after(MONDAY + 4 * DAY_MS, 15 * H), fri_15);
        // And it ends Sunday 15:00 UTC.
        assert_eq!(
            c.after(MONDAY + 4 * DAY_MS, 16 * H),
            fri_15 + 2 * DAY_MS + H
        );
    }

    #[test]
    fn weekends_west_of_utc_begin_later_in_utc() {
        // New York in winter (UTC−5): Saturday 00:00 there is Saturday 05:00 UTC.
        let a = away(-300);
        let c = Calendar {
            away: &a,
            weekends: true,
        };
        let sat_5 = MONDAY + 5 * DAY_MS + 5 * H;
        assert!(!c.stopped_at(sat_5 - 1));
        assert!(c.stopped_at(sat_5));
        assert_eq!(c.counted(MONDAY, MONDAY + 7 * DAY_MS), 5 * DAY_MS);
        // Monday 00:00 UTC is still Sunday there: stopped until 05:00 UTC.
        assert!(c.stopped_at(MONDAY + 7 * DAY_MS + 4 * H));
        assert_eq!(c.after(sat_5 - H, 2 * H), MONDAY + 7 * DAY_MS + 6 * H);
    }

    #[test]
    fn vacations_and_weekends_together_count_their_overlap_once() {
        // On vacation from Friday noon to Tuesday noon: from Monday to the next Wednesday,
        // 4.5 days before it and half a day after it count, with weekends paused or not.
        let a = Away {
            tz_min: 0,
            vacations: vec![(MONDAY + 4 * DAY_MS + 12 * H, MONDAY + 8 * DAY_MS + 12 * H)],
        };
        let c = Calendar {
            away: &a,
            weekends: true,
        };
        assert_eq!(c.counted(MONDAY, MONDAY + 9 * DAY_MS), 5 * DAY_MS);
        assert_eq!(c.after(MONDAY, 5 * DAY_MS), MONDAY + 9 * DAY_MS);
        let no_weekends = Calendar {
            away: &a,
            weekends: false,
        };
        assert_eq!(no_weekends.counted(MONDAY, MONDAY + 9 * DAY_MS), 5 * DAY_MS);
        assert!(a.on_vacation(MONDAY + 6 * DAY_MS));
        assert!(!a.on_vacation(MONDAY + 8 * DAY_MS + 12 * H));
    }
}
