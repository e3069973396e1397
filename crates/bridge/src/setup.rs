//! What the bridge decides from the server's JSON alone: which challenges it accepts, and the
//! GTP commands that set an engine up for a game and tell it its clock. Pure functions.

use serde_json::{json, Value};

/// Which rated games the bot plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rated {
    /// Rated and unrated.
    Any,
    /// Rated only (`--rated-only`).
    Only,
    /// Unrated only (`--unrated-only`).
    Never,
}

/// The challenges the bot accepts (the command line's filters).
#[derive(Clone, Debug, PartialEq)]
pub struct Filters {
    /// Board sizes (square boards).
    pub sizes: Vec<u32>,
    /// Clock kinds: `none`, `absolute`, `byo-yomi`, `canadian`, `fischer`.
    pub clocks: Vec<String>,
    /// Rated, unrated or both.
    pub rated: Rated,
    /// Challenges from other bots.
    pub bots: bool,
    /// Games at once.
    pub max_games: usize,
}

/// The clock kinds the bridge can tell an engine about.
pub const CLOCK_KINDS: [&str; 5] = ["none", "absolute", "byo-yomi", "canadian", "fischer"];

impl Default for Filters {
    fn default() -> Filters {
        Filters {
            sizes: vec![9, 13, 19],
            clocks: CLOCK_KINDS.iter().map(|s| s.to_string()).collect(),
            rated: Rated::Any,
            bots: false,
            max_games: 1,
        }
    }
}

impl Filters {
    /// What the server is told the bot accepts (`PUT /api/account/bot/accepts`).
    pub fn accepts_json(&self) -> Value {
        json!({
            "games": ["go"],
            "sizes": self.sizes,
            "clocks": self.clocks,
            "rated": match self.rated { Rated::Any => "any", Rated::Only => "rated", Rated::Never => "unrated" },
            "bots": self.bots,
            "max_games": self.max_games,
        })
    }

    /// Whether to accept `challenge` (the API's challenge object) with `playing` games running:
    /// Ok, or the decline reason's code and a sentence.
    pub fn check(&self, challenge: &Value, playing: usize) -> Result<(), (&'static str, String)> {
        let s = &challenge["settings"];
        if s["game"].as_str().unwrap_or("go") != "go" {
            return Err(("generic", "this bot plays Go only".into()));
        }
        if challenge["challenger"]["bot"].as_bool() == Some(true) && !self.bots {
            return Err(("no_bot", "this bot does not play other bots".into()));
        }
        match square_size(&s["size"]) {
            Some(n) if self.sizes.contains(&n) => {}
            _ => return Err(("size", format!("this bot plays on {}", list(&self.sizes)))),
        }
        let kind = clock_kind(s["clock"].as_str().unwrap_or("none"));
        if !self.clocks.iter().any(|c| c == kind) {
            return Err((
                "time_control",
                format!("this bot plays with clocks {}", self.clocks.join(", ")),
            ));
        }
        let rated = s["rated"].as_bool().unwrap_or(false);
        match (self.rated, rated) {
            (Rated::Only, false) => {
                return Err(("rated", "this bot plays rated games only".into()))
            }
            (Rated::Never, true) => {
                return Err(("casual", "this bot plays unrated games only".into()))
            }
            _ => {}
        }
        if playing >= self.max_games {
            return Err((
                "later",
                format!("this bot is playing {playing} games, its most"),
            ));
        }
        Ok(())
    }
}

fn list(sizes: &[u32]) -> String {
    sizes
        .iter()
        .map(|n| format!("{n}×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The side of a square board given as `9`, `[9, 9]` or `{"cols": 9, "rows": 9}`; None for a
/// rectangle.
pub fn square_size(v: &Value) -> Option<u32> {
    let (c, r) = match v {
        Value::Number(n) => (n.as_u64()?, n.as_u64()?),
        Value::Array(a) if a.len() == 2 => (a[0].as_u64()?, a[1].as_u64()?),
        Value::Object(_) => (v["cols"].as_u64()?, v["rows"].as_u64()?),
        _ => return None,
    };
    (c == r && (2..=25).contains(&c)).then_some(c as u32)
}

/// The kind of a clock string (`byo-yomi:600:5:30` → `byo-yomi`).
pub fn clock_kind(clock: &str) -> &str {
    clock.split(':').next().unwrap_or("none")
}

/// The KGS name (`kgs-rules`) closest to the server's rules string: its scoring and its ko.
pub fn kgs_rules(rules: &str) -> &'static str {
    let preset = rules.split(',').next().unwrap_or("").trim();
    match preset {
        "chinese" | "ing" | "tromp-taylor" | "jk" | "baduk-def" => "chinese",
        "aga" => "aga",
        "nz" | "new-zealand" | "new_zealand" => "new_zealand",
        _ => "japanese",
    }
}

/// The GTP commands that tell an engine its time control `clock` (the create request's
/// string): `kgs-time_settings` where the engine knows it, else `time_settings` (byo-yomi is
/// then told as one Canadian period of one stone). None with no clock.
pub fn time_commands(clock: &str, kgs: bool) -> Vec<String> {
    let f: Vec<u64> = clock
        .split(':')
        .skip(1)
        .filter_map(|x| x.parse::<f64>().ok().map(|v| v.max(0.0) as u64))
        .collect();
    let get = |i: usize| f.get(i).copied().unwrap_or(0);
    match (clock_kind(clock), kgs) {
        ("none", _) => vec![],
        ("byo-yomi", true) => vec![format!(
            "kgs-time_settings byoyomi {} {} {}",
            get(0),
            get(2),
            get(1)
        )],
        ("byo-yomi", false) => vec![format!("time_settings {} {} 1", get(0), get(2))],
        ("canadian", true) => vec![format!(
            "kgs-time_settings canadian {} {} {}",
            get(0),
            get(2),
            get(1)
        )],
        ("canadian", false) => vec![format!("time_settings {} {} {}", get(0), get(2), get(1))],
        // Absolute, Fischer and Ing: the main time, its remainder told before every move.
        (_, true) => vec![format!("kgs-time_settings absolute {}", get(0))],
        (_, false) => vec![format!("time_settings {} 0 0", get(0))],
    }
}

/// `time_left` for one seat's clock as the state gives it (`{"kind","main_ms","periods",
/// "period_ms","stones",…}`), `elapsed_ms` after the state was taken: the seconds and stones
/// left in the current period (KGS's convention: in byo-yomi the period's seconds and the
/// periods left). None without a clock.
pub fn time_left(clock: &Value, elapsed_ms: i64) -> Option<(u64, u64)> {
    let kind = clock["kind"].as_str()?;
    let running = clock["running"].as_bool().unwrap_or(false);
    let spent = if running { elapsed_ms.max(0) } else { 0 };
    let main = clock["main_ms"].as_i64().unwrap_or(0);
    let secs = |ms: i64| (ms.max(0) / 1000) as u64;
    Some(match kind {
        "byo-yomi" if main <= 0 => (
            secs(clock["period_ms"].as_i64().unwrap_or(0) - spent),
            clock["periods"].as_u64().unwrap_or(0),
        ),
        "canadian" if main <= 0 => (
            secs(clock["period_ms"].as_i64().unwrap_or(0) - spent),
            clock["stones"].as_u64().unwrap_or(0),
        ),
        _ => (secs(main - spent), 0),
    })
}

/// The colour (`B`/`W`) of the `i`-th move of the state's `moves` (0-based): White moves first
/// after handicap stones.
pub fn move_colour(i: usize, handicap: u64) -> char {
    let white_first = handicap >= 2;
    if i.is_multiple_of(2) != white_first {
        'B'
    } else {
        'W'
    }
}

/// The black stones of a state's `board` (rows top first), as GTP vertices: the handicap
/// stones, from the position before the first move.
pub fn black_stones(board: &Value, columns: &str) -> Vec<String> {
    let rows: Vec<&str> = board
        .as_array()
        .map(|a| a.iter().filter_map(|r| r.as_str()).collect())
        .unwrap_or_default();
    let n = rows.len();
    let cols: Vec<char> = columns.chars().collect();
    let mut out = Vec::new();
    for (ri, row) in rows.iter().enumerate() {
        for (ci, c) in row.chars().enumerate() {
            if c == 'B' {
                if let Some(col) = cols.get(ci) {
                    out.push(format!("{col}{}", n - ri));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn challenge(size: Value, clock: &str, rated: bool, bot: bool) -> Value {
        json!({"challenger": {"name": "kim", "bot": bot},
               "settings": {"game": "go", "size": size, "clock": clock, "rated": rated}})
    }

    #[test]
    fn the_filters_decline_with_the_reason_the_api_knows() {
        let f = Filters {
            sizes: vec![9, 19],
            clocks: vec!["byo-yomi".into(), "none".into()],
            rated: Rated::Never,
            bots: false,
            max_games: 2,
        };
        assert_eq!(
            f.check(&challenge(json!(9), "none", false, false), 0),
            Ok(())
        );
        assert_eq!(
            f.check(
                &challenge(json!([19, 19]), "byo-yomi:600:5:30", false, false),
                1
            ),
            Ok(())
        );
        let code = |c: Value, n| f.check(&c, n).unwrap_err().0;
        assert_eq!(code(challenge(json!(13), "none", false, false), 0), "size");
        assert_eq!(
            code(challenge(json!([9, 13]), "none", false, false), 0),
            "size"
        );
        assert_eq!(
            code(challenge(json!(9), "fischer:60:5", false, false), 0),
            "time_control"
        );
        assert_eq!(code(challenge(json!(9), "none", true, false), 0), "casual");
        assert_eq!(code(challenge(json!(9), "none", false, true), 0), "no_bot");
        assert_eq!(code(challenge(json!(9), "none", false, false), 2), "later");
        assert_eq!(f.accepts_json()["rated"], "unrated");
    }

    #[test]
    fn clocks_become_gtp_time_settings_and_time_left() {
        assert_eq!(
            time_commands("byo-yomi:600:5:30", true),
            ["kgs-time_settings byoyomi 600 30 5"]
        );
        assert_eq!(
            time_commands("byo-yomi:600:5:30", false),
            ["time_settings 600 30 1"]
        );
        assert_eq!(
            time_commands("canadian:300:25:600", false),
            ["time_settings 300 600 25"]
        );
        assert_eq!(
            time_commands("fischer:300:10", true),
            ["kgs-time_settings absolute 300"]
        );
        assert!(time_commands("none", true).is_empty());
        let main = json!({"kind": "byo-yomi", "main_ms": 12_500, "periods": 5, "period_ms": 30_000, "running": true});
        assert_eq!(time_left(&main, 2_000), Some((10, 0)));
        let byo = json!({"kind": "byo-yomi", "main_ms": 0, "periods": 3, "period_ms": 30_000, "running": true});
        assert_eq!(time_left(&byo, 4_000), Some((26, 3)));
        let stopped = json!({"kind": "absolute", "main_ms": 60_000, "running": false});
        assert_eq!(time_left(&stopped, 9_000), Some((60, 0)));
        assert_eq!(time_left(&Value::Null, 0), None);
    }

    #[test]
    fn moves_alternate_from_black_or_from_white_after_handicap() {
        assert_eq!([0, 1, 2].map(|i| move_colour(i, 0)), ['B', 'W', 'B']);
        assert_eq!([0, 1, 2].map(|i| move_colour(i, 4)), ['W', 'B', 'W']);
        assert_eq!(
            black_stones(&json!(["..B", "...", "B.W"]), "ABC"),
            ["C3", "A1"]
        );
        assert_eq!(kgs_rules("chinese,ko=situational"), "chinese");
        assert_eq!(kgs_rules("korean"), "japanese");
        assert_eq!(square_size(&json!({"cols": 9, "rows": 9})), Some(9));
    }
}
