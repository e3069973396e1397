//! Rules strings (`PRESET[,key=value…]`, spec "The rules string") turned into the fields the bot
//! plays by.

use baduk_search::go::board::SuicidePolicy;
use baduk_search::go::rules::{BotRules, KoRule, ScoringKind, TieBreak};

fn preset(name: &str) -> Option<BotRules> {
    let area = BotRules::area(7.5);
    let terr = BotRules::territory(6.5);
    Some(match name {
        "korean" | "japanese" => terr,
        "chinese" => area,
        "aga" => BotRules {
            ko: KoRule::Situational,
            ..area
        },
        "ing" => BotRules {
            suicide: SuicidePolicy::MultiStone,
            komi: 8.0,
            ties: TieBreak::Black,
            ..area
        },
        "nz" | "new_zealand" | "new-zealand" => BotRules {
            ko: KoRule::Situational,
            suicide: SuicidePolicy::MultiStone,
            komi: 7.0,
            ..area
        },
        "tromp-taylor" | "tromp_taylor" => BotRules {
            suicide: SuicidePolicy::MultiStone,
            ..area
        },
        "jk" => BotRules {
            ko: KoRule::Jk,
            komi: 0.0,
            resign_allowed: false,
            ..area
        },
        "kang" => BotRules { komi: 0.0, ..terr },
        _ => return None,
    })
}

/// The preset names accepted.
pub const PRESETS: &str = "korean, japanese, chinese, aga, ing, nz, tromp-taylor, jk, kang";

/// Parses a rules string into the bot's rules; errors name the key or value and list the
/// accepted ones.
pub fn parse_rules(text: &str) -> Result<BotRules, String> {
    let mut parts = text.split(',').map(str::trim);
    let name = parts.next().unwrap_or("").to_ascii_lowercase();
    let mut r = preset(&name)
        .ok_or_else(|| format!("unknown rules preset `{name}` (accepted: {PRESETS})"))?;
    for kv in parts.filter(|p| !p.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("rules override `{kv}` is not key=value"))?;
        let bad = |acc: &str| format!("rules: {k}={v} is not accepted (accepted: {acc})");
        match k {
            "ko" => {
                r.ko = match v {
                    "simple" => KoRule::Simple,
                    "positional" => KoRule::Positional,
                    "situational" => KoRule::Situational,
                    "jk" => KoRule::Jk,
                    _ => return Err(bad("simple|positional|situational|jk")),
                }
            }
            "suicide" => {
                r.suicide = match v {
                    "forbidden" | "loses" => SuicidePolicy::Forbidden,
                    "multi" => SuicidePolicy::MultiStone,
                    "allowed" => SuicidePolicy::Allowed,
                    _ => return Err(bad("forbidden|multi|allowed|loses")),
                }
            }
            "scoring" => {
                r.scoring = match v {
                    "territory" | "kang" => ScoringKind::Territory,
                    "area" | "ing" | "jk" => ScoringKind::Area,
                    _ => return Err(bad("territory|area|ing|jk|kang")),
                };
                r.resign_allowed = v != "jk";
            }
            "komi" => {
                r.komi = v
                    .parse::<f32>()
                    .ok()
                    .filter(|k| k.is_finite() && (k * 2.0).fract() == 0.0)
                    .ok_or_else(|| bad("a multiple of 0.5"))?
            }
            "ties" => {
                r.ties = match v {
                    "draw" => TieBreak::Draw,
                    "black" => TieBreak::Black,
                    "white" => TieBreak::White,
                    _ => return Err(bad("draw|black|white")),
                }
            }
            "life" => {
                r.two_passes_score_as_is = match v {
                    "as-is" | "resume" => true,
                    "verify" | "japanese" => false,
                    _ => return Err(bad("as-is|resume|verify|japanese")),
                }
            }
            "seki" if ["none", "counted", "halves", "proportional"].contains(&v) => {}
            "passes" if ["plain", "stones", "aga", "jk"].contains(&v) => {}
            "handicap-bonus" if ["0", "n", "n-1"].contains(&v) => {}
            "size" => {}
            "seki" => return Err(bad("none|counted|halves|proportional")),
            "passes" => return Err(bad("plain|stones|aga|jk")),
            "handicap-bonus" => return Err(bad("0|n|n-1")),
            _ => {
                return Err(format!(
                    "unknown rules key `{k}` (accepted: ko, suicide, scoring, seki, passes, life, komi, ties, handicap-bonus, size)"
                ))
            }
        }
    }
    Ok(r)
}
