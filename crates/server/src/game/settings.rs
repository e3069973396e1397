//! A game's settings as a create request (and a seek) names them: the JSON of `POST /api/games`
//! checked into `Settings`, or the `ActError` that says what is wrong.

use crate::game::room::{ActError, SeatSpec, Settings};
use baduk_go::{Rules, Size, TimeControl};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The body of `POST /api/games`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CreateReq {
    pub(crate) game: String,
    #[serde(default)]
    pub(crate) size: Option<Value>,
    #[serde(default)]
    pub(crate) rules: Option<String>,
    #[serde(default)]
    pub(crate) komi: Option<f64>,
    #[serde(default)]
    pub(crate) handicap: Option<u32>,
    #[serde(default)]
    pub(crate) clock: Option<String>,
    #[serde(default)]
    pub(crate) pause_weekends: Option<bool>,
    #[serde(default)]
    pub(crate) variant: Option<String>,
    #[serde(default)]
    pub(crate) turn_seconds: Option<f64>,
    #[serde(default)]
    pub(crate) seats: Option<BTreeMap<String, SeatSpec>>,
    #[serde(default)]
    pub(crate) rated: Option<bool>,
    #[serde(default)]
    pub(crate) listed: Option<bool>,
}

/// The settings a create request's JSON names (the seeks read theirs the same way).
pub fn settings_of(v: &Value) -> Result<Settings, ActError> {
    let r: CreateReq = serde_json::from_value(v.clone())
        .map_err(|e| ActError::bad_request(format!("bad settings: {e}")))?;
    checked(&r)
}

/// The settings of a create request (a game, a challenge), checked for its game.
pub(crate) fn checked(r: &CreateReq) -> Result<Settings, ActError> {
    match r.game.as_str() {
        "go" => go_settings(r),
        "wallgo" => wall_settings(r),
        g => Err(ActError::bad_request(format!(
            "game `{g}`: expected go or wallgo"
        ))),
    }
}

/// 400 `rated.kind`: the settings have no rating (an odd size, a Wall Go variant).
pub fn unrated_kind() -> ActError {
    ActError::bad_request(
        "rated: only 9x9, 13x13 and 19x19 Go and Wall Go's standard rules are rated",
    )
    .with_code("rated.kind", Value::Null)
}

/// The settings as challenges and account events show them: Go's
/// `{"game","size":19|[c,r],"rules","komi","handicap","clock","rated"}` (rules without the
/// size, komi and clock it carries), Wall Go's `{"game","variant","turn_seconds","rated"}`.
pub fn settings_json(settings: &Settings, rated: bool) -> Value {
    match settings {
        Settings::Go { rules, handicap } => {
            let Ok(r) = Rules::parse(rules) else {
                return serde_json::json!({"game": "go", "rules": rules, "handicap": handicap, "rated": rated});
            };
            let (c, w) = (r.size.cols(), r.size.rows());
            let size = if c == w {
                serde_json::json!(c)
            } else {
                serde_json::json!([c, w])
            };
            let base = Rules::preset(r.preset);
            let name = Rules {
                size: base.size,
                komi: base.komi,
                time: base.time,
                ..r
            }
            .to_string();
            let mut v = serde_json::json!({"game": "go", "size": size, "rules": name, "komi": r.komi.as_f64(),
                "handicap": handicap, "clock": r.time.to_string(), "rated": rated});
            if let TimeControl::Correspondence {
                days,
                max_days,
                weekends,
            } = r.time
            {
                v["clock"] = serde_json::json!(format!("correspondence:{days}:{max_days}"));
                v["pause_weekends"] = serde_json::json!(weekends);
            }
            v
        }
        Settings::Wallgo { variant, turn_ms } => {
            serde_json::json!({"game": "wallgo", "variant": variant, "turn_seconds": turn_ms / 1000, "rated": rated})
        }
    }
}

/// The largest komi a game is played with, either way (KGS and OGS bound theirs so too).
pub const KOMI_LIMIT: i64 = 150;

/// The arguments of a refused setting: the field, the value given and the range accepted.
fn field(name: &str, value: impl serde::Serialize, min: i64, max: i64) -> Value {
    serde_json::json!({"field": name, "value": value, "min": min, "max": max})
}

/// 400 `settings.komi`: a komi outside ±[`KOMI_LIMIT`], naming the field and its range.
fn komi_out_of_range(k: &str) -> ActError {
    ActError::bad_request(format!(
        "komi {k}: a game's komi is from -{KOMI_LIMIT} to {KOMI_LIMIT}"
    ))
    .with_code("settings.komi", field("komi", k, -KOMI_LIMIT, KOMI_LIMIT))
}

/// The longest time setting accepted (a week, in seconds).
const MAX_SECONDS: u32 = 7 * 24 * 3600;
/// A correspondence clock's days a move: at least this many.
pub const CORR_MIN_DAYS: u32 = 1;
/// A correspondence clock's days a move: at most this many.
pub const CORR_MAX_DAYS: u32 = 30;
/// A correspondence clock's bank: at most this many days.
pub const CORR_MAX_BANK_DAYS: u32 = 60;

/// 400 `settings.clock`: a clock outside its range (the field, the value and the range).
fn clock_out_of_range(m: String, value: &str, min: u32, max: u32) -> ActError {
    ActError::bad_request(m).with_code(
        "settings.clock",
        field("clock", value, min as i64, max as i64),
    )
}

/// Checks a correspondence clock's days and sets `pause_weekends` on it.
fn correspondence(rules: &mut Rules, pause_weekends: Option<bool>) -> Result<(), ActError> {
    let TimeControl::Correspondence {
        days,
        max_days,
        weekends,
    } = rules.time
    else {
        if pause_weekends == Some(true) {
            return Err(ActError::bad_request(
                "pause_weekends: only a correspondence clock (correspondence:DAYS:MAX_DAYS) pauses weekends",
            )
            .with_code("settings.pause_weekends", Value::Null));
        }
        return Ok(());
    };
    let text = format!("correspondence:{days}:{max_days}");
    if !(CORR_MIN_DAYS..=CORR_MAX_DAYS).contains(&days) {
        return Err(clock_out_of_range(
            format!("clock {text}: {CORR_MIN_DAYS} to {CORR_MAX_DAYS} days a move"),
            &text,
            CORR_MIN_DAYS,
            CORR_MAX_DAYS,
        ));
    }
    if !(days..=CORR_MAX_BANK_DAYS).contains(&max_days) {
        return Err(clock_out_of_range(
            format!("clock {text}: at most {days} (the days a move) to {CORR_MAX_BANK_DAYS} days in the bank"),
            &text,
            days,
            CORR_MAX_BANK_DAYS,
        ));
    }
    rules.time = TimeControl::Correspondence {
        days,
        max_days,
        weekends: pause_weekends.unwrap_or(weekends),
    };
    Ok(())
}

pub(crate) fn go_settings(r: &CreateReq) -> Result<Settings, ActError> {
    if r.variant.is_some() || r.turn_seconds.is_some() {
        return Err(ActError::bad_request(
            "variant and turn_seconds are Wall Go settings, not Go",
        ));
    }
    let text = r.rules.as_deref().unwrap_or("japanese");
    if text.len() > 300 {
        return Err(ActError::bad_request("rules: too long"));
    }
    let mut rules = Rules::parse(text).map_err(|e| ActError::bad_request(format!("rules: {e}")))?;
    if let Some(size) = &r.size {
        let (c, w) = match size {
            Value::Number(n) => {
                let n = n.as_u64().unwrap_or(0);
                (n, n)
            }
            Value::Array(a) if a.len() == 2 => {
                (a[0].as_u64().unwrap_or(0), a[1].as_u64().unwrap_or(0))
            }
            _ => {
                return Err(ActError::bad_request(
                    "size: a number (9) or [cols, rows] such as [13, 9]",
                ))
            }
        };
        if !(2..=25).contains(&c) || !(2..=25).contains(&w) {
            return Err(
                ActError::bad_request(format!("size {c}x{w}: each side must be 2 to 25"))
                    .with_code("settings.size", field("size", format!("{c}×{w}"), 2, 25)),
            );
        }
        let s = Size::new(c as u32, w as u32)
            .map_err(|e| ActError::bad_request(format!("size: {e}")))?;
        rules = rules.with_size(s);
    }
    if let Some(k) = r.komi {
        if !k.is_finite() || k.abs() > KOMI_LIMIT as f64 {
            return Err(komi_out_of_range(&k.to_string()));
        }
        rules
            .set("komi", &k.to_string())
            .map_err(|e| ActError::bad_request(format!("komi: {e}")))?;
    }
    // The rules string may set a komi too (`japanese,komi=1000`): the same range holds.
    let (num, den) = rules.komi.fraction();
    if num.abs() > KOMI_LIMIT * den {
        return Err(komi_out_of_range(&rules.komi.to_string()));
    }
    if let Some(c) = &r.clock {
        if c.len() > 100 {
            return Err(ActError::bad_request("clock: too long"));
        }
        if c.ends_with(":weekends") {
            return Err(ActError::bad_request(
                "clock: correspondence:DAYS:MAX_DAYS, with \"pause_weekends\": true to pause weekends",
            )
            .with_code(
                "settings.clock",
                field("clock", c, CORR_MIN_DAYS as i64, CORR_MAX_DAYS as i64),
            ));
        }
        rules
            .set("time", c)
            .map_err(|e| ActError::bad_request(format!("clock: {e}")))?;
    }
    correspondence(&mut rules, r.pause_weekends)?;
    let nums: Vec<u32> = match rules.time {
        TimeControl::None | TimeControl::Correspondence { .. } => vec![],
        TimeControl::Absolute { main } | TimeControl::Ing { main } => vec![main],
        TimeControl::ByoYomi {
            main,
            periods,
            period,
        } => {
            if period == 0 || periods == 0 {
                return Err(ActError::bad_request(
                    "clock: byo-yomi needs at least one period of at least a second",
                ));
            }
            vec![main, periods, period]
        }
        TimeControl::Canadian {
            main,
            stones,
            period,
        } => {
            if period == 0 || stones == 0 {
                return Err(ActError::bad_request(
                    "clock: Canadian overtime needs stones and a period",
                ));
            }
            vec![main, stones, period]
        }
        TimeControl::Fischer { main, increment } => vec![main, increment],
    };
    if nums.iter().any(|&n| n > MAX_SECONDS) {
        return Err(ActError::bad_request(format!(
            "clock {}: every number must be at most {MAX_SECONDS} (a week in seconds)",
            rules.time
        )));
    }
    if matches!(
        rules.time,
        TimeControl::Absolute { main: 0 }
            | TimeControl::Fischer { main: 0, .. }
            | TimeControl::Ing { main: 0 }
    ) {
        return Err(ActError::bad_request(
            "clock: main time must be at least a second",
        ));
    }
    let handicap = r.handicap.unwrap_or(0);
    if handicap > 9 {
        return Err(
            ActError::bad_request(format!("handicap {handicap}: at most 9 stones"))
                .with_code("settings.handicap", field("handicap", handicap, 0, 9)),
        );
    }
    Ok(Settings::Go {
        rules: rules.to_string(),
        handicap,
    })
}

pub(crate) fn wall_settings(r: &CreateReq) -> Result<Settings, ActError> {
    if r.size.is_some()
        || r.rules.is_some()
        || r.komi.is_some()
        || r.handicap.is_some()
        || r.clock.is_some()
        || r.pause_weekends.is_some()
    {
        return Err(ActError::bad_request(
            "size, rules, komi, handicap, clock and pause_weekends are Go settings, not Wall Go (use variant and turn_seconds)",
        ));
    }
    let text = r.variant.as_deref().unwrap_or("");
    if text.len() > 200 {
        return Err(ActError::bad_request("variant: too long"));
    }
    let mut v: baduk_wallgo::Variant = text
        .parse()
        .map_err(|e: baduk_wallgo::VariantError| ActError::bad_request(format!("variant: {e}")))?;
    let secs = r.turn_seconds.unwrap_or(v.seconds_per_turn as f64);
    if !secs.is_finite() || !(0.0..=3600.0).contains(&secs) || (secs > 0.0 && secs < 1.0) {
        return Err(ActError::bad_request(format!(
            "turn_seconds {secs}: 0 (no limit) or 1 to 3600"
        ))
        .with_code(
            "settings.turn_seconds",
            field("turn_seconds", secs.to_string(), 1, 3600),
        ));
    }
    v.seconds_per_turn = secs.round() as u32;
    Ok(Settings::Wallgo {
        variant: v.to_string(),
        turn_ms: (secs * 1000.0).round() as i64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn correspondence_days_outside_their_ranges_are_refused_by_code() {
        let code = |v: Value| settings_of(&v).map(|_| "ok").unwrap_or_else(|e| e.code);
        for clock in [
            "correspondence:0:5",
            "correspondence:31:60",
            "correspondence:3:2",
            "correspondence:3:61",
        ] {
            assert_eq!(
                code(json!({"game": "go", "clock": clock})),
                "settings.clock",
                "{clock}"
            );
        }
        assert_eq!(
            code(json!({"game": "go", "rules": "japanese,time=correspondence:40:40"})),
            "settings.clock"
        );
        assert_eq!(
            code(json!({"game": "go", "clock": "correspondence:3:7:weekends"})),
            "settings.clock"
        );
        assert_eq!(
            code(json!({"game": "go", "clock": "fischer:60:5", "pause_weekends": true})),
            "settings.pause_weekends"
        );
        assert_eq!(
            code(json!({"game": "wallgo", "pause_weekends": false})),
            "bad_request"
        );
        assert_eq!(
            code(json!({"game": "go", "clock": "correspondence:30:60"})),
            "ok"
        );
    }

    #[test]
    fn settings_show_size_komi_and_clock_apart_from_the_rules() {
        let s = settings_of(&json!({"game": "go", "size": [13, 9], "rules": "chinese",
            "komi": 0.5, "clock": "byo-yomi:600:5:30", "handicap": 2}))
        .unwrap();
        assert_eq!(
            settings_json(&s, true),
            json!({"game": "go", "size": [13, 9], "rules": "chinese", "komi": 0.5,
                "handicap": 2, "clock": "byo-yomi:600:5:30", "rated": true})
        );
        let c = settings_of(&json!({"game": "go", "clock": "correspondence:3:7",
            "pause_weekends": true}))
        .unwrap();
        assert_eq!(settings_json(&c, false)["clock"], "correspondence:3:7");
        assert_eq!(settings_json(&c, false)["pause_weekends"], true);
        let w = settings_of(&json!({"game": "wallgo", "turn_seconds": 30})).unwrap();
        assert_eq!(settings_json(&w, false)["turn_seconds"], 30);
    }
}
