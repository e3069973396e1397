//! Game clocks kept by the server: Go's time controls (absolute, byo-yomi, Canadian, Fischer,
//! Ing, correspondence in days) and Wall Go's per-turn limit. Times are in milliseconds; a clock is charged when its side
//! acts and flags when the side to move reaches [`Clocks::flag_after`].

pub use crate::store::types::{ClockKind, Clocks, SideClock};
use baduk_go::TimeControl;
use serde_json::{json, Value};

/// Ing rules: each extension is 35 minutes (seed 002 §4); three may be taken, a fourth loses.
pub const ING_EXTENSION_MS: i64 = 35 * 60 * 1000;
/// Ing rules: the most extensions a player may take.
pub const ING_MAX_EXTENSIONS: u32 = 3;

/// What charging a move did to the mover's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charge {
    /// Still in time.
    InTime,
    /// The time ran out before the move.
    Flagged,
}

fn secs(s: u32) -> i64 {
    s as i64 * 1000
}

fn days(d: u32) -> i64 {
    d as i64 * crate::game::calendar::DAY_MS
}

impl Clocks {
    /// Fresh clocks of `kind`.
    pub fn new(kind: ClockKind) -> Clocks {
        let side = match kind {
            ClockKind::None => SideClock::default(),
            ClockKind::Turn(ms) => SideClock {
                main_ms: ms,
                ..SideClock::default()
            },
            ClockKind::Go(tc) => match tc {
                TimeControl::None => SideClock::default(),
                TimeControl::Absolute { main }
                | TimeControl::Fischer { main, .. }
                | TimeControl::Ing { main } => SideClock {
                    main_ms: secs(main),
                    ..SideClock::default()
                },
                TimeControl::Correspondence { days: d, .. } => SideClock {
                    main_ms: days(d),
                    ..SideClock::default()
                },
                TimeControl::ByoYomi { main, periods, .. } => SideClock {
                    main_ms: secs(main),
                    periods,
                    ..SideClock::default()
                },
                TimeControl::Canadian {
                    main,
                    stones,
                    period,
                } => SideClock {
                    main_ms: secs(main),
                    // Without main time the first period starts at once.
                    stones: if main == 0 { stones } else { 0 },
                    period_ms: if main == 0 { secs(period) } else { 0 },
                    ..SideClock::default()
                },
            },
        };
        Clocks {
            kind,
            sides: [side; 2],
        }
    }

    /// Whether any clock runs at all.
    pub fn is_running_kind(&self) -> bool {
        !matches!(
            self.kind,
            ClockKind::None | ClockKind::Go(TimeControl::None) | ClockKind::Turn(0)
        )
    }

    /// Milliseconds from the start of `side`'s turn until its time runs out (None: no clock).
    pub fn flag_after(&self, side: usize) -> Option<i64> {
        let c = &self.sides[side];
        match self.kind {
            ClockKind::None => None,
            ClockKind::Turn(ms) => (ms > 0).then_some(ms),
            ClockKind::Go(tc) => match tc {
                TimeControl::None => None,
                TimeControl::Absolute { .. }
                | TimeControl::Fischer { .. }
                | TimeControl::Correspondence { .. } => Some(c.main_ms),
                TimeControl::ByoYomi { period, .. } => {
                    Some(c.main_ms + c.periods as i64 * secs(period))
                }
                TimeControl::Canadian { period, .. } => Some(if c.stones > 0 {
                    c.period_ms
                } else {
                    c.main_ms + secs(period)
                }),
                TimeControl::Ing { .. } => Some(
                    c.main_ms
                        + (ING_MAX_EXTENSIONS.saturating_sub(c.extensions)) as i64
                            * ING_EXTENSION_MS,
                ),
            },
        }
    }

    /// Charges `side` for a move made `elapsed` ms into its turn and applies what follows the
    /// move (byo-yomi period reset, Canadian stone count, Fischer increment, Ing extensions).
    pub fn charge(&mut self, side: usize, elapsed: i64) -> Charge {
        let elapsed = elapsed.max(0);
        if let Some(limit) = self.flag_after(side) {
            if elapsed > limit {
                self.sides[side] = self.after_flag(side);
                return Charge::Flagged;
            }
        }
        let kind = self.kind;
        let c = &mut self.sides[side];
        match kind {
            ClockKind::None => {}
            ClockKind::Turn(ms) => c.main_ms = ms,
            ClockKind::Go(tc) => match tc {
                TimeControl::None => {}
                TimeControl::Absolute { .. } => c.main_ms -= elapsed,
                TimeControl::Fischer { increment, .. } => {
                    c.main_ms = c.main_ms - elapsed + secs(increment)
                }
                TimeControl::Correspondence {
                    days: d, max_days, ..
                } => c.main_ms = (c.main_ms - elapsed + days(d)).min(days(max_days)),
                TimeControl::ByoYomi { period, .. } => {
                    c.main_ms -= elapsed;
                    if c.main_ms < 0 {
                        let over = -c.main_ms;
                        c.main_ms = 0;
                        // Each period wholly used up is gone; the one the move fell in resets.
                        c.periods -= (over / secs(period).max(1)) as u32;
                    }
                }
                TimeControl::Canadian { stones, period, .. } => {
                    if c.stones == 0 {
                        c.main_ms -= elapsed;
                        if c.main_ms < 0 {
                            c.period_ms = secs(period) + c.main_ms;
                            c.main_ms = 0;
                            c.stones = stones;
                        }
                    } else {
                        c.period_ms -= elapsed;
                    }
                    if c.stones > 0 {
                        c.stones -= 1;
                        if c.stones == 0 {
                            c.stones = stones;
                            c.period_ms = secs(period);
                        }
                    }
                }
                TimeControl::Ing { .. } => {
                    c.main_ms -= elapsed;
                    while c.main_ms < 0 && c.extensions < ING_MAX_EXTENSIONS {
                        c.main_ms += ING_EXTENSION_MS;
                        c.extensions += 1;
                    }
                }
            },
        }
        Charge::InTime
    }

    /// `side`'s clock once its time has run out.
    fn after_flag(&self, side: usize) -> SideClock {
        let mut c = self.sides[side];
        c.main_ms = 0;
        c.period_ms = 0;
        c.periods = 0;
        if matches!(self.kind, ClockKind::Go(TimeControl::Ing { .. })) {
            // A fourth extension would have been needed: that loses (seed 002 §4).
            c.extensions = ING_MAX_EXTENSIONS + 1;
        }
        c
    }

    /// Marks `side` as out of time.
    pub fn flag(&mut self, side: usize) {
        self.sides[side] = self.after_flag(side);
    }

    /// Ing extensions each side took, as the scorer counts them (a fourth means a loss).
    pub fn ing_extensions(&self) -> [u32; 2] {
        match self.kind {
            ClockKind::Go(TimeControl::Ing { .. }) => {
                [self.sides[0].extensions, self.sides[1].extensions]
            }
            _ => [0, 0],
        }
    }

    /// `side`'s clock `elapsed` ms into its turn, as it stands then (nothing charged, nothing of
    /// what follows a move applied).
    fn spent(&self, side: usize, elapsed: i64) -> SideClock {
        let mut c = self.sides[side];
        let left = self.flag_after(side).unwrap_or(0) - elapsed;
        match self.kind {
            ClockKind::Go(TimeControl::ByoYomi { period, .. }) => {
                let main_left = c.main_ms - elapsed;
                if main_left >= 0 {
                    c.main_ms = main_left;
                } else {
                    let over = -main_left;
                    let used = (over / secs(period).max(1)) as u32;
                    c.main_ms = 0;
                    c.periods = c.periods.saturating_sub(used);
                    c.period_ms = secs(period) - over % secs(period).max(1);
                }
            }
            ClockKind::Go(TimeControl::Canadian { period, stones, .. }) => {
                if c.stones == 0 {
                    let main_left = c.main_ms - elapsed;
                    if main_left >= 0 {
                        c.main_ms = main_left;
                    } else {
                        c.main_ms = 0;
                        c.stones = stones;
                        c.period_ms = secs(period) + main_left;
                    }
                } else {
                    c.period_ms -= elapsed;
                }
            }
            ClockKind::Go(TimeControl::Ing { .. }) => {
                c.main_ms -= elapsed;
                while c.main_ms < 0 && c.extensions < ING_MAX_EXTENSIONS {
                    c.main_ms += ING_EXTENSION_MS;
                    c.extensions += 1;
                }
            }
            _ => c.main_ms -= elapsed,
        }
        if left <= 0 {
            c.main_ms = 0;
            c.period_ms = 0;
        }
        c
    }

    /// Charges `side` for a turn that ended without a move (a resignation) after `elapsed` ms:
    /// the time is spent, and nothing that follows a move (period reset, increment) applies.
    pub fn stop(&mut self, side: usize, elapsed: i64) {
        if elapsed > 0 {
            self.sides[side] = self.spent(side, elapsed);
        }
    }

    /// The JSON view of `side`'s clock, `elapsed` ms into its turn when `running`.
    pub fn view(&self, side: usize, running: bool, elapsed: i64) -> Value {
        let mut c = self.sides[side];
        let kind = match self.kind {
            ClockKind::None => return Value::Null,
            ClockKind::Turn(0) => return Value::Null,
            ClockKind::Turn(_) => "turn",
            ClockKind::Go(tc) => match tc {
                TimeControl::None => return Value::Null,
                TimeControl::Absolute { .. } => "absolute",
                TimeControl::ByoYomi { .. } => "byo-yomi",
                TimeControl::Canadian { .. } => "canadian",
                TimeControl::Fischer { .. } => "fischer",
                TimeControl::Ing { .. } => "ing",
                TimeControl::Correspondence { .. } => "correspondence",
            },
        };
        let (period_ms, stones_per_period) = match self.kind {
            ClockKind::Go(TimeControl::ByoYomi { period, .. }) => (secs(period), 0),
            ClockKind::Go(TimeControl::Canadian { period, stones, .. }) => (secs(period), stones),
            _ => (0, 0),
        };
        if running && elapsed > 0 {
            // Show the clock as it stands now, without charging it.
            c = self.spent(side, elapsed);
        } else if matches!(self.kind, ClockKind::Go(TimeControl::ByoYomi { .. }))
            && c.main_ms == 0
            && c.period_ms <= 0
        {
            c.period_ms = period_ms;
        }
        json!({
            "kind": kind,
            "main_ms": c.main_ms.max(0),
            "periods": c.periods,
            "period_ms": c.period_ms.max(0),
            "period_length_ms": period_ms,
            "stones": c.stones,
            "stones_per_period": stones_per_period,
            "extensions": c.extensions,
            "running": running,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(tc: &str) -> Clocks {
        let mut r = baduk_go::Rules::preset(baduk_go::Preset::Japanese);
        r.set("time", tc).unwrap();
        Clocks::new(ClockKind::Go(r.time))
    }

    #[test]
    fn byo_yomi_a_move_inside_a_period_keeps_it_and_each_overrun_period_is_lost() {
        let mut c = go("byo-yomi:10:3:5");
        assert_eq!(c.flag_after(0), Some(10_000 + 15_000));
        assert_eq!(c.charge(0, 12_000), Charge::InTime); // 2 s into the first period
        assert_eq!(c.sides[0].periods, 3);
        assert_eq!(c.charge(0, 11_000), Charge::InTime); // two whole periods used up
        assert_eq!(c.sides[0].periods, 1);
        assert_eq!(c.flag_after(0), Some(5_000));
        assert_eq!(c.charge(0, 5_001), Charge::Flagged);
    }

    #[test]
    fn canadian_overtime_needs_the_stones_within_the_period() {
        let mut c = go("canadian:1:2:10");
        assert_eq!(c.charge(0, 2_000), Charge::InTime); // 1 s into overtime: 1 stone to go
        assert_eq!((c.sides[0].stones, c.sides[0].period_ms), (1, 9_000));
        assert_eq!(c.charge(0, 4_000), Charge::InTime); // period done: a fresh one
        assert_eq!((c.sides[0].stones, c.sides[0].period_ms), (2, 10_000));
        assert_eq!(c.flag_after(0), Some(10_000));
    }

    #[test]
    fn fischer_adds_the_increment_and_absolute_does_not() {
        let mut f = go("fischer:10:5");
        f.charge(1, 3_000);
        assert_eq!(f.sides[1].main_ms, 12_000);
        let mut a = go("absolute:10");
        a.charge(1, 3_000);
        assert_eq!(a.sides[1].main_ms, 7_000);
        assert_eq!(a.charge(1, 7_001), Charge::Flagged);
    }

    #[test]
    fn ing_seed_002_extensions_of_35_minutes_three_at_most_a_fourth_loses() {
        let mut c = go("ing:60");
        assert_eq!(c.charge(0, 61_000), Charge::InTime);
        assert_eq!(c.sides[0].extensions, 1);
        assert_eq!(c.ing_extensions(), [1, 0]);
        assert_eq!(
            c.flag_after(0),
            Some(ING_EXTENSION_MS - 1_000 + 2 * ING_EXTENSION_MS)
        );
        c.flag(0);
        assert_eq!(c.ing_extensions(), [4, 0]);
    }

    #[test]
    fn wall_go_turn_clock_resets_every_turn() {
        let mut c = Clocks::new(ClockKind::Turn(60_000));
        assert_eq!(c.charge(0, 59_000), Charge::InTime);
        assert_eq!(c.sides[0].main_ms, 60_000);
        assert_eq!(c.charge(0, 60_001), Charge::Flagged);
    }

    #[test]
    fn correspondence_adds_its_days_after_a_move_up_to_the_cap() {
        let mut c = go("correspondence:3:7");
        assert_eq!(c.flag_after(0), Some(3 * 86_400_000));
        assert_eq!(c.charge(0, 86_400_000), Charge::InTime);
        assert_eq!(c.sides[0].main_ms, 5 * 86_400_000);
        assert_eq!(c.charge(0, 0), Charge::InTime);
        assert_eq!(c.sides[0].main_ms, 7 * 86_400_000); // capped
        assert_eq!(c.charge(1, 3 * 86_400_000 + 1), Charge::Flagged);
        assert_eq!(c.view(0, false, 0)["kind"], "correspondence");
        let w = go("correspondence:1:2:weekends");
        let s = serde_json::to_string(&w).unwrap();
        assert_eq!(serde_json::from_str::<Clocks>(&s).unwrap(), w);
    }

    #[test]
    fn clock_kind_round_trips_through_json() {
        let c = go("byo-yomi:600:5:30");
        let s = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<Clocks>(&s).unwrap(), c);
    }
}
