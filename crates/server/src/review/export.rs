//! A reviewed Go record as SGF (FF\[4\], UTF-8): the main line with the record's game
//! information and comments, each move's comment followed by the engine's opinion (win rate and
//! lead after the move, the move it preferred and its line), and the biggest drops marked as
//! bad moves (`BM[1]`) — what Sabaki and sgfmill read.

use baduk_go::{Color, Move, SgfGame};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt::Write;

/// A drop of at least this much win rate for the mover can be a mistake.
pub const MISTAKE_DROP: f64 = 0.05;
/// At most this many moves are marked as mistakes.
pub const MISTAKES: usize = 5;

/// SGF text escaping (`\` and `]`).
fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace(']', "\\]")
}

/// The moves (1-based) with the biggest drops for their mover, largest first, with the drop.
pub fn mistakes(g: &SgfGame, by_pos: &HashMap<u64, &Value>) -> Vec<(usize, f64)> {
    let mut out = Vec::new();
    for (i, m) in g.moves.iter().enumerate() {
        let k = i + 1;
        let (Some(a), Some(b)) = (by_pos.get(&(i as u64)), by_pos.get(&(k as u64))) else {
            continue;
        };
        let (wa, wb) = (a["winrate"].as_f64(), b["winrate"].as_f64());
        let (Some(wa), Some(wb)) = (wa, wb) else {
            continue;
        };
        let drop = if m.color == Color::Black {
            wa - wb
        } else {
            wb - wa
        };
        if drop >= MISTAKE_DROP {
            out.push((k, drop));
        }
    }
    out.sort_by(|x, y| y.1.total_cmp(&x.1));
    out.truncate(MISTAKES);
    out
}

/// Black's lead as `B+x` or `W+x` (a zero, negative or not, is `B+0`: stored reviews from
/// before negative zeros were rounded away may hold one).
fn lead(score: f64) -> String {
    if score >= 0.0 {
        format!("B+{}", score.abs())
    } else {
        format!("W+{}", -score)
    }
}

/// The SGF of `g`'s main line with the engine's comments from `analysis` (the API's object).
pub fn sgf(g: &SgfGame, analysis: &Value) -> String {
    let size = g.size;
    let empty = Vec::new();
    let positions = analysis["positions"].as_array().unwrap_or(&empty);
    let by_pos: HashMap<u64, &Value> = positions
        .iter()
        .filter_map(|p| Some((p["position"].as_u64()?, p)))
        .collect();
    let bad: HashMap<usize, f64> = mistakes(g, &by_pos).into_iter().collect();
    let comments: HashMap<usize, String> = {
        let mut c: HashMap<usize, String> = HashMap::new();
        for (n, text) in &g.comments {
            let e = c.entry(*n).or_default();
            if !e.is_empty() {
                e.push('\n');
            }
            e.push_str(text);
        }
        c
    };
    let mut out = String::from("(;GM[1]FF[4]CA[UTF-8]AP[baduk review]");
    if size.cols() == size.rows() {
        let _ = write!(out, "SZ[{}]", size.cols());
    } else {
        let _ = write!(out, "SZ[{}:{}]", size.cols(), size.rows());
    }
    if let Some(k) = g.komi {
        let _ = write!(out, "KM[{k}]");
    }
    if g.handicap >= 2 {
        let _ = write!(out, "HA[{}]", g.handicap);
    }
    for (prop, v) in [
        ("RU", &g.rules_name),
        ("PB", &g.players[0]),
        ("PW", &g.players[1]),
        ("RE", &g.result),
    ] {
        if let Some(v) = v {
            let _ = write!(out, "{prop}[{}]", esc(v));
        }
    }
    for (prop, color) in [("AB", Color::Black), ("AW", Color::White)] {
        let pts: Vec<String> = g
            .setup
            .points()
            .filter(|&p| g.setup.get(p) == Some(color))
            .map(|p| format!("[{}]", p.to_sgf(size)))
            .collect();
        if !pts.is_empty() {
            out.push_str(prop);
            out.push_str(&pts.concat());
        }
    }
    if g.setup.points().any(|p| g.setup.get(p).is_some()) {
        let _ = write!(out, "PL[{}]", g.to_move.letter());
    }
    let mut root_c = comments.get(&0).cloned().unwrap_or_default();
    if !positions.is_empty() {
        if !root_c.is_empty() {
            root_c.push_str("\n\n");
        }
        let _ = write!(
            root_c,
            "Engine review (baduk): {} of {} positions, {} playouts each{}.",
            positions.len(),
            analysis["total"].as_u64().unwrap_or(0),
            analysis["budget"]["playouts"].as_u64().unwrap_or(0),
            analysis["rules"]
                .as_str()
                .map_or(String::new(), |r| format!(", under {r}")),
        );
        if let Some(p) = by_pos.get(&0) {
            let _ = write!(
                root_c,
                "\nStart: Black {:.1}%, {}; engine prefers {}",
                p["winrate"].as_f64().unwrap_or(0.5) * 100.0,
                lead(p["score"].as_f64().unwrap_or(0.0)),
                p["best"].as_str().unwrap_or("?")
            );
        }
    }
    if !root_c.is_empty() {
        let _ = write!(out, "C[{}]", esc(&root_c));
    }
    for (i, m) in g.moves.iter().enumerate() {
        let k = i + 1;
        let pt = match m.mv {
            Move::Play(p) => p.to_sgf(size),
            Move::Pass => String::new(),
        };
        let _ = write!(out, "\n;{}[{pt}]", m.color.letter());
        let mut c = comments.get(&k).cloned().unwrap_or_default();
        if let Some(after) = by_pos.get(&(k as u64)) {
            if !c.is_empty() {
                c.push_str("\n\n");
            }
            let _ = write!(
                c,
                "Engine: Black {:.1}%, {} after this move.",
                after["winrate"].as_f64().unwrap_or(0.5) * 100.0,
                lead(after["score"].as_f64().unwrap_or(0.0)),
            );
        }
        if let Some(before) = by_pos.get(&(i as u64)) {
            let best = before["best"].as_str().unwrap_or("?");
            let played = match m.mv {
                Move::Play(p) => p.to_string(),
                Move::Pass => "pass".into(),
            };
            if best != played {
                let pv: Vec<&str> = before["pv"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let _ = write!(c, "\nEngine prefers {best} (line: {}).", pv.join(" "));
            }
        }
        if let Some(drop) = bad.get(&k) {
            let _ = write!(
                c,
                "\nMistake: the mover loses {:.0}% win rate.",
                drop * 100.0
            );
            out.push_str("BM[1]");
        }
        if !c.is_empty() {
            let _ = write!(out, "C[{}]", esc(&c));
        }
    }
    out.push_str(")\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lead_of_zero_is_b_plus_zero_whatever_its_sign() {
        assert_eq!(lead(-0.0), "B+0");
        assert_eq!(lead(0.0), "B+0");
        assert_eq!(lead(2.5), "B+2.5");
        assert_eq!(lead(-7.5), "W+7.5");
        assert_eq!(crate::review::engine::rounded(-0.04, 10.0).to_string(), "0");
        assert_eq!(crate::review::engine::rounded(-0.06, 10.0), -0.1);
    }
}
