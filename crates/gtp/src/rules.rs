//! Rules strings (`PRESET[,key=value…]`, spec "The rules string") and KGS rule names, read by the
//! rules library and turned into the fields the bot plays by.

use baduk_go::Rules;
use baduk_search::go::rules::BotRules;

/// Parses a rules string (or a KGS name: `new_zealand`) with the rules library; the error is the
/// library's, naming the key or value and listing the accepted ones.
pub fn parse_rules(text: &str) -> Result<(Rules, BotRules), String> {
    let t = text.trim();
    let t = match t.to_ascii_lowercase().as_str() {
        "new_zealand" | "new-zealand" => "nz".to_string(),
        "tromp_taylor" => "tromp-taylor".to_string(),
        _ => t.to_string(),
    };
    let r = Rules::parse(&t).map_err(|e| e.to_string())?;
    Ok((r, BotRules::from(&r)))
}
