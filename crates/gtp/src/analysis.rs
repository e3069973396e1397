//! The analysis commands' arguments and lines: `lz-analyze` (Leela Zero's form) and
//! `kata-analyze` (KataGo's), parsed as the engines that define them parse them, and the
//! `info` lines GUIs (Sabaki, Lizzie, LizGoban) read.
//!
//! Arguments: `[colour] [interval] [interval N] [minmoves N] [maxmoves N]
//! [avoid|allow COLOUR VERTICES UNTIL]…`, and for `kata-analyze` also `ownership BOOL` and
//! `pvVisits BOOL`. Anything else is a syntax error, so GUIs that probe a feature by whether the
//! engine refuses it learn the truth.

use crate::vertex::{parse_colour, parse_vertex_checked, Vertex, VertexError};
use baduk_search::go::board::Colour;
use baduk_search::go::mcts::MoveStat;
use std::time::Duration;

/// Which engine's dialect a command speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Leela Zero: win rates and priors in hundredths of a percent (`winrate 5234`).
    Leela,
    /// KataGo: win rates and priors as fractions (`winrate 0.523400`), optional ownership.
    Kata,
}

/// An `avoid` or `allow` restriction: moves of `colour` at `vertices` are barred (avoid) or
/// the only ones searched (allow) for the next `until` moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restriction {
    /// Whose moves.
    pub colour: Colour,
    /// `allow` (only these) rather than `avoid` (not these).
    pub allow: bool,
    /// The points (a `pass` in the list is kept: passing is never barred).
    pub vertices: Vec<Vertex>,
    /// For how many moves from now (at least 1).
    pub until: u32,
}

/// The parsed arguments of an analysis command.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyzeArgs {
    /// The colour to analyse for (default: the side to move).
    pub colour: Option<Colour>,
    /// How often to print a line (default 1 s).
    pub interval: Duration,
    /// At least this many moves per line when the search has them.
    pub minmoves: usize,
    /// At most this many moves per line.
    pub maxmoves: usize,
    /// `avoid`/`allow` restrictions, in the order given.
    pub restrictions: Vec<Restriction>,
    /// KataGo's `ownership true`: append the analysed colour's ownership of every point.
    pub ownership: bool,
    /// KataGo's `pvVisits true`: append the visits along each principal variation.
    pub pv_visits: bool,
}

/// Moves listed per line unless `maxmoves` says otherwise.
pub const DEFAULT_MAX_MOVES: usize = 20;

/// A move is listed when it has at least this share of the best move's visits (and at least
/// [`MIN_VISITS`]): fewer visits than that give a win rate that means nothing.
pub const SHOWN_SHARE: f64 = 0.05;

/// The fewest visits a listed move has (unless `minmoves` asks for more moves).
pub const MIN_VISITS: u32 = 2;

impl Default for AnalyzeArgs {
    fn default() -> Self {
        AnalyzeArgs {
            colour: None,
            interval: Duration::from_secs(1),
            minmoves: 0,
            maxmoves: DEFAULT_MAX_MOVES,
            restrictions: Vec::new(),
            ownership: false,
            pv_visits: false,
        }
    }
}

fn syntax<T>(what: String) -> Result<T, String> {
    Err(format!("syntax error: {what}"))
}

fn count(key: &str, v: Option<&String>) -> Result<u64, String> {
    match v.map(|s| s.parse::<u64>()) {
        Some(Ok(n)) => Ok(n),
        Some(Err(_)) => syntax(format!(
            "{key} needs a whole number, not `{}`",
            v.map(String::as_str).unwrap_or("")
        )),
        None => syntax(format!("{key} needs a whole number")),
    }
}

/// An interval in centiseconds (a decimal is allowed, as KataGo allows it), kept between
/// 0.01 s and 10 s so that the engine stays responsive.
fn interval(key: &str, v: Option<&String>) -> Result<Duration, String> {
    match v.map(|s| s.parse::<f64>()) {
        Some(Ok(cs)) if cs.is_finite() && cs >= 0.0 => Ok(Duration::from_millis(
            (cs.clamp(1.0, 1000.0) * 10.0).round() as u64,
        )),
        _ => syntax(format!("{key} needs a number of centiseconds")),
    }
}

fn boolean(key: &str, v: Option<&String>) -> Result<bool, String> {
    match v.map(|s| s.to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        _ => syntax(format!("{key} needs true or false")),
    }
}

/// Parses the arguments of `lz-analyze` (`Leela`) or `kata-analyze` (`Kata`) on a
/// `size`×`size` board. Errors are `syntax error: …` with the reason.
pub fn parse_analyze_args(
    a: &[String],
    size: usize,
    dialect: Dialect,
) -> Result<AnalyzeArgs, String> {
    let mut r = AnalyzeArgs::default();
    let mut k = 0;
    if let Some(w) = a.first() {
        if let Some(c) = parse_colour(w) {
            r.colour = Some(c);
            k = 1;
        }
    }
    // A bare number right after the optional colour is the interval.
    if let Some(w) = a.get(k) {
        if w.parse::<f64>().is_ok() {
            r.interval = interval("interval", Some(w))?;
            k += 1;
        }
    }
    while k < a.len() {
        let key = a[k].as_str();
        match key {
            "interval" => {
                r.interval = interval(key, a.get(k + 1))?;
                k += 2;
            }
            "minmoves" => {
                r.minmoves = count(key, a.get(k + 1))?.min(1000) as usize;
                k += 2;
            }
            "maxmoves" => {
                r.maxmoves = count(key, a.get(k + 1))?.min(1000) as usize;
                k += 2;
            }
            "avoid" | "allow" => {
                let colour = match a.get(k + 1).map(|s| parse_colour(s)) {
                    Some(Some(c)) => c,
                    _ => return syntax(format!("{key} needs a colour (b or w)")),
                };
                let list = match a.get(k + 2) {
                    Some(l) => l,
                    None => return syntax(format!("{key} needs vertices, e.g. D4,Q16")),
                };
                let mut vertices = Vec::new();
                for v in list.split(',').filter(|v| !v.is_empty()) {
                    match parse_vertex_checked(v, size) {
                        Ok(v) => vertices.push(v),
                        Err(VertexError::OffBoard) => {
                            return syntax(format!("{key}: vertex {v} is off the board"))
                        }
                        Err(VertexError::Malformed) => {
                            return syntax(format!("{key}: `{v}` is not a vertex"))
                        }
                    }
                }
                if vertices.is_empty() {
                    return syntax(format!("{key} needs vertices, e.g. D4,Q16"));
                }
                let until = count(key, a.get(k + 3))?;
                if until == 0 {
                    return syntax(format!("{key}: the number of moves must be at least 1"));
                }
                r.restrictions.push(Restriction {
                    colour,
                    allow: key == "allow",
                    vertices,
                    until: until.min(u32::MAX as u64) as u32,
                });
                k += 4;
            }
            "ownership" if dialect == Dialect::Kata => {
                r.ownership = boolean(key, a.get(k + 1))?;
                k += 2;
            }
            "pvVisits" if dialect == Dialect::Kata => {
                r.pv_visits = boolean(key, a.get(k + 1))?;
                k += 2;
            }
            // KataGo keys this engine has nothing for: `false` is what it does anyway.
            "ownershipStdev" | "movesOwnership" | "movesOwnershipStdev" | "pvEdgeVisits"
            | "rootInfo"
                if dialect == Dialect::Kata =>
            {
                if boolean(key, a.get(k + 1))? {
                    return syntax(format!("{key} true is not supported (only false)"));
                }
                k += 2;
            }
            _ => {
                return syntax(format!(
                    "unknown analysis argument `{key}` (accepted: [colour] [interval] interval N minmoves N maxmoves N avoid|allow COLOUR VERTICES UNTIL{})",
                    if dialect == Dialect::Kata {
                        " ownership BOOL pvVisits BOOL"
                    } else {
                        ""
                    }
                ))
            }
        }
    }
    Ok(r)
}

/// The moves worth listing, most visited first: those with at least [`SHOWN_SHARE`] of the
/// best move's visits and [`MIN_VISITS`], topped up to `minmoves` by the next most visited,
/// and at most `maxmoves` (0 = no cap).
///
/// A move that shows a higher win rate than the most visited one on fewer visits is one the
/// search has not confirmed (it would have the most visits otherwise); it is left out until it
/// is, because GUIs such as Sabaki show the best win rate among the listed moves as the
/// position's, and an unconfirmed one would overstate it.
pub fn shown_moves<'a>(stats: &'a [MoveStat], args: &AnalyzeArgs) -> Vec<&'a MoveStat> {
    let mut sorted: Vec<&MoveStat> = stats.iter().collect();
    sorted.sort_by(|a, b| {
        b.visits
            .cmp(&a.visits)
            .then(b.winrate.total_cmp(&a.winrate))
            .then(a.mv.cmp(&b.mv))
    });
    let Some(&best) = sorted.first() else {
        return sorted;
    };
    sorted.retain(|s| s.winrate <= best.winrate);
    let floor = ((best.visits as f64 * SHOWN_SHARE).ceil() as u32).max(MIN_VISITS);
    let worth = sorted.iter().take_while(|s| s.visits >= floor).count();
    let mut n = worth.max(args.minmoves.min(sorted.len()));
    if best.visits > 0 {
        // The best move is always listed once the search has visited anything.
        n = n.max(1);
    }
    if args.maxmoves > 0 {
        n = n.min(args.maxmoves);
    }
    sorted.truncate(n);
    sorted
}

/// The lower confidence bound of a win rate `wr` over `n` visits (normal approximation,
/// 1.96 standard errors).
pub fn lcb(wr: f32, n: u32) -> f32 {
    if n == 0 {
        return 0.0;
    }
    let wr = wr as f64;
    (wr - 1.96 * (wr * (1.0 - wr) / n as f64).sqrt()).max(0.0) as f32
}

/// One analysis line: every shown move as `info move … pv …`, joined by spaces, in the
/// dialect's number formats (KataGo's with `scoreMean` and `scoreLead`: the mean final margin of
/// the playouts through the move, for the analysed colour); `vertex` names a move index; `ownership` (the mover's ownership of
/// every point, row by row from the top left) is appended when asked for.
pub fn info_line(
    stats: &[MoveStat],
    args: &AnalyzeArgs,
    dialect: Dialect,
    vertex: &dyn Fn(u16) -> String,
    ownership: Option<&[f32]>,
) -> String {
    let mut parts: Vec<String> = Vec::new();
    for (order, st) in shown_moves(stats, args).into_iter().enumerate() {
        let wr = st.winrate.clamp(0.0, 1.0);
        let low = lcb(wr, st.visits);
        let pv = st
            .pv
            .iter()
            .map(|&m| vertex(m))
            .collect::<Vec<_>>()
            .join(" ");
        let line = match dialect {
            Dialect::Leela => format!(
                "info move {} visits {} winrate {} prior {} lcb {} order {} pv {}",
                vertex(st.mv),
                st.visits,
                (wr * 10000.0).round() as i32,
                (st.prior * 10000.0).round() as i32,
                (low * 10000.0).round() as i32,
                order,
                pv
            ),
            Dialect::Kata => {
                let mut l = format!(
                    "info move {} visits {} utility {:.6} winrate {:.6} scoreMean {:.6} scoreLead {:.6} prior {:.6} lcb {:.6} utilityLcb {:.6} order {} pv {}",
                    vertex(st.mv),
                    st.visits,
                    2.0 * wr - 1.0,
                    wr,
                    st.score_mean,
                    st.score_mean,
                    st.prior,
                    low,
                    2.0 * low - 1.0,
                    order,
                    pv
                );
                if args.pv_visits {
                    let v: Vec<String> = st.pv_visits.iter().map(u32::to_string).collect();
                    l.push_str(" pvVisits ");
                    l.push_str(&v.join(" "));
                }
                l
            }
        };
        parts.push(line);
    }
    let mut s = parts.join(" ");
    if let Some(own) = ownership {
        s.push_str(" ownership");
        for o in own {
            s.push_str(&format!(" {o:.6}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<AnalyzeArgs, String> {
        let v: Vec<String> = s.split_whitespace().map(str::to_string).collect();
        parse_analyze_args(&v, 19, Dialect::Leela)
    }

    #[test]
    fn named_keys_mean_what_they_say() {
        let a = args("interval 10 minmoves 3").unwrap();
        assert_eq!(a.interval, Duration::from_millis(100));
        assert_eq!(a.minmoves, 3);
        let a = args("w 50 maxmoves 4").unwrap();
        assert_eq!(
            (a.colour, a.interval, a.maxmoves),
            (Some(Colour::White), Duration::from_millis(500), 4)
        );
        let a = args("b avoid w D4,Q16 1 allow b pass,C3 2").unwrap();
        assert_eq!(a.restrictions.len(), 2);
        assert!(!a.restrictions[0].allow && a.restrictions[1].allow);
        assert_eq!(a.restrictions[1].until, 2);
    }

    #[test]
    fn unknown_words_and_bad_values_are_syntax_errors() {
        for bad in [
            "red",
            "b fly",
            "interval",
            "interval x",
            "interval -5",
            "minmoves 1.5",
            "avoid b",
            "avoid purple D4 1",
            "avoid b Z99 1",
            "avoid b D4",
            "avoid b D4 0",
            "avoid b ,, 1",
            "ownership true",
            "10 b",
            "interval nan",
        ] {
            let e = args(bad).unwrap_err();
            assert!(e.starts_with("syntax error"), "{bad}: {e}");
        }
        let kata = |s: &str| {
            let v: Vec<String> = s.split_whitespace().map(str::to_string).collect();
            parse_analyze_args(&v, 19, Dialect::Kata)
        };
        assert!(kata("ownership true").unwrap().ownership);
        assert!(kata("b 10 ownership true ownershipStdev false rootInfo false").is_ok());
        assert!(kata("ownershipStdev true")
            .unwrap_err()
            .contains("not supported"));
        assert!(
            args("rootInfo false").is_err(),
            "a KataGo key is not Leela Zero's"
        );
    }

    fn stat(mv: u16, visits: u32, winrate: f32) -> MoveStat {
        MoveStat {
            mv,
            visits,
            winrate,
            prior: 0.1,
            score_mean: 0.0,
            pv: vec![mv],
            pv_visits: vec![visits],
        }
    }

    #[test]
    fn one_visit_moves_are_not_listed_and_maxmoves_caps() {
        let stats = vec![
            stat(1, 500, 0.6),
            stat(2, 100, 0.55),
            stat(3, 1, 1.0),
            stat(4, 20, 0.4),
            stat(5, 400, 0.65),
        ];
        let a = AnalyzeArgs::default();
        let shown: Vec<u16> = shown_moves(&stats, &a).iter().map(|s| s.mv).collect();
        // 5 is not confirmed (more win rate on fewer visits), 3 has one visit, 4 too few.
        assert_eq!(shown, vec![1, 2]);
        let a = AnalyzeArgs {
            minmoves: 3,
            ..AnalyzeArgs::default()
        };
        assert_eq!(shown_moves(&stats, &a).len(), 3);
        let a = AnalyzeArgs {
            maxmoves: 1,
            ..AnalyzeArgs::default()
        };
        assert_eq!(shown_moves(&stats, &a).len(), 1);
    }
}
