//! An external analysis engine speaking KataGo's JSON analysis protocol (`katago analysis`),
//! chosen by the operator (`baduk serve --analysis-engine "…"`): one long-lived child process,
//! started when a review first needs it, shared by every review (one query at a time), and
//! started again after a failure once a backoff has passed (1 s, doubling, at most a minute).
//!
//! A query asks for a batch of a review's positions (`analyzeTurns`) with Black's view of the
//! win rates and scores (`reportAnalysisWinratesAs` overridden to `BLACK`, whatever the
//! operator's config says); each turn's answer becomes the same JSON our own engine stores
//! for a position, marked `"engine": "katago"`.
//!
//! Every failure is a reason, never a stall: the engine missing, exiting, answering a line that
//! is not JSON, longer than [`MAX_LINE`], for an unknown id, or with an `error`, or not
//! answering within the batch's deadline. The child is then killed and the caller (the
//! review's worker) falls back to our own engine for that review.

use super::engine::mv_text;
use baduk_go::{Color, Rules, SgfGame};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The longest line the engine may answer (bytes); a longer one is a failure.
pub const MAX_LINE: usize = 1 << 20;
/// Positions one query asks for (one more is asked for the last one's loss, not stored).
pub const BATCH: usize = 8;
/// A batch's deadline is the per-position time (`--review-seconds`, else `--bot-max-time`)
/// this many times per position asked…
pub const TIME_FACTOR: u32 = 10;
/// …plus this many times for the engine's start (loading its network).
pub const START_FACTOR: u32 = 20;
/// The longest wait before the engine is started again after failures.
pub const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// Stderr lines of the engine kept for the reason of a failure.
const STDERR_LINES: usize = 4;

pub use crate::config::ExternalEngine;

/// Splits an operator's command line as a shell would (words, `'…'`, `"…"`, `\`), without
/// expanding anything.
pub fn split_command(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    out.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("an unclosed ' quote".into()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c) => w.push(c),
                            None => return Err("a \\ at the end".into()),
                        },
                        Some(c) => w.push(c),
                        None => return Err("an unclosed \" quote".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err("a \\ at the end".into()),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    if out.is_empty() {
        return Err("an empty command line".into());
    }
    Ok(out)
}

/// The running child: its pipes and the tail of its stderr.
struct Running {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

/// The child (if running) and its failures so far.
#[derive(Default)]
struct Slot {
    running: Option<Running>,
    failures: u32,
    retry_at: Option<Instant>,
    last_error: Option<String>,
    next_id: u64,
}

/// The shared client of the external engine.
pub struct KataGo {
    argv: Vec<String>,
    slot: tokio::sync::Mutex<Slot>,
}

/// Reads one line (without its `\n`) of at most `cap` bytes; None at the end of the stream.
async fn read_line_capped<R: AsyncBufRead + Unpin>(
    r: &mut R,
    cap: usize,
) -> Result<Option<Vec<u8>>, String> {
    let mut line = Vec::new();
    loop {
        let buf = r.fill_buf().await.map_err(|e| format!("read: {e}"))?;
        if buf.is_empty() {
            return Ok((!line.is_empty()).then_some(line));
        }
        let (take, end) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        if line.len() + take > cap {
            return Err(format!("answered a line longer than {cap} bytes"));
        }
        line.extend_from_slice(&buf[..take]);
        r.consume(take + usize::from(end));
        if end {
            return Ok(Some(line));
        }
    }
}

impl KataGo {
    /// A client of the engine `argv` (nothing is started yet).
    pub fn new(argv: Vec<String>) -> KataGo {
        KataGo {
            argv,
            slot: tokio::sync::Mutex::new(Slot::default()),
        }
    }

    fn spawn(&self) -> Result<Running, String> {
        let mut child = Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("could not start `{}`: {e}", self.argv[0]))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(err) = child.stderr.take() {
            let tail = stderr.clone();
            tokio::spawn(async move {
                let mut r = BufReader::new(err);
                while let Ok(Some(l)) = read_line_capped(&mut r, 64 << 10).await {
                    let l: String = String::from_utf8_lossy(&l).chars().take(200).collect();
                    let mut t = tail.lock().expect("stderr lock");
                    t.push_back(l);
                    while t.len() > STDERR_LINES {
                        t.pop_front();
                    }
                }
            });
        }
        Ok(Running {
            child,
            stdin,
            stdout,
            stderr,
        })
    }

    /// Asks `query` (its `id` set here) and collects the final answer of each of `turns`
    /// within the deadline made of `per` (the time a position may take); any failure kills the child and is a reason starting
    /// `analysis engine:`.
    pub async fn analyze(
        &self,
        mut query: Value,
        turns: &[usize],
        per: Duration,
    ) -> Result<HashMap<usize, Value>, String> {
        let mut slot = self.slot.lock().await;
        if slot.running.is_none() {
            if let Some(at) = slot.retry_at.filter(|at| *at > Instant::now()) {
                let why = slot.last_error.clone().unwrap_or_default();
                return Err(format!(
                    "{why} (started again in {} s at the earliest)",
                    at.saturating_duration_since(Instant::now()).as_secs() + 1
                ));
            }
        }
        let fresh = slot.running.is_none();
        if fresh {
            match self.spawn() {
                Ok(r) => slot.running = Some(r),
                Err(e) => return Err(fail(&mut slot, format!("analysis engine: {e}"))),
            }
        }
        slot.next_id += 1;
        let id = format!("baduk-{}", slot.next_id);
        query["id"] = json!(id);
        // The deadline: the per-position time, [`TIME_FACTOR`] times a turn asked, and
        // [`START_FACTOR`] times for a fresh start.
        let deadline = per * TIME_FACTOR * turns.len().max(1) as u32;
        let start = if fresh {
            per * START_FACTOR
        } else {
            Duration::ZERO
        };
        let run = slot.running.as_mut().expect("started above");
        let asked = tokio::time::timeout(deadline + start, exchange(run, &query, &id, turns)).await;
        let err = match asked {
            Ok(Ok(answers)) => {
                slot.failures = 0;
                return Ok(answers);
            }
            Ok(Err(e)) => e,
            Err(_) => format!(
                "did not answer within {:.1} s",
                (deadline + start).as_secs_f64()
            ),
        };
        let mut run = slot.running.take().expect("running");
        let _ = run.child.start_kill();
        let status = tokio::time::timeout(Duration::from_secs(2), run.child.wait()).await;
        let tail: Vec<String> = run
            .stderr
            .lock()
            .expect("stderr lock")
            .iter()
            .cloned()
            .collect();
        let mut why = match status {
            // It ended by itself before the kill: say how.
            Ok(Ok(s)) if err.starts_with("closed") => match s.code() {
                Some(c) => format!("exited with status {c}"),
                None => format!("ended: {s}"),
            },
            _ => err,
        };
        if let Some(last) = tail.last().filter(|l| !l.trim().is_empty()) {
            why = format!("{why} (its last words: {})", last.trim());
        }
        Err(fail(&mut slot, format!("analysis engine: {why}")))
    }
}

/// Notes a failure (the backoff doubles) and returns its reason.
fn fail(slot: &mut Slot, why: String) -> String {
    slot.failures = slot.failures.saturating_add(1);
    let wait = Duration::from_secs(1 << slot.failures.min(6).saturating_sub(1)).min(MAX_BACKOFF);
    slot.retry_at = Some(Instant::now() + wait);
    slot.last_error = Some(why.clone());
    tracing::warn!("{why}");
    why
}

/// Writes the query and reads answers until every turn has its final one.
async fn exchange(
    run: &mut Running,
    query: &Value,
    id: &str,
    turns: &[usize],
) -> Result<HashMap<usize, Value>, String> {
    let mut line = query.to_string();
    line.push('\n');
    run.stdin
        .write_all(line.as_bytes())
        .await
        .map_err(|e| format!("closed its input ({e})"))?;
    run.stdin
        .flush()
        .await
        .map_err(|e| format!("closed its input ({e})"))?;
    let mut out = HashMap::new();
    while out.len() < turns.len() {
        let Some(l) = read_line_capped(&mut run.stdout, MAX_LINE).await? else {
            return Err("closed its output".into());
        };
        let text = String::from_utf8_lossy(&l);
        if text.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&text).map_err(|_| {
            format!(
                "answered something that is not JSON: {:?}",
                text.chars().take(80).collect::<String>()
            )
        })?;
        if let Some(e) = v.get("error") {
            let field = v["field"]
                .as_str()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default();
            return Err(format!("error: {}{field}", e.as_str().unwrap_or("?")));
        }
        if v.get("warning").is_some() {
            // A warning about the override means Black's view was not set: refuse the figures.
            if v["field"] == "overrideSettings" {
                return Err(format!("warning: {}", v["warning"]));
            }
            tracing::info!("analysis engine: {v}");
            continue;
        }
        if v["id"] != id {
            return Err(format!(
                "answered id {} to query {id}",
                v["id"].to_string().chars().take(40).collect::<String>()
            ));
        }
        if v["isDuringSearch"] == true {
            continue;
        }
        let turn = v["turnNumber"]
            .as_u64()
            .ok_or("answered without a turnNumber")? as usize;
        if !turns.contains(&turn) {
            return Err(format!("answered turn {turn}, not asked for"));
        }
        if v["rootInfo"]["winrate"].as_f64().is_none() {
            return Err(format!("answered turn {turn} without rootInfo.winrate"));
        }
        out.insert(turn, v);
    }
    Ok(out)
}

/// KataGo's name of our rule set (the nearest it knows).
pub fn katago_rules(rules: &Rules) -> &'static str {
    use baduk_go::rules::Preset;
    match rules.preset {
        Preset::Chinese => "chinese",
        Preset::Japanese | Preset::Jk => "japanese",
        Preset::Korean | Preset::Kang => "korean",
        Preset::Aga => "aga",
        Preset::Nz | Preset::Ing => "new-zealand",
        Preset::TrompTaylor => "tromp-taylor",
    }
}

/// The query for `turns` of the record `g` under `rules` (without its id).
pub fn query(g: &SgfGame, rules: &Rules, turns: &[usize], visits: u64) -> Value {
    let last = turns.iter().copied().max().unwrap_or(0).min(g.moves.len());
    let stones = |c: Color| {
        g.setup
            .points()
            .filter(move |&p| g.setup.get(p) == Some(c))
            .map(move |p| json!([c.letter().to_string(), p.to_string()]))
    };
    let initial: Vec<Value> = stones(Color::Black).chain(stones(Color::White)).collect();
    let moves: Vec<Value> = g.moves[..last]
        .iter()
        .map(|m| json!([m.color.letter().to_string(), mv_text(m.mv)]))
        .collect();
    json!({
        "moves": moves,
        "initialStones": initial,
        "initialPlayer": g.to_move.letter().to_string(),
        "rules": katago_rules(rules),
        "komi": rules.komi.as_f64(),
        "boardXSize": g.size.cols(),
        "boardYSize": g.size.rows(),
        "analyzeTurns": turns,
        "maxVisits": visits,
        "includeOwnership": true,
        "overrideSettings": {"reportAnalysisWinratesAs": "BLACK"},
    })
}

/// The positions of a batch from `k`: up to [`BATCH`] not yet stored, in a row, before
/// `total`; and the turns to ask (those and the next, for the last one's loss).
pub fn batch(
    k: usize,
    total: usize,
    done: &(dyn Fn(usize) -> bool + Sync),
    moves: usize,
) -> (Vec<usize>, Vec<usize>) {
    let store: Vec<usize> = (k..total).take_while(|&t| !done(t)).take(BATCH).collect();
    let mut ask = store.clone();
    if let Some(&l) = store.last() {
        if l < moves {
            ask.push(l + 1);
        }
    }
    (store, ask)
}

fn f(v: &Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite())
}

/// The stored JSON of position `k` from KataGo's answer (Black's view), `next` being the
/// answer at `k + 1` if asked: the fields our own engine stores, marked `"engine": "katago"`.
pub fn position(g: &SgfGame, rules: &Rules, k: usize, a: &Value, next: Option<&Value>) -> Value {
    let round = super::engine::rounded;
    let root = &a["rootInfo"];
    let to_move = match root["currentPlayer"].as_str() {
        Some("W") => Color::White,
        Some("B") => Color::Black,
        _ => g.moves.get(k).map_or(g.to_move, |m| m.color),
    };
    // The mover's view of Black's figures.
    let sign = if to_move == Color::Black { 1.0 } else { -1.0 };
    let mine_wr = |w: f64| if sign > 0.0 { w } else { 1.0 - w };
    let winrate = f(&root["winrate"]).unwrap_or(0.5);
    let score = f(&root["scoreLead"]).unwrap_or(0.0);
    let visits = root["visits"].as_u64().unwrap_or(0);
    let sd = f(&root["scoreStdev"]).unwrap_or(0.0);
    let band = 2.0 * sd / (visits.max(1) as f64).sqrt();
    let infos = a["moveInfos"].as_array().cloned().unwrap_or_default();
    let best = infos
        .iter()
        .min_by_key(|m| m["order"].as_u64().unwrap_or(u64::MAX))
        .cloned()
        .unwrap_or(Value::Null);
    let best_mv = best["move"].as_str().map(|s| s.to_ascii_uppercase());
    let same = |m: &str, s: &str| m.eq_ignore_ascii_case(s);
    let played = g.moves.get(k).map(|m| mv_text(m.mv));
    let played_info = played.as_deref().and_then(|p| {
        infos
            .iter()
            .find(|m| m["move"].as_str().is_some_and(|x| same(x, p)))
    });
    let best_wr = f(&best["winrate"]).map(mine_wr);
    let best_lead = f(&best["scoreLead"]).map(|s| s * sign);
    // The played move's loss: its own figures beside the best move's (one tree); else the
    // root here against the root after it (KaTrain's way); never one for the engine's choice.
    let is_best = matches!((&played, &best_mv), (Some(p), Some(b)) if same(p, b));
    let (loss, points_lost, from) = if played.is_none() || is_best {
        (0.0, 0.0, if is_best { "best" } else { "none" })
    } else if let (Some(pi), Some(bw), Some(bl)) = (played_info, best_wr, best_lead) {
        let pw = f(&pi["winrate"]).map(mine_wr).unwrap_or(bw);
        let pl = f(&pi["scoreLead"]).map(|s| s * sign).unwrap_or(bl);
        ((bw - pw).max(0.0), (bl - pl).max(0.0), "move")
    } else if let Some(n) = next {
        let nw = f(&n["rootInfo"]["winrate"])
            .map(mine_wr)
            .unwrap_or(mine_wr(winrate));
        let nl = f(&n["rootInfo"]["scoreLead"])
            .map(|s| s * sign)
            .unwrap_or(score * sign);
        (
            (mine_wr(winrate) - nw).max(0.0),
            (score * sign - nl).max(0.0),
            "next",
        )
    } else {
        (0.0, 0.0, "none")
    };
    // Ownership (Black's view, row-major from the top left): each point to its usual owner.
    let own: Vec<f64> = a["ownership"]
        .as_array()
        .map(|o| o.iter().filter_map(f).collect())
        .unwrap_or_default();
    let owned = own.iter().filter(|&&o| o > 0.0).count() as f64
        - own.iter().filter(|&&o| o < 0.0).count() as f64
        - rules.komi.as_f64();
    let unsettled = own.iter().filter(|&&o| o.abs() < 0.6).count();
    json!({
        "position": k,
        "to_move": to_move.letter().to_string(),
        "winrate": round(winrate, 10_000.0),
        "score": round(score, 10.0),
        "score_band": round(band, 10.0),
        "score_sd": round(sd, 10.0),
        "owned_score": if own.is_empty() { Value::Null } else { json!(round(owned, 10.0)) },
        "unsettled": if own.is_empty() { Value::Null } else { json!(unsettled) },
        "best": best_mv.as_deref().map(|m| if same(m, "pass") { "pass".to_string() } else { m.to_string() }),
        "pv": best["pv"].as_array().map(|p| p.iter().take(12).filter_map(|m| m.as_str()).map(|m| if same(m, "pass") { "pass".to_string() } else { m.to_ascii_uppercase() }).collect::<Vec<_>>()).unwrap_or_default(),
        "best_winrate": best_wr.map(|w| round(w, 10_000.0)),
        "played": played,
        "played_winrate": played_info.and_then(|p| f(&p["winrate"])).map(|w| round(mine_wr(w), 10_000.0)),
        "played_visits": played_info.and_then(|p| p["visits"].as_u64()).unwrap_or(0),
        "loss": round(loss, 10_000.0),
        "points_lost": round(points_lost, 10.0),
        "loss_from": from,
        "visits": visits,
        "engine": "katago",
    })
}

/// Reviews a batch of a Go record's positions from `k` (the first not stored) with the
/// external engine: the stored JSON of each, by position. `ask` is the review's stored game
/// (`super::stored`) and its summary. Err: the reason (the engine or the record failed).
pub async fn review_batch(
    ext: &KataGo,
    limits: &crate::config::Limits,
    ask: (&str, &str),
    k: usize,
    total: usize,
    done: &(dyn Fn(usize) -> bool + Sync),
) -> Result<Vec<(usize, Value)>, String> {
    let (game, summary) = (ask.0.to_string(), ask.1.to_string());
    let (g, rules) = tokio::task::spawn_blocking(move || {
        let summary: Value = serde_json::from_str(&summary).map_err(|e| e.to_string())?;
        let g = super::stored::from_json(&game).map_err(|e| e.message)?;
        let (rules, _) = super::engine::go_plan(&summary, &g);
        Ok::<_, String>((g, rules))
    })
    .await
    .map_err(|e| format!("the record could not be read: {e}"))??;
    let (store, turns) = batch(k, total, done, g.moves.len());
    let (visits, per) = budget(limits);
    let q = query(&g, &rules, &turns, visits);
    let answers = ext.analyze(q, &turns, per).await?;
    Ok(store
        .iter()
        .map(|&t| {
            let a = &answers[&t];
            (t, position(&g, &rules, t, a, answers.get(&(t + 1))))
        })
        .collect())
}

/// The operator's budget for one position: the engine's visits and the time a position may
/// take.
fn budget(limits: &crate::config::Limits) -> (u64, Duration) {
    let visits = limits
        .analysis_engine
        .as_ref()
        .and_then(|e| e.visits)
        .unwrap_or(limits.review_playouts)
        .max(1);
    (visits, limits.review_time.unwrap_or(limits.bots.max_time))
}

/// The position at the end of `g` (a line of a review's tree, read as a record) judged by the
/// external engine under `rules`, in the same JSON as a main-line position.
pub async fn review_end(
    ext: &KataGo,
    limits: &crate::config::Limits,
    g: &SgfGame,
    rules: &Rules,
) -> Result<Value, String> {
    let t = g.moves.len();
    let (visits, per) = budget(limits);
    let answers = ext
        .analyze(query(g, rules, &[t], visits), &[t], per)
        .await?;
    let a = answers
        .get(&t)
        .ok_or_else(|| format!("no answer for turn {t}"))?;
    Ok(position(g, rules, t, a, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_as_a_shell_would() {
        assert_eq!(
            split_command(
                r#"/opt/k/katago analysis -model "my net.bin.gz" -config a\ b.cfg 'x y'"#
            )
            .unwrap(),
            [
                "/opt/k/katago",
                "analysis",
                "-model",
                "my net.bin.gz",
                "-config",
                "a b.cfg",
                "x y"
            ]
        );
        assert!(split_command("  ").is_err());
        assert!(split_command("katago 'open").is_err());
    }

    #[test]
    fn a_batch_asks_one_turn_more_for_the_last_loss() {
        let none = |_| false;
        assert_eq!(
            batch(0, 36, &none, 36),
            ((0..8).collect(), (0..9).collect())
        );
        assert_eq!(
            batch(32, 36, &none, 36),
            ((32..36).collect(), (32..37).collect())
        );
        let some = |t| t == 3;
        assert_eq!(batch(0, 36, &some, 36).0, vec![0, 1, 2]);
    }
}
