//! Go matches between engines (our bot in-process, or GTP programs as child processes), refereed
//! by the rules library and scored by our scorer; GNU Go's `final_score` is asked as a second
//! opinion whenever GNU Go plays.

use crate::stats::{MatchStats, Played};
use baduk_gtp::engine::Engine;
use baduk_gtp::vertex::{parse_vertex, Vertex};
use baduk_gtp::{engine_with_options, parse_line, GtpClient};
use serde::Serialize;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Who plays: our bot with options, or a GTP program started from a command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineSpec {
    /// `baduk[:opts]`: our bot in-process with `BotConfig` options.
    Baduk(String),
    /// `gtp:<command line>`: any GTP engine.
    Gtp(String),
}

impl std::str::FromStr for EngineSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<EngineSpec, String> {
        let s = s.trim();
        if s == "baduk" {
            Ok(EngineSpec::Baduk(String::new()))
        } else if let Some(o) = s.strip_prefix("baduk:") {
            Ok(EngineSpec::Baduk(o.to_string()))
        } else if let Some(c) = s.strip_prefix("gtp:") {
            if c.trim().is_empty() {
                Err("engine `gtp:` needs a command line".into())
            } else {
                Ok(EngineSpec::Gtp(c.trim().to_string()))
            }
        } else {
            Err(format!(
                "engine `{s}` is neither `baduk[:opts]` nor `gtp:<command line>`"
            ))
        }
    }
}

impl fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineSpec::Baduk(o) if o.is_empty() => f.write_str("baduk"),
            EngineSpec::Baduk(o) => write!(f, "baduk:{o}"),
            EngineSpec::Gtp(c) => write!(f, "gtp:{c}"),
        }
    }
}

/// A match's settings.
#[derive(Clone, Debug)]
pub struct GoMatch {
    /// Engine A.
    pub a: EngineSpec,
    /// Engine B.
    pub b: EngineSpec,
    /// Board size.
    pub size: usize,
    /// Rules string (any preset or override string).
    pub rules: String,
    /// Komi (overrides the rules' komi).
    pub komi: f32,
    /// Number of games; A takes Black in even-numbered games (0, 2, …).
    pub games: usize,
    /// Thinking time per move, if set.
    pub time: Option<Duration>,
    /// Base seed for our bot (game k uses seed + k).
    pub seed: u64,
    /// Folder for SGF records, if any.
    pub records: Option<PathBuf>,
    /// Moves after which a game is stopped and scored as it stands.
    pub max_moves: usize,
}

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// Two passes (or the move cap): the board was scored.
    Score,
    /// A player resigned.
    Resignation,
    /// A player made an illegal move or failed, and lost.
    Forfeit,
}

/// One finished game.
#[derive(Clone, Debug, Serialize)]
pub struct GoGameResult {
    /// 0-based game number.
    pub game: usize,
    /// Which engine had Black: "a" or "b".
    pub black: String,
    /// The winning engine ("a", "b") or none for a draw.
    pub winner: Option<String>,
    /// The result as SGF writes it (`B+3.5`, `W+R`, `W+F`, `0`).
    pub result: String,
    /// How it ended.
    pub ending: Ending,
    /// A's margin in points (positive when A won), for scored games.
    pub margin_a: Option<f32>,
    /// Moves played.
    pub moves: usize,
    /// For a forfeit: who and why.
    pub forfeit: Option<String>,
    /// GNU Go's `final_score`, when GNU Go played and the game was scored.
    pub second_opinion: Option<String>,
    /// Whether the second opinion disagreed with our score.
    pub disagreement: bool,
    /// Milliseconds spent in `genmove` calls, both engines.
    pub genmove_ms: f64,
    /// Number of `genmove` calls.
    pub genmoves: u64,
}

/// A match's results and statistics from A's point of view; the fields of the Wall Go arena's
/// summary, plus the Go ones (size, rules, komi, forfeits, score disagreements, every game).
#[derive(Clone, Debug, Serialize)]
pub struct GoMatchReport {
    /// Engine A.
    pub a: String,
    /// Engine B.
    pub b: String,
    /// Board size.
    pub size: usize,
    /// Rules string.
    pub rules: String,
    /// Komi.
    pub komi: f32,
    /// Base seed of our bot.
    pub seed: u64,
    /// The match statistics, `a`'s first seat being Black; margins over scored games, and
    /// milliseconds per `genmove` of both engines.
    #[serde(flatten)]
    pub stats: MatchStats,
    /// Games lost by an illegal move or an engine failure.
    pub forfeits: u64,
    /// Scored games where GNU Go's `final_score` disagreed with ours.
    pub score_disagreements: u64,
    /// Every game.
    pub results: Vec<GoGameResult>,
}

/// Anything that answers GTP commands.
trait Player {
    fn send(&mut self, cmd: &str) -> Result<String, String>;
}

struct InProcess(Engine);

impl Player for InProcess {
    fn send(&mut self, cmd: &str) -> Result<String, String> {
        ask(&mut self.0, cmd)
    }
}

impl Player for GtpClient {
    fn send(&mut self, cmd: &str) -> Result<String, String> {
        GtpClient::send(self, cmd).map_err(|e| e.to_string())
    }
}

struct Seat {
    player: Box<dyn Player>,
    is_gnugo: bool,
    ours: bool,
    /// A short name for records (`baduk 0.1.0`, `GNU Go 3.8 level 10`).
    label: String,
}

/// A GTP engine's short name for records: its `name` and `version`, and GNU Go's `--level`.
fn short_name(name: &str, version: &str, command: &str) -> String {
    let mut s = name.trim().to_string();
    if s.is_empty() {
        s = command
            .split_whitespace()
            .next()
            .unwrap_or("gtp")
            .to_string();
    }
    if !version.trim().is_empty() {
        s = format!("{s} {}", version.trim());
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    if let Some(k) = words.iter().position(|w| *w == "--level") {
        if let Some(l) = words.get(k + 1) {
            s = format!("{s} level {l}");
        }
    }
    s
}

fn open(spec: &EngineSpec, m: &GoMatch, game: usize) -> Result<Seat, String> {
    match spec {
        EngineSpec::Baduk(opts) => {
            let mut o = format!("seed={}", m.seed.wrapping_add(game as u64));
            if let Some(t) = m.time {
                if !opts.contains("playouts=") && !opts.contains("time=") {
                    o.push_str(&format!(",time={}", t.as_secs_f64()));
                }
            }
            if !opts.is_empty() {
                o.push(',');
                o.push_str(opts);
            }
            let e = engine_with_options(&o)?;
            Ok(Seat {
                player: Box::new(InProcess(e)),
                is_gnugo: false,
                ours: true,
                label: format!("baduk {}", env!("CARGO_PKG_VERSION")),
            })
        }
        EngineSpec::Gtp(cmd) => {
            let mut c = GtpClient::spawn(cmd).map_err(|e| e.to_string())?;
            let name = c.send("name").unwrap_or_default();
            let version = c.send("version").unwrap_or_default();
            Ok(Seat {
                is_gnugo: name.to_ascii_lowercase().contains("gnu go"),
                label: short_name(&name, &version, cmd),
                player: Box::new(c),
                ours: false,
            })
        }
    }
}

fn setup(seat: &mut Seat, m: &GoMatch) -> Result<(), String> {
    seat.player.send(&format!("boardsize {}", m.size))?;
    seat.player.send("clear_board")?;
    if seat.ours {
        seat.player.send(&format!("baduk-rules {}", m.rules))?;
    }
    seat.player.send(&format!("komi {}", m.komi))?;
    if !seat.ours {
        if let Some(t) = m.time {
            // One move per period of the given length (Canadian byo-yomi, no main time).
            let _ = seat
                .player
                .send(&format!("time_settings 0 {} 1", t.as_secs().max(1)));
        }
    }
    Ok(())
}

/// Sends one command line to an in-process engine.
fn ask(e: &mut Engine, cmd: &str) -> Result<String, String> {
    match parse_line(cmd) {
        Some(c) => e.handle(&c),
        None => Ok(String::new()),
    }
}

/// Parses a GTP score (`B+3.5`, `W+0.5`, `0`) into Black's margin.
pub fn parse_score(s: &str) -> Option<f32> {
    let t = s.trim();
    if t == "0" {
        return Some(0.0);
    }
    let (sign, rest) = if let Some(r) = t.strip_prefix("B+") {
        (1.0, r)
    } else if let Some(r) = t.strip_prefix("W+") {
        (-1.0, r)
    } else {
        return None;
    };
    rest.parse::<f32>().ok().map(|v| sign * v)
}

/// Plays the whole match; `progress` is called after every game.
pub fn play_match(
    m: &GoMatch,
    mut progress: impl FnMut(&GoGameResult),
) -> Result<GoMatchReport, String> {
    baduk_go::Rules::parse(&m.rules).map_err(|e| e.to_string())?;
    if let Some(dir) = &m.records {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut results = Vec::new();
    for k in 0..m.games {
        let r = play_game(m, k)?;
        progress(&r);
        results.push(r);
    }
    Ok(report(m, results))
}

fn colour_word(black: bool) -> &'static str {
    if black {
        "b"
    } else {
        "w"
    }
}

fn play_game(m: &GoMatch, k: usize) -> Result<GoGameResult, String> {
    let a_black = k.is_multiple_of(2);
    let (black_spec, white_spec) = if a_black { (&m.a, &m.b) } else { (&m.b, &m.a) };
    let mut seats = [open(black_spec, m, k)?, open(white_spec, m, k)?];
    // The referee: the rules library's Game inside our engine, and our scorer.
    let mut referee: Engine =
        engine_with_options(&format!("playouts=3000,seed={}", m.seed ^ 0x5EED))?;
    for s in seats.iter_mut() {
        setup(s, m)?;
    }
    for c in [
        format!("boardsize {}", m.size),
        "clear_board".into(),
        format!("baduk-rules {}", m.rules),
        format!("komi {}", m.komi),
    ] {
        ask(&mut referee, &c)?;
    }
    let label = |black: bool| -> String {
        if black == a_black {
            "a".into()
        } else {
            "b".into()
        }
    };
    // The record is the referee's game: every move, the cleanup after two passes included.
    let mut cleanup_from: Option<usize> = None;
    let (mut genmove_ms, mut genmoves) = (0.0f64, 0u64);
    let mut moves = 0usize;
    let mut passes = 0usize;
    let mut to_move_black = true;
    let mut forfeit: Option<(bool, String)> = None;
    let mut resigned: Option<bool> = None;
    // Area rules settle disputes by playing on: after two passes both sides clean up (KGS's
    // `kgs-genmove_cleanup`) until two more passes, so that the board can be scored as it is.
    let resume = baduk_go::Rules::parse(&m.rules)
        .map(|r| r.life == baduk_go::Life::Resume)
        .unwrap_or(false);
    let mut phase_cmd = "genmove";
    loop {
        if moves >= m.max_moves || forfeit.is_some() || resigned.is_some() {
            break;
        }
        if passes >= 2 {
            if phase_cmd == "genmove" && resume {
                phase_cmd = "kgs-genmove_cleanup";
                passes = 0;
            } else {
                break;
            }
        }
        let si = if to_move_black { 0 } else { 1 };
        let col = colour_word(to_move_black);
        let t0 = std::time::Instant::now();
        let asked = seats[si].player.send(&format!("{phase_cmd} {col}"));
        genmove_ms += t0.elapsed().as_secs_f64() * 1000.0;
        genmoves += 1;
        let asked = match asked {
            Err(e) if phase_cmd != "genmove" && e.contains("unknown command") => {
                seats[si].player.send(&format!("genmove {col}"))
            }
            other => other,
        };
        let answer = match asked {
            Ok(a) => a,
            Err(e) => {
                forfeit = Some((to_move_black, format!("genmove failed: {e}")));
                break;
            }
        };
        let word = answer.trim().to_ascii_lowercase();
        if word == "resign" {
            resigned = Some(to_move_black);
            break;
        }
        let v = match parse_vertex(&word, m.size) {
            Some(v) => v,
            None => {
                forfeit = Some((to_move_black, format!("answered `{answer}` to genmove")));
                break;
            }
        };
        if let Err(e) = ask(&mut referee, &format!("play {col} {word}")) {
            forfeit = Some((
                to_move_black,
                format!("{} {}: {e}", col.to_uppercase(), word.to_uppercase()),
            ));
            break;
        }
        moves += 1;
        if phase_cmd != "genmove" && cleanup_from.is_none() {
            cleanup_from = Some(moves);
        }
        let other = 1 - si;
        if let Err(e) = seats[other].player.send(&format!("play {col} {word}")) {
            forfeit = Some((
                !to_move_black,
                format!("refused the legal move {word}: {e}"),
            ));
            break;
        }
        if v == Vertex::Pass {
            passes += 1;
        } else {
            passes = 0;
        }
        to_move_black = !to_move_black;
    }
    let mut second = None;
    let mut disagreement = false;
    let (winner_black, result, ending, margin_black): (Option<bool>, String, Ending, Option<f32>) =
        if let Some((black, _)) = &forfeit {
            (
                Some(!black),
                format!("{}+F", if *black { "W" } else { "B" }),
                Ending::Forfeit,
                None,
            )
        } else if let Some(black) = resigned {
            (
                Some(!black),
                format!("{}+R", if black { "W" } else { "B" }),
                Ending::Resignation,
                None,
            )
        } else {
            let ours = ask(&mut referee, "final_score")?;
            let s = parse_score(&ours).ok_or_else(|| format!("our scorer said `{ours}`"))?;
            for seat in seats.iter_mut() {
                if seat.is_gnugo {
                    if let Ok(g) = seat.player.send("final_score") {
                        // GNU Go prints one decimal (B+9.2 for 9.25 with a komi of 3.75).
                        disagreement = parse_score(&g).is_none_or(|v| (v - s).abs() > 0.06);
                        second = Some(g.trim().to_string());
                    }
                }
            }
            let w = if s > 0.0 {
                Some(true)
            } else if s < 0.0 {
                Some(false)
            } else {
                None
            };
            (w, ours.trim().to_string(), Ending::Score, Some(s))
        };
    if let Some(dir) = &m.records {
        let (pb, pw) = if a_black { (&m.a, &m.b) } else { (&m.b, &m.a) };
        let mut comment = format!("Black: {pb}\nWhite: {pw}");
        if let Some(n) = cleanup_from {
            comment.push_str(&format!(
                "\nMoves {n}–{moves}: cleanup after two passes (dead stones captured by playing on)"
            ));
        }
        if let Some((_, why)) = &forfeit {
            comment.push_str(&format!("\nForfeit: {why}"));
        }
        let info = baduk_go::SgfInfo {
            black: Some(seats[0].label.clone()),
            white: Some(seats[1].label.clone()),
            result: Some(result.clone()),
            date: Some(baduk_go::sgf::today()),
            comment: Some(comment),
        };
        let sgf = baduk_go::sgf::write_with(referee.lib_game(), &info);
        let path = dir.join(format!("game-{:03}.sgf", k + 1));
        std::fs::write(&path, sgf).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(GoGameResult {
        game: k,
        black: label(true),
        winner: winner_black.map(label),
        result,
        ending,
        margin_a: margin_black.map(|s| if a_black { s } else { -s }),
        moves,
        forfeit: forfeit.map(|(black, why)| {
            format!(
                "{} ({}): {why}",
                label(black),
                if black { "B" } else { "W" }
            )
        }),
        second_opinion: second,
        disagreement,
        genmove_ms,
        genmoves,
    })
}

fn report(m: &GoMatch, results: Vec<GoGameResult>) -> GoMatchReport {
    let played: Vec<Played> = results
        .iter()
        .map(|r| Played {
            a_points: match r.winner.as_deref() {
                Some("a") => 1.0,
                Some(_) => 0.0,
                None => 0.5,
            },
            a_first: r.black == "a",
            margin: r.margin_a.map(f64::from),
            length: r.moves,
        })
        .collect();
    let calls: u64 = results.iter().map(|r| r.genmoves).sum();
    let ms: f64 = results.iter().map(|r| r.genmove_ms).sum();
    GoMatchReport {
        a: m.a.to_string(),
        b: m.b.to_string(),
        size: m.size,
        rules: m.rules.clone(),
        komi: m.komi,
        seed: m.seed,
        stats: MatchStats::of(&played, calls, ms),
        forfeits: results
            .iter()
            .filter(|r| r.ending == Ending::Forfeit)
            .count() as u64,
        score_disagreements: results.iter().filter(|r| r.disagreement).count() as u64,
        results,
    }
}

impl fmt::Display for GoMatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "A: {}\nB: {}", self.a, self.b)?;
        writeln!(
            f,
            "{}x{} {} komi {}: {} games, A {} - B {} - draws {}",
            self.size,
            self.size,
            self.rules,
            self.komi,
            self.stats.games,
            self.stats.a_wins,
            self.stats.b_wins,
            self.stats.draws
        )?;
        writeln!(
            f,
            "A's {} (as Black {:.1}%, as White {:.1}%), {}",
            self.stats.score_text(),
            self.stats.a_score_by_side[0] * 100.0,
            self.stats.a_score_by_side[1] * 100.0,
            self.stats.elo_text()
        )?;
        writeln!(
            f,
            "mean margin for A {:+.1} ± {:.1}",
            self.stats.mean_margin, self.stats.margin_se
        )?;
        writeln!(
            f,
            "mean length {:.1} moves, {:.0} ms per genmove",
            self.stats.mean_length, self.stats.mean_ms_per_action
        )?;
        writeln!(
            f,
            "forfeits {}, score disagreements with GNU Go {}",
            self.forfeits, self.score_disagreements
        )?;
        for r in &self.results {
            if let Some(why) = &r.forfeit {
                writeln!(f, "game {}: forfeit by {why}", r.game + 1)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_name_engines_briefly() {
        assert_eq!(
            short_name("GNU Go", "3.8", "/usr/games/gnugo --mode gtp --level 10"),
            "GNU Go 3.8 level 10"
        );
        assert_eq!(short_name("", "", "/opt/x/engine --y"), "/opt/x/engine");
    }

    #[test]
    fn engine_specs_parse_ours_and_gtp_programs() {
        assert_eq!("baduk".parse(), Ok(EngineSpec::Baduk(String::new())));
        assert_eq!(
            "baduk:playouts=10".parse(),
            Ok(EngineSpec::Baduk("playouts=10".into()))
        );
        assert_eq!(
            "gtp:/usr/games/gnugo --mode gtp".parse(),
            Ok(EngineSpec::Gtp("/usr/games/gnugo --mode gtp".into()))
        );
        assert!("gnugo".parse::<EngineSpec>().is_err());
        assert!("gtp:".parse::<EngineSpec>().is_err());
    }

    #[test]
    fn gtp_scores_parse_to_blacks_margin() {
        assert_eq!(parse_score("B+3.5"), Some(3.5));
        assert_eq!(parse_score("W+0.5"), Some(-0.5));
        assert_eq!(parse_score("0"), Some(0.0));
        assert_eq!(parse_score("B+R"), None);
    }

    #[test]
    fn self_play_match_alternates_colours_and_counts_results() {
        let m = GoMatch {
            a: "baduk:playouts=30".parse().unwrap(),
            b: "baduk:playouts=30".parse().unwrap(),
            size: 5,
            rules: "tromp-taylor".into(),
            komi: 0.5,
            games: 2,
            time: None,
            seed: 9,
            records: None,
            max_moves: 200,
        };
        let mut seen = 0;
        let r = play_match(&m, |_| seen += 1).unwrap();
        assert_eq!(seen, 2);
        assert_eq!(r.stats.games, 2);
        assert_eq!(r.results[0].black, "a");
        assert_eq!(r.results[1].black, "b");
        assert_eq!(r.stats.a_wins + r.stats.b_wins + r.stats.draws, 2);
        assert_eq!(r.forfeits, 0);
    }

    #[test]
    fn smoke_match_against_gnugo_plays_two_games_with_records() {
        let gnugo = "/usr/games/gnugo";
        if !std::path::Path::new(gnugo).exists() {
            eprintln!("skipped: {gnugo} is not installed");
            return;
        }
        let dir = std::env::temp_dir().join(format!("baduk-arena-smoke-{}", std::process::id()));
        let m = GoMatch {
            a: "baduk:playouts=150".parse().unwrap(),
            b: format!("gtp:{gnugo} --mode gtp --level 0").parse().unwrap(),
            size: 9,
            rules: "chinese".into(),
            komi: 7.0,
            games: 2,
            time: None,
            seed: 1,
            records: Some(dir.clone()),
            max_moves: 200,
        };
        let r = play_match(&m, |_| {}).unwrap();
        assert_eq!(r.stats.games, 2);
        assert!(
            r.results
                .iter()
                .all(|g| g.forfeit.as_deref().is_none_or(|f| !f.starts_with("a "))),
            "our bot never forfeits: {:?}",
            r.results
        );
        for f in ["game-001.sgf", "game-002.sgf"] {
            let text = std::fs::read_to_string(dir.join(f)).unwrap();
            let sgf = baduk_go::SgfGame::parse(&text).unwrap();
            let rules = sgf.rules(None).unwrap();
            sgf.replay(rules, None)
                .unwrap_or_else(|e| panic!("{f} replays under the rules library: {e}\n{text}"));
            assert!(
                text.contains("SZ[9]") && !text.contains("SZ[9:9]"),
                "{text}"
            );
            assert!(
                text.contains("PB[") && text.contains("GNU Go 3.8 level 0"),
                "{text}"
            );
            assert!(text.contains(&format!("baduk {}", env!("CARGO_PKG_VERSION"))));
            assert!(
                text.contains("C[Black: "),
                "the full commands in a comment: {text}"
            );
        }
        let json = serde_json::to_value(&r).unwrap();
        for k in [
            "forfeits",
            "score_disagreements",
            "a_score",
            "a_score_ci95",
            "elo",
            "elo_ci95",
            "elo_error",
            "mean_margin",
            "margin_se",
            "mean_length",
            "mean_ms_per_action",
            "a_score_by_side",
            "results",
        ] {
            assert!(json.get(k).is_some(), "{k}");
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn an_illegal_move_by_an_engine_forfeits_the_game_and_is_reported() {
        // A GTP "engine" that always answers A1: its second A1 is on an occupied point.
        let dir = std::env::temp_dir().join(format!("baduk-arena-fake-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("fake.sh");
        std::fs::write(
            &script,
            "while read -r id cmd rest; do case \"$cmd\" in\n\
             genmove) printf '=%s A1\\n\\n' \"$id\";;\n\
             quit) printf '=%s\\n\\n' \"$id\"; exit 0;;\n\
             *) printf '=%s\\n\\n' \"$id\";;\n\
             esac; done\n",
        )
        .unwrap();
        let m = GoMatch {
            a: "baduk:playouts=20".parse().unwrap(),
            b: format!("gtp:sh {}", script.display()).parse().unwrap(),
            size: 5,
            rules: "chinese".into(),
            komi: 7.0,
            games: 2,
            time: None,
            seed: 1,
            records: None,
            max_moves: 100,
        };
        let r = play_match(&m, |_| {}).unwrap();
        assert_eq!(r.forfeits, 2, "{:?}", r.results);
        assert_eq!(r.stats.a_wins, 2);
        for g in &r.results {
            let why = g.forfeit.as_deref().unwrap();
            assert!(why.starts_with("b ") && why.contains("A1"), "{why}");
            assert!(g.result.ends_with("+F"));
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
