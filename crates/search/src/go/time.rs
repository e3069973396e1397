//! Time management: how long to think for the next move under absolute, byo-yomi, Canadian and
//! Fischer clocks.

use std::time::Duration;

/// A clock system, as GTP `time_settings` / `kgs-time_settings` describe it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// No time limit.
    None,
    /// `main` seconds for the whole game.
    Absolute {
        /// Main time in seconds.
        main: f64,
    },
    /// Main time, then `periods` periods of `period` seconds (a period is lost when overrun).
    ByoYomi {
        /// Main time in seconds.
        main: f64,
        /// Length of one period in seconds.
        period: f64,
        /// Number of periods.
        periods: u32,
    },
    /// Main time, then `stones` moves in every `period` seconds.
    Canadian {
        /// Main time in seconds.
        main: f64,
        /// Length of one period in seconds.
        period: f64,
        /// Stones to play within a period.
        stones: u32,
    },
    /// Main time plus `increment` seconds added after each move.
    Fischer {
        /// Main time in seconds.
        main: f64,
        /// Seconds added per move.
        increment: f64,
    },
}

/// What is left on one player's clock (GTP `time_left`): seconds, and stones or periods left
/// (0 while in main time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeLeft {
    /// Seconds left in the current main time or period.
    pub seconds: f64,
    /// Stones (Canadian) or periods (byo-yomi) left; 0 in main time.
    pub stones: u32,
}

/// The thinking time for the next move; `empty_points` estimates how much game remains.
/// `None` when the clock sets no limit.
pub fn budget(
    clock: Clock,
    left: Option<TimeLeft>,
    empty_points: usize,
    safety: f64,
) -> Option<Duration> {
    let moves_left = (empty_points as f64 * 0.5).max(10.0);
    let secs = match clock {
        Clock::None => return None,
        Clock::Absolute { main } => {
            let rem = left.map(|l| l.seconds).unwrap_or(main);
            rem / moves_left
        }
        Clock::ByoYomi {
            main,
            period,
            periods,
        } => {
            let (rem, in_byo) = match left {
                Some(l) if l.stones > 0 => (l.seconds, true),
                Some(l) => (l.seconds, false),
                None => (main, main <= 0.0),
            };
            if in_byo || rem <= 0.0 {
                period.min(if rem > 0.0 { rem } else { period }) * 0.8
            } else {
                let _ = periods;
                rem / moves_left + period * 0.6
            }
        }
        Clock::Canadian {
            main,
            period,
            stones,
        } => {
            let (rem, st, in_byo) = match left {
                Some(l) if l.stones > 0 => (l.seconds, l.stones, true),
                Some(l) => (l.seconds, stones, false),
                None => (main, stones, main <= 0.0),
            };
            if in_byo || rem <= 0.0 {
                let rem = if rem > 0.0 { rem } else { period };
                rem / st.max(1) as f64 * 0.85
            } else {
                rem / moves_left + period / stones.max(1) as f64 * 0.5
            }
        }
        Clock::Fischer { main, increment } => {
            let rem = left.map(|l| l.seconds).unwrap_or(main);
            (rem / moves_left + increment * 0.8).min(rem * 0.5)
        }
    };
    // Clocks come from the network: never trust them to be finite or sane.
    let secs = secs - safety;
    let secs = if secs.is_finite() {
        secs.clamp(0.01, 86_400.0)
    } else {
        0.01
    };
    Some(Duration::from_secs_f64(secs))
}

/// The longest the next move may think when its two best moves are close (see `extend`):
/// a tenth of the main time left (plus the share of a period or increment that [`budget`]
/// gives); in byo-yomi or a Canadian period, no more than [`budget`]'s share (a lost period
/// or an overrun costs more than a close call). `None` when the clock sets no limit.
pub fn longest(
    clock: Clock,
    left: Option<TimeLeft>,
    empty_points: usize,
    safety: f64,
) -> Option<Duration> {
    let nominal = budget(clock, left, empty_points, safety)?;
    let in_main = |main: f64| match left {
        Some(l) if l.stones > 0 => None,
        Some(l) if l.seconds > 0.0 => Some(l.seconds),
        Some(_) => None,
        None if main > 0.0 => Some(main),
        None => None,
    };
    let secs = match clock {
        Clock::None => return None,
        Clock::Absolute { main } => in_main(main).map(|rem| rem * 0.1),
        Clock::ByoYomi { main, period, .. } => in_main(main).map(|rem| rem * 0.1 + period * 0.6),
        Clock::Canadian {
            main,
            period,
            stones,
        } => in_main(main).map(|rem| rem * 0.1 + period / stones.max(1) as f64 * 0.5),
        Clock::Fischer { main, increment } => {
            in_main(main).map(|rem| (rem * 0.1 + increment * 0.8).min(rem * 0.5))
        }
    };
    let secs = secs.map_or(0.0, |s| s - safety);
    let secs = if secs.is_finite() {
        secs.clamp(0.0, 86_400.0)
    } else {
        0.0
    };
    Some(Duration::from_secs_f64(secs).max(nominal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_time_is_spread_over_the_remaining_moves() {
        let d = budget(Clock::Absolute { main: 100.0 }, None, 80, 0.0).unwrap();
        assert!((d.as_secs_f64() - 2.5).abs() < 1e-9);
    }

    #[test]
    fn byo_yomi_uses_most_of_a_period_once_main_time_is_gone() {
        let c = Clock::ByoYomi {
            main: 0.0,
            period: 10.0,
            periods: 3,
        };
        let d = budget(
            c,
            Some(TimeLeft {
                seconds: 10.0,
                stones: 3,
            }),
            200,
            0.0,
        )
        .unwrap();
        assert!((d.as_secs_f64() - 8.0).abs() < 1e-9);
    }

    #[test]
    fn canadian_divides_the_period_by_the_stones_left() {
        let c = Clock::Canadian {
            main: 0.0,
            period: 300.0,
            stones: 25,
        };
        let d = budget(
            c,
            Some(TimeLeft {
                seconds: 100.0,
                stones: 10,
            }),
            200,
            0.0,
        )
        .unwrap();
        assert!((d.as_secs_f64() - 8.5).abs() < 1e-9);
    }

    #[test]
    fn absurd_clocks_give_a_short_finite_budget() {
        for main in [f64::INFINITY, f64::NAN, -5.0, 1e300] {
            let d = budget(Clock::Absolute { main }, None, 80, 0.0).unwrap();
            assert!(d <= Duration::from_secs(86_400));
        }
    }

    #[test]
    fn close_calls_may_take_a_tenth_of_the_bank_but_never_more_in_byo_yomi() {
        let d = longest(Clock::Absolute { main: 100.0 }, None, 80, 0.0).unwrap();
        assert!((d.as_secs_f64() - 10.0).abs() < 1e-9);
        // Late in a game the share is larger than a tenth: never below the budget.
        let d = longest(Clock::Absolute { main: 100.0 }, None, 4, 0.0).unwrap();
        assert_eq!(
            d,
            budget(Clock::Absolute { main: 100.0 }, None, 4, 0.0).unwrap()
        );
        let byo = Clock::ByoYomi {
            main: 0.0,
            period: 10.0,
            periods: 3,
        };
        let left = Some(TimeLeft {
            seconds: 10.0,
            stones: 3,
        });
        assert_eq!(longest(byo, left, 200, 0.0), budget(byo, left, 200, 0.0));
        assert_eq!(longest(Clock::None, None, 40, 0.0), None);
        for main in [f64::INFINITY, f64::NAN, -5.0] {
            let d = longest(Clock::Absolute { main }, None, 80, 0.0).unwrap();
            assert!(d <= Duration::from_secs(86_400));
        }
    }

    #[test]
    fn fischer_spends_the_increment_and_a_share_of_the_bank() {
        let c = Clock::Fischer {
            main: 60.0,
            increment: 5.0,
        };
        let d = budget(c, None, 40, 0.0).unwrap();
        assert!((d.as_secs_f64() - (60.0 / 20.0 + 4.0)).abs() < 1e-9);
        assert_eq!(budget(Clock::None, None, 40, 0.0), None);
    }
}
