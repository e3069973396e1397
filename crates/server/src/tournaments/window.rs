//! An event's time window, `[starts_at, expected end)`: how long a round of its games may last
//! by their clock, and whether two events would seat one player twice at once.

use super::rows::Tournament;
use crate::game::room::Settings;
use baduk_go::TimeControl;

/// What a round takes beyond its clocks (ms): pairing, seating, the players finding the game.
pub const ROUND_SLACK_MS: i64 = 5 * 60_000;
/// A round of games without a clock (ms): an hour.
pub const NO_CLOCK_ROUND_MS: i64 = 3_600_000;
/// The turns counted in a Wall Go game with a turn limit.
pub const WALLGO_TURNS: i64 = 60;

/// How long one round of games under `settings` may last (ms): both players' main time, plus
/// the time a move adds (an increment, a byo-yomi or Canadian period's share, a
/// correspondence move's days) over a game of half the board's points in moves, plus
/// [`ROUND_SLACK_MS`]; Wall Go [`WALLGO_TURNS`] turns at its limit; no clock: an hour.
pub fn round_length(settings: &Settings) -> i64 {
    const S: i64 = 1000;
    const DAY: i64 = 24 * 3_600_000;
    match settings {
        Settings::Wallgo { turn_ms, .. } if *turn_ms > 0 => WALLGO_TURNS * turn_ms + ROUND_SLACK_MS,
        Settings::Wallgo { .. } => NO_CLOCK_ROUND_MS,
        Settings::Go { rules, .. } => {
            let Ok(r) = baduk_go::Rules::parse(rules) else {
                return NO_CLOCK_ROUND_MS;
            };
            let moves = (r.size.area() as i64 / 2).max(1);
            let (main, per_move) = match r.time {
                TimeControl::None => return NO_CLOCK_ROUND_MS,
                TimeControl::Absolute { main } => (main as i64 * S, 0),
                TimeControl::Fischer { main, increment } => (main as i64 * S, increment as i64 * S),
                TimeControl::ByoYomi { main, period, .. } => (main as i64 * S, period as i64 * S),
                TimeControl::Canadian {
                    main,
                    stones,
                    period,
                } => (main as i64 * S, period as i64 * S / stones.max(1) as i64),
                TimeControl::Ing { main } => (
                    main as i64 * S
                        + crate::game::clock::ING_MAX_EXTENSIONS as i64
                            * crate::game::clock::ING_EXTENSION_MS,
                    0,
                ),
                TimeControl::Correspondence { days, .. } => (days as i64 * DAY, days as i64 * DAY),
            };
            2 * main + moves * per_move + ROUND_SLACK_MS
        }
    }
}

/// The rounds event `t` is counted with: its own, or a round robin's before its start (its
/// largest field less one).
fn rounds_counted(t: &Tournament) -> i64 {
    if t.format == "round-robin" && t.rounds == 0 {
        (t.options.max_players - 1).max(1)
    } else {
        t.rounds.max(1)
    }
}

/// When event `t` is expected to end (ms): an arena at its end, the others after their rounds.
pub fn expected_end(t: &Tournament) -> i64 {
    if t.format == "arena" {
        return t.starts_at + t.minutes * 60_000;
    }
    t.starts_at
        .saturating_add(rounds_counted(t).saturating_mul(round_length(&t.settings)))
}

/// Whether events `a` and `b` may seat one player at the same time: one of them runs, or their
/// windows overlap.
pub fn clash(a: &Tournament, b: &Tournament) -> bool {
    a.status == "running"
        || b.status == "running"
        || (a.starts_at < expected_end(b) && b.starts_at < expected_end(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(clock: &str) -> Settings {
        Settings::Go {
            rules: format!("japanese,size=9,time={clock}"),
            handicap: 0,
        }
    }

    #[test]
    fn a_round_lasts_both_clocks_and_the_moves_they_add() {
        // 9×9: 40 moves; both mains, the increment on each move, five minutes.
        let five = ROUND_SLACK_MS;
        assert_eq!(round_length(&go("fischer:20:1")), 40_000 + 40_000 + five);
        assert_eq!(round_length(&go("absolute:600")), 1_200_000 + five);
        assert_eq!(
            round_length(&go("byo-yomi:60:3:10")),
            120_000 + 400_000 + five
        );
        assert_eq!(round_length(&go("none")), NO_CLOCK_ROUND_MS);
        assert_eq!(
            round_length(&go("correspondence:1:3")),
            (2 + 40) * 86_400_000 + five
        );
        let wall = Settings::Wallgo {
            variant: String::new(),
            turn_ms: 10_000,
        };
        assert_eq!(round_length(&wall), 600_000 + five);
    }
}
