//! What a bot account accepts (`accounts.bot_accepts`, set by its bridge): the pure check of a
//! challenge's settings against it, before the challenge reaches the bot.

use serde::Deserialize;
use serde_json::{json, Value};

/// The most games one bot plays at once, whatever its `max_games` says.
pub const BOT_GAMES_CAP: u32 = 32;

/// A bot's ACCEPTS (docs/api.md, "Challenges"); a field left out takes the bridge's default.
#[derive(Debug, Deserialize)]
struct Accepts {
    #[serde(default = "default_games")]
    games: Vec<String>,
    #[serde(default = "default_sizes")]
    sizes: Vec<u32>,
    #[serde(default = "default_clocks")]
    clocks: Vec<String>,
    #[serde(default = "default_rated")]
    rated: String,
    #[serde(default)]
    bots: bool,
    #[serde(default = "default_max_games")]
    max_games: u32,
}

fn default_games() -> Vec<String> {
    vec!["go".into()]
}
fn default_sizes() -> Vec<u32> {
    vec![9, 13, 19]
}
fn default_clocks() -> Vec<String> {
    ["none", "absolute", "byo-yomi", "canadian", "fischer"]
        .map(String::from)
        .to_vec()
}
fn default_rated() -> String {
    "any".into()
}
fn default_max_games() -> u32 {
    1
}

/// What a challenge asks of the bot it is addressed to.
#[derive(Clone, Debug)]
pub struct Asked<'a> {
    /// `go` or `wallgo`.
    pub game: &'a str,
    /// The board (columns, rows); None for Wall Go.
    pub size: Option<(u32, u32)>,
    /// The clock's kind (`none`, `absolute`, `byo-yomi`, `canadian`, `fischer`, `ing`); None
    /// for Wall Go.
    pub clock: Option<&'a str>,
    /// A rated game.
    pub rated: bool,
    /// The challenger is a bot too.
    pub from_bot: bool,
    /// The bot's games not yet finished.
    pub playing: u32,
}

/// Why the bot whose ACCEPTS is `accepts` (None: it said nothing yet, so it accepts nothing)
/// refuses `asked`: the args of `challenge.not_accepted` (`{"what": "size|clock|rated|game|
/// bots|busy", …}`), or None when it accepts.
pub fn refusal(accepts: Option<&str>, asked: &Asked) -> Option<Value> {
    let Some(a) = accepts.and_then(|t| serde_json::from_str::<Accepts>(t).ok()) else {
        return Some(json!({"what": "game", "accepted": []}));
    };
    if !a.games.iter().any(|g| g == asked.game) {
        return Some(json!({"what": "game", "accepted": a.games}));
    }
    if let Some((c, r)) = asked.size {
        if c != r || !a.sizes.contains(&c) {
            return Some(json!({"what": "size", "accepted": a.sizes}));
        }
    }
    if let Some(clock) = asked.clock {
        if !a.clocks.iter().any(|k| k == clock) {
            return Some(json!({"what": "clock", "accepted": a.clocks}));
        }
    }
    let rated_ok = match a.rated.as_str() {
        "rated" => asked.rated,
        "unrated" => !asked.rated,
        _ => true,
    };
    if !rated_ok {
        return Some(json!({"what": "rated", "accepted": a.rated}));
    }
    if asked.from_bot && !a.bots {
        return Some(json!({"what": "bots", "accepted": false}));
    }
    let cap = a.max_games.min(BOT_GAMES_CAP);
    if asked.playing >= cap {
        return Some(json!({"what": "busy", "max_games": cap}));
    }
    None
}

/// Whether a bot whose ACCEPTS is `accepts` plays other bots (`bots: true`).
pub fn plays_bots(accepts: Option<&str>) -> bool {
    accepts
        .and_then(|t| serde_json::from_str::<Accepts>(t).ok())
        .is_some_and(|a| a.bots)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &str = r#"{"games":["go"],"sizes":[9,13,19],"clocks":["none","absolute","byo-yomi","canadian","fischer"],"rated":"any","bots":false,"max_games":4}"#;

    fn go(size: u32, clock: &str, rated: bool) -> Asked<'_> {
        Asked {
            game: "go",
            size: Some((size, size)),
            clock: Some(clock),
            rated,
            from_bot: false,
            playing: 0,
        }
    }

    fn what(v: Option<Value>) -> Option<String> {
        v.map(|v| v["what"].as_str().unwrap().to_string())
    }

    #[test]
    fn a_bot_that_said_nothing_or_garbage_accepts_nothing() {
        let a = go(19, "none", false);
        assert_eq!(what(refusal(None, &a)).as_deref(), Some("game"));
        assert_eq!(what(refusal(Some("not json"), &a)).as_deref(), Some("game"));
        assert_eq!(refusal(Some(ALL), &a), None);
    }

    #[test]
    fn each_setting_outside_the_accepts_names_itself() {
        assert_eq!(
            what(refusal(Some(ALL), &go(7, "none", false))).as_deref(),
            Some("size")
        );
        let mut oblong = go(9, "none", false);
        oblong.size = Some((9, 13));
        assert_eq!(what(refusal(Some(ALL), &oblong)).as_deref(), Some("size"));
        assert_eq!(
            what(refusal(Some(ALL), &go(9, "ing", false))).as_deref(),
            Some("clock")
        );
        let unrated = ALL.replace(r#""rated":"any""#, r#""rated":"unrated""#);
        assert_eq!(
            what(refusal(Some(&unrated), &go(9, "none", true))).as_deref(),
            Some("rated")
        );
        assert_eq!(refusal(Some(&unrated), &go(9, "none", false)), None);
        let rated = ALL.replace(r#""rated":"any""#, r#""rated":"rated""#);
        assert_eq!(
            what(refusal(Some(&rated), &go(9, "none", false))).as_deref(),
            Some("rated")
        );
        let wall = Asked {
            game: "wallgo",
            size: None,
            clock: None,
            rated: false,
            from_bot: false,
            playing: 0,
        };
        assert_eq!(what(refusal(Some(ALL), &wall)).as_deref(), Some("game"));
    }

    #[test]
    fn bots_need_bots_true_and_a_busy_bot_says_so() {
        let mut a = go(19, "byo-yomi", false);
        a.from_bot = true;
        assert_eq!(what(refusal(Some(ALL), &a)).as_deref(), Some("bots"));
        let friendly = ALL.replace(r#""bots":false"#, r#""bots":true"#);
        assert_eq!(refusal(Some(&friendly), &a), None);
        assert!(plays_bots(Some(&friendly)) && !plays_bots(Some(ALL)) && !plays_bots(None));
        let mut b = go(19, "none", false);
        b.playing = 4;
        assert_eq!(what(refusal(Some(ALL), &b)).as_deref(), Some("busy"));
        b.playing = 3;
        assert_eq!(refusal(Some(ALL), &b), None);
        // The server's cap holds over a bot's own.
        let greedy = ALL.replace(r#""max_games":4"#, r#""max_games":1000"#);
        b.playing = BOT_GAMES_CAP;
        assert_eq!(
            refusal(Some(&greedy), &b).unwrap()["max_games"],
            BOT_GAMES_CAP
        );
    }
}
