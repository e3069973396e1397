//! The SGF writer: a [`Game`] as FF\[4\] text that strict readers (sgfmill, Sabaki) accept.

use crate::game::Game;
use crate::point::{Color, Move, Point};
use crate::rules::Rules;
use std::fmt::Write;

/// Game information written into a record's root besides what the game itself holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SgfInfo {
    /// `PB`: Black's name.
    pub black: Option<String>,
    /// `PW`: White's name.
    pub white: Option<String>,
    /// `RE`: the result (`B+3.5`, `W+R`, `0`).
    pub result: Option<String>,
    /// `DT`: the date (`2026-01-31`); `write` puts today's (UTC).
    pub date: Option<String>,
    /// `C`: a comment on the root.
    pub comment: Option<String>,
}

/// Today's date (UTC) as SGF's `DT` writes it: `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    civil_date((secs / 86_400) as i64)
}

/// The date (UTC) of a moment in ms since 1970 as SGF's `DT` writes it: `YYYY-MM-DD`.
pub fn date_at(unix_ms: i64) -> String {
    civil_date(unix_ms.div_euclid(86_400_000))
}

/// The proleptic Gregorian date `days` days after 1970-01-01, as `YYYY-MM-DD`.
pub(crate) fn civil_date(days: i64) -> String {
    // Days since 0000-03-01, in 400-year eras of 146,097 days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Writes `game` as an FF\[4\] SGF (with today's date): see [`write_with`].
pub fn write(game: &Game) -> String {
    write_with(
        game,
        &SgfInfo {
            date: Some(today()),
            ..SgfInfo::default()
        },
    )
}

/// Writes `game` as an FF\[4\] SGF that strict readers (sgfmill, Sabaki) accept: a root with
/// `FF[4]GM[1]CA[UTF-8]AP[baduk:version]`, `SZ[19]` (`SZ[m:n]` only for rectangles), `RU`,
/// `KM`, `HA`, the `info` given, set-up and `PL`, then every move of its history (moves after
/// two passes included, so that the moves lead to the position that was scored).
pub fn write_with(game: &Game, info: &SgfInfo) -> String {
    let size = game.board().size();
    let rules = game.rules();
    let base = Rules::preset(rules.preset).with_size(size);
    // `RU` names the rules alone: the clock has `TM`/`OT`, the komi `KM`.
    let untimed = Rules {
        time: base.time,
        ..*rules
    };
    let plain_preset = base
        == Rules {
            komi: base.komi,
            ..untimed
        };
    let mut out = format!(
        "(;FF[4]GM[1]CA[UTF-8]AP[baduk:{}]",
        escape(env!("CARGO_PKG_VERSION"))
    );
    // FF[4]: `SZ[m:n]` is for rectangles only; a square board is `SZ[n]`.
    if size.cols() == size.rows() {
        let _ = write!(out, "SZ[{}]", size.cols());
    } else {
        let _ = write!(out, "SZ[{}:{}]", size.cols(), size.rows());
    }
    // A plain preset (any komi) goes by its SGF name; anything else as a rules string.
    let ru = if plain_preset {
        rules.sgf_name().to_string()
    } else {
        untimed.name()
    };
    let _ = write!(out, "RU[{}]KM[{}]", escape(&ru), rules.komi.as_f64());
    if game.handicap() >= 2 {
        let _ = write!(out, "HA[{}]", game.handicap());
    }
    for (ident, value) in [
        ("PB", &info.black),
        ("PW", &info.white),
        ("RE", &info.result),
        ("DT", &info.date),
        ("C", &info.comment),
    ] {
        if let Some(v) = value {
            let _ = write!(out, "{ident}[{}]", escape(v));
        }
    }
    let start = game.start_board();
    for (c, ident) in [(Color::Black, "AB"), (Color::White, "AW")] {
        let mut pts: Vec<Point> = start
            .points()
            .filter(|&p| start.get(p) == Some(c))
            .collect();
        if pts.is_empty() {
            continue;
        }
        pts.sort_by_key(|p| (p.x(), size.rows() - 1 - p.y()));
        out.push_str(ident);
        for p in pts {
            let _ = write!(out, "[{}]", p.to_sgf(size));
        }
    }
    if game.start_to_move() == Color::White {
        out.push_str("PL[W]");
    }
    for r in game.history() {
        let m = match r.mv {
            Move::Pass => String::new(),
            Move::Play(p) => p.to_sgf(size),
        };
        let _ = write!(out, ";{}[{m}]", r.color.letter());
    }
    out.push(')');
    out
}

/// A value as SGF text: `\` and `]` escaped.
pub(crate) fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}
