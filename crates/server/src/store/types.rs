//! The plain data the store keeps for a game: its settings, seats and players, the action log
//! with the clocks after each action, and the rating changes its result made. Defined here, at
//! the bottom, so the store reads and writes them without naming the game core above it; what
//! the game does with them (charging a clock, showing a player, replaying an action) is in
//! `game` (`game::room`, `game::clock` and `game::ratings` re-export these types by their old
//! names). The rating kind of a game's settings ([`kind_of`]) is here too: it is the key under
//! which the store reads a seat's rating.

use baduk_go::TimeControl;
use serde::{Deserialize, Serialize};

/// Who sits in a seat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatSpec {
    /// `human` (token given at creation), `open` (claimed with `join`) or `bot`.
    pub kind: String,
    /// The bot's name (`baduk`; `random easy medium expert sedol`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<String>,
    /// The bot's options (`time=1`, `nodes=20000`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<String>,
}

impl SeatSpec {
    /// Whether a bot sits here.
    pub fn is_bot(&self) -> bool {
        self.kind == "bot"
    }
}

/// A game's settings as stored (normalised by the library).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "lowercase")]
pub enum Settings {
    /// Go: the full rules string (size, komi and time included) and the handicap.
    Go {
        /// The rules string.
        rules: String,
        /// Handicap stones.
        handicap: u32,
    },
    /// Wall Go: the variant line and the turn limit in milliseconds (0: none).
    Wallgo {
        /// The variant.
        variant: String,
        /// Milliseconds per turn.
        turn_ms: i64,
    },
}

/// An account in a seat, as the game shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Player {
    /// The account's id (never shown).
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its rating for this game's kind when the game was loaded: (rating, deviation, games).
    pub rating: Option<(f64, f64, i64)>,
    /// A bot account (the Bot API): marked BOT wherever it is named.
    #[serde(default)]
    pub bot: bool,
    /// When its correspondence clocks stop: its time zone and vacations.
    #[serde(default)]
    pub away: Away,
}

/// What stops an account's correspondence clocks: its weekends (in its time zone) and its
/// vacations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Away {
    /// The account's time zone, in minutes east of UTC.
    #[serde(default)]
    pub tz_min: i32,
    /// Its vacations as `[start, end)` in ms, oldest first; one still running ends when its
    /// bank is spent (its end is then), or sooner when it is turned off.
    #[serde(default)]
    pub vacations: Vec<(i64, i64)>,
}

/// One stored action.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionRow {
    /// 1-based number in the game's log.
    pub seq: i64,
    /// The seat that acted (0 or 1).
    pub seat: usize,
    /// The action in the game's notation.
    pub action: String,
    /// When it was stored, in ms since 1970.
    pub at: i64,
    /// Whether the server's clock played it (a timeout, or Wall Go's automatic turn).
    pub auto: bool,
    /// Both clocks after the action.
    pub clocks: Clocks,
}

/// The kind of clock a game runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClockKind {
    /// No clock.
    None,
    /// A Go time control.
    Go(#[serde(with = "tc_string")] TimeControl),
    /// Wall Go: this many milliseconds for every turn.
    Turn(i64),
}

mod tc_string {
    use baduk_go::TimeControl;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(tc: &TimeControl, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&tc.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TimeControl, D::Error> {
        let s = String::deserialize(d)?;
        let mut r = baduk_go::Rules::preset(baduk_go::Preset::Chinese);
        r.set("time", &s).map_err(serde::de::Error::custom)?;
        Ok(r.time)
    }
}

/// One side's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideClock {
    /// Main time left (Wall Go: the turn's time).
    pub main_ms: i64,
    /// Byo-yomi periods left.
    pub periods: u32,
    /// Canadian: time left in the current overtime period.
    pub period_ms: i64,
    /// Canadian: stones still to play in the current period (0: not yet in overtime).
    pub stones: u32,
    /// Ing extensions taken.
    pub extensions: u32,
}

/// Both sides' clocks under one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    /// The time control.
    pub kind: ClockKind,
    /// The two sides (seat 0 and seat 1).
    pub sides: [SideClock; 2],
}

/// One player's rating before and after a rated game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChange {
    /// The seat.
    pub seat: usize,
    /// The rating kind.
    pub kind: String,
    /// Before the game.
    pub before: baduk_rating::Rating,
    /// After it.
    pub after: baduk_rating::Rating,
}

/// The rating kinds: Go 19×19, Go 9×9 and 13×13 together, Wall Go, Go by correspondence.
pub const KINDS: &[&str] = &["go19", "go-small", "wallgo", "go-corr"];

/// Whether a game with these settings runs a correspondence clock (days a move).
pub fn is_correspondence(settings: &Settings) -> bool {
    match settings {
        Settings::Go { rules, .. } => baduk_go::Rules::parse(rules)
            .is_ok_and(|r| matches!(r.time, TimeControl::Correspondence { .. })),
        Settings::Wallgo { .. } => false,
    }
}

/// The rating a game with these settings counts for; None: it cannot be rated (another size, a
/// rectangle, a Wall Go variant).
pub fn kind_of(settings: &Settings) -> Option<&'static str> {
    match settings {
        Settings::Go { rules, .. } => {
            let r = baduk_go::Rules::parse(rules).ok()?;
            let (c, w) = (r.size.cols(), r.size.rows());
            let corr = matches!(r.time, TimeControl::Correspondence { .. });
            match (c, w) {
                (9, 9) | (13, 13) | (19, 19) if corr => Some("go-corr"),
                (19, 19) => Some("go19"),
                (9, 9) | (13, 13) => Some("go-small"),
                _ => None,
            }
        }
        Settings::Wallgo { variant, .. } => {
            let v: baduk_wallgo::Variant = variant.parse().ok()?;
            let standard = baduk_wallgo::Variant {
                seconds_per_turn: v.seconds_per_turn,
                ..baduk_wallgo::Variant::default()
            };
            (v == standard).then_some("wallgo")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_board() {
        let go = |rules: &str| Settings::Go {
            rules: rules.into(),
            handicap: 0,
        };
        assert_eq!(kind_of(&go("japanese")), Some("go19"));
        assert_eq!(kind_of(&go("chinese,size=9")), Some("go-small"));
        assert_eq!(kind_of(&go("chinese,size=13")), Some("go-small"));
        assert_eq!(kind_of(&go("chinese,size=7")), None);
        assert_eq!(
            kind_of(&go("japanese,time=correspondence:3:7")),
            Some("go-corr")
        );
        assert_eq!(
            kind_of(&go("chinese,size=9,time=correspondence:1:2:weekends")),
            Some("go-corr")
        );
    }
}

/// When a stored game must be looked at next and whose move it is (the `games` row's schedule
/// columns, written with every action).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    /// The account seated at the side to move (None: over, or no account sits there).
    pub to_move: Option<String>,
    /// When the current turn began (ms).
    pub turn_since: Option<i64>,
    /// When the side to move's clock runs out (ms; None: no clock).
    pub deadline: Option<i64>,
    /// The earliest time the server may end the game (clock or policy; None: never).
    pub wake_at: Option<i64>,
}
