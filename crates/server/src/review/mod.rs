//! Owns: reviews of uploaded records (this file), their editable trees (`tree`, over HTTP in
//! `node` with the engine on any node), the engine's review (`engine`), an external
//! analysis engine (`katago`), their export (`export`), the live rooms every review is
//! (`room`: cursor, control, chat, one holder on a cluster). May use: `game` (rules, bots, the heavy
//! pool), `store`, `config`, the shared state (`state`), `players` (who asks) and `cluster`
//! (where a review room lives); never `http`, `botapi`, `challenges`, `mail`.
//!
//! Reviews: a record (an SGF game in any `CA` charset, one game of a collection, or a Wall Go
//! record) stored under its own id, with its replay, its legality under every rule set and the
//! table of every rule set at its final position; dead chains toggled on any position give a new
//! table (the rows `baduk go score --json` prints for the same marks).
//!
//! Every request is a stranger's: the body is capped ([`BODY_LIMIT`]), the reader's work too
//! ([`stored::SGF_LIMITS`]: nodes, variations, games, properties, points and value bytes of the
//! whole file, counted as the SGF is read; the library's 25×25 board and its cap on set-up
//! points), a refused record stores nothing, and replay, scoring and export run on the
//! server-wide heavy pool ([`crate::game::work`]), never on the runtime's threads. A record is
//! read once, at upload: what `GET` serves (the summary and the engine's plan) and the game
//! itself ([`stored`]: what marks, the export and the engine start from) are stored then, so no
//! later request reads the SGF again. A Go review's tree (every variation, comment and markup)
//! is edited by its controller's ops ([`tree::apply_op`]) and exported whole; the summary and
//! the engine's review stay the uploaded main line's. Toggling marks computes a table and
//! stores nothing.

use crate::game::go_room::rules_label;
use crate::game::room::ActError;
use crate::state::limit::ClientKey;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use baduk_go::life::{self, EstimateConfig, Unconditional};
use baduk_go::scoring::record::Record;
use baduk_go::scoring::table::{self, KomiChoice};
use baduk_go::scoring::PointSet;
use baduk_go::{Board, Color, GameEnd, LossRule, Move, Point, Rules, SgfGame};
use serde::Deserialize;
use serde_json::{json, Value};
use sqlx::Row;
use std::sync::Arc;

pub mod engine;
pub mod export;
pub mod katago;
mod node;
pub mod room;
pub mod stored;
pub mod tree;
use engine::{Engine, Plan};
use stored::sgf_error;

/// The largest record accepted (bytes).
pub const BODY_LIMIT: usize = 1 << 20;
/// The routes of reviews and the review page (merged into the API's router, under its rate
/// limit).
pub fn routes() -> Router<AppState> {
    let engine = Arc::new(Engine::default());
    Router::new()
        .route(
            "/api/reviews",
            post(node::create).layer(DefaultBodyLimit::max(BODY_LIMIT)),
        )
        .route("/api/reviews/{id}", get(get_review).patch(room::api::patch))
        .route("/api/reviews/{id}/marks", post(marks))
        .route("/api/reviews/{id}/record", get(get_record))
        .route(
            "/api/reviews/{id}/analysis",
            get(get_analysis).post(start_analysis),
        )
        .route("/api/reviews/{id}/tree", get(node::get_tree))
        .route("/api/reviews/{id}/ops", post(node::post_op))
        .route(
            "/api/reviews/{id}/nodes/{node}/analysis",
            get(node::get_node_analysis).post(node::start_node_analysis),
        )
        .merge(room::api::routes())
        .layer(Extension(engine))
}

/// What a record's text was found to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Go,
    Wall,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Go => "go",
            Kind::Wall => "wallgo",
        }
    }
}

/// The text with every `CA[…]` property's value set to `UTF-8`: the stored text is decoded, so
/// the record served back must not name its old charset.
fn as_utf8(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_value = false;
    let mut escaped = false;
    let mut skip = false;
    let mut prev = ' ';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_value {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                ']' => {
                    in_value = false;
                    skip = false;
                }
                _ => {}
            }
            if !skip || !in_value {
                out.push(c);
            }
            prev = c;
            continue;
        }
        if c == 'C' && !prev.is_ascii_uppercase() && chars.peek() == Some(&'A') {
            chars.next();
            let mut ws = String::new();
            while let Some(&w) = chars.peek() {
                if w.is_whitespace() {
                    ws.push(w);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push_str("CA");
            out.push_str(&ws);
            if chars.peek() == Some(&'[') {
                chars.next();
                out.push_str("[UTF-8");
                in_value = true;
                skip = true;
            }
            prev = 'A';
            continue;
        }
        if c == '[' {
            in_value = true;
        }
        out.push(c);
        prev = c;
    }
    out
}

/// Whether the text's first meaningful line is a Wall Go record's header.
fn is_wall_record(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| l.split_whitespace().next() == Some("wallgo"))
}

/// What an upload stores: its kind, the text, the game index, the summary served by `GET`
/// (replay, legality, table), the engine's plan and the Go game read ([`stored`]).
struct Upload {
    kind: Kind,
    text: String,
    index: usize,
    summary: Value,
    plan: Plan,
    game: Option<String>,
    /// The Go record's tree ([`tree`]'s snapshot).
    tree: Option<String>,
}

/// Reads an uploaded record. Every refusal is a 4xx naming why.
fn read_upload(bytes: &[u8], game: Option<usize>) -> Result<Upload, ActError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ActError::bad_request(
            "the request has no record: send an SGF file or a Wall Go record as the body",
        )
        .with_code("review.empty", Value::Null));
    }
    if is_wall_record(bytes) {
        if game.is_some() {
            return Err(ActError::bad_request(
                "?game=N chooses a game of an SGF collection; a Wall Go record holds one game",
            ));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            ActError::bad_request(format!("a Wall Go record is UTF-8 text: {e}"))
                .with_code("review.utf8", Value::Null)
        })?;
        let summary = wall_summary(text)?;
        let plan = engine::wall_plan(&summary);
        return Ok(Upload {
            kind: Kind::Wall,
            text: text.to_string(),
            index: 0,
            summary,
            plan,
            game: None,
            tree: None,
        });
    }
    let text = baduk_go::sgf::decode(bytes).map_err(|e| sgf_error(&e))?;
    if !text.contains("(;") && !text.trim_start().starts_with('(') {
        return Err(ActError::bad_request(
            "this is neither an SGF file (it starts with `(;`) nor a Wall Go record (its first line is `wallgo 1`)",
        )
        .with_code("review.unknown", Value::Null));
    }
    let index = match game {
        Some(0) => {
            return Err(ActError::bad_request(
                "?game=N: the games of a collection are numbered from 1",
            ))
        }
        Some(n) => n - 1,
        None => 0,
    };
    let (g, tree) = stored::read_with_tree(&text, index)?;
    let summary = go_summary(&g, index)?;
    let plan = engine::go_plan_of(&summary, &g);
    Ok(Upload {
        kind: Kind::Go,
        text: as_utf8(&text),
        index,
        summary,
        plan,
        game: Some(stored::to_json(&g)),
        tree: Some(tree),
    })
}

fn points(ps: impl IntoIterator<Item = Point>) -> Vec<String> {
    ps.into_iter().map(|p| p.to_string()).collect()
}

fn move_text(m: Move) -> String {
    match m {
        Move::Play(p) => p.to_string(),
        Move::Pass => "pass".into(),
    }
}

/// The replay of a Go record: per move its colour, point and the stones it took off.
fn go_moves(g: &SgfGame) -> Result<Vec<Value>, ActError> {
    let mut board = g.setup.clone();
    let size = g.size;
    let mut out = Vec::with_capacity(g.moves.len());
    let mut comments = g.comments.iter().peekable();
    // Comments before the first move belong to the start (the summary's `comment`).
    while comments.peek().is_some_and(|(n, _)| *n == 0) {
        comments.next();
    }
    for (i, m) in g.moves.iter().enumerate() {
        let before = board.clone();
        if let Move::Play(pt) = m.mv {
            board.play(pt, m.color).map_err(|e| {
                sgf_error(&baduk_go::SgfError {
                    line: m.line,
                    property: Some(format!("{}[{}]", m.color.letter(), pt.to_sgf(size))),
                    message: format!("move {} {} {pt}: {e}", i + 1, m.color.letter()),
                    limit: None,
                })
            })?;
        }
        let captured: Vec<String> = points(
            before
                .points()
                .filter(|&p| before.get(p).is_some() && board.get(p).is_none()),
        );
        let mut comment = Vec::new();
        while comments.peek().is_some_and(|(n, _)| *n == i + 1) {
            comment.push(comments.next().map(|(_, c)| c.clone()).unwrap_or_default());
        }
        out.push(json!({
            "color": m.color.letter().to_string(),
            "move": move_text(m.mv),
            "captured": captured,
            "line": m.line,
            "comment": (!comment.is_empty()).then(|| comment.join("\n")),
        }));
    }
    Ok(out)
}

/// How a replay ended, as a key and its arguments: what a page says in its own language (the
/// library's English sentence goes beside it as `end`).
fn end_code(e: GameEnd) -> (&'static str, Value) {
    let c = |c: Color| c.letter().to_string();
    match e {
        GameEnd::Passes => ("passes", json!({})),
        GameEnd::JkSequence { sequence } => ("jk_sequence", json!({"sequence": sequence})),
        GameEnd::Agreement => ("agreement", json!({})),
        GameEnd::Resignation { loser } => ("resignation", json!({"color": c(loser)})),
        GameEnd::Loss { loser, rule, at } => {
            let key = match rule {
                LossRule::Suicide => "loss.suicide",
                LossRule::ImmediateRepetition => "loss.repetition",
                LossRule::Time => "loss.time",
                _ => "loss",
            };
            (key, json!({"color": c(loser), "at": at}))
        }
        GameEnd::JkRepetition {
            winner,
            first,
            second,
            third,
            captured: [black, white],
        } => (
            "jk_repetition",
            json!({"winner": winner.map(c), "first": first, "second": second, "third": third,
                   "black": black, "white": white}),
        ),
        GameEnd::NoResult { from, to } => ("no_result", json!({"from": from + 1, "to": to})),
        GameEnd::MoveLimit { limit } => ("move_limit", json!({"limit": limit.to_string()})),
        _ => ("other", json!({})),
    }
}

/// The rules the record names (`RU`), if this program knows them.
fn named_rules(g: &SgfGame) -> Option<String> {
    g.rules_name.as_ref()?;
    g.rules(None)
        .ok()
        .map(|r| rules_label(&Rules::preset(r.preset)))
}

/// Each preset's verdict on the whole record: accepted, or the first illegal move with the
/// rule's message (the library's `go replay` sentence) and where it is in the file.
fn legality(g: &SgfGame) -> Vec<Value> {
    Rules::presets()
        .map(|preset| {
            let mut rules = preset.with_size(g.size);
            if let Some(k) = g.komi {
                rules.komi = k;
            }
            let label = rules_label(&preset);
            match g.replay(rules, None) {
                Ok(game) => {
                    let (end_code, end_args) = game.end().map(end_code).unzip();
                    json!({
                        "rules": label,
                        "accepts": true,
                        "end": game.end().map(|e| e.to_string()),
                        "end_code": end_code,
                        "end_args": end_args,
                    })
                }
                Err(e) => {
                    let err = crate::game::go_room::illegal(&e, &rules);
                    let at = g.moves.get(e.number.wrapping_sub(1));
                    json!({
                        "rules": label,
                        "accepts": false,
                        "illegal": {
                            "number": e.number,
                            "color": e.color.letter().to_string(),
                            "move": move_text(e.mv),
                            "message": err.message,
                            "code": err.code,
                            "args": err.args,
                            "line": at.map(|m| m.line),
                        },
                    })
                }
            }
        })
        .collect()
}

/// Every point's unconditional status (GNU Go's words), grouped: `alive` and `dead` stones,
/// `black_territory` and `white_territory`; the rest is undecided.
fn life_overlay(board: &Board) -> Value {
    let verdict = life::unconditional(board);
    let mut groups: [Vec<String>; 4] = Default::default();
    for p in board.points() {
        let i = match verdict.status(board, p) {
            Unconditional::Alive => 0,
            Unconditional::Dead => 1,
            Unconditional::BlackTerritory => 2,
            Unconditional::WhiteTerritory => 3,
            _ => continue,
        };
        groups[i].push(p.to_string());
    }
    let [alive, dead, bt, wt] = groups;
    json!({"alive": alive, "dead": dead, "black_territory": bt, "white_territory": wt})
}

/// Estimates the rules lab has made, by position: toggling marks on a position asks for its
/// proposal each time, and the estimator's playouts are most of a table's cost.
const ESTIMATES_KEPT: usize = 512;

/// The estimator's proposal for `board` (default settings, so the same board gives the same
/// answer), from the cache when this position was seen.
fn estimate(board: &Board) -> life::Estimate {
    type Cache = std::sync::Mutex<std::collections::HashMap<(u64, u32, u32), life::Estimate>>;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (board.hash(), board.size().cols(), board.size().rows());
    if let Some(e) = cache.lock().expect("estimate cache").get(&key) {
        return e.clone();
    }
    let e = life::estimate(board, &EstimateConfig::default());
    let mut c = cache.lock().expect("estimate cache");
    if c.len() >= ESTIMATES_KEPT {
        c.clear();
    }
    c.insert(key, e.clone());
    e
}

/// The table of every rule set for the position after `upto` moves (all: `None`), with `dead`
/// as the dead stones (None: the file's marks at the end, else the estimator's proposal).
fn table_json(g: &SgfGame, upto: Option<usize>, dead: Option<PointSet>) -> Result<Value, ActError> {
    let rec = Record::from_game(g, upto).map_err(|e| sgf_error(&e))?;
    let mut list: Vec<(Rules, bool)> = Rules::presets().map(|r| (r, false)).collect();
    table::apply_komi(&mut list, KomiChoice::Game, rec.komi);
    let mut list = table::with_ends(g, &rec, list);
    if rec.moves < g.moves.len() {
        // A JK ending is the whole record's: a position before it has not ended.
        for (_, end) in &mut list {
            *end = None;
        }
    }
    let jk_finished = table::jk_finished(&list);
    let proposal = life::from_marks(&rec.board, &rec.marks).unwrap_or_else(|| estimate(&rec.board));
    let est = match dead {
        Some(d) => life::from_dead(&rec.board, d),
        None => proposal.clone(),
    };
    let rows: Vec<Value> = table::rows(&rec, &est, list, jk_finished)
        .iter()
        .map(|r| r.to_json(KomiChoice::Game, rec.komi))
        .collect();
    let unsettled: Vec<String> = est
        .chains
        .iter()
        .filter(|c| c.status == life::ChainStatus::Unsettled)
        .map(|c| c.anchor.to_string())
        .collect();
    Ok(json!({
        "move": rec.moves,
        "finished": rec.finished || jk_finished,
        "dead": points(est.settled.dead.iter()),
        "proposed": points(proposal.settled.dead.iter()),
        "dead_from": if dead.is_some() { "marks" } else if est.from_marks { "file" } else { "estimator" },
        "seki": points(est.seki.points.iter()),
        "unsettled": unsettled,
        "rows": rows,
        "why": why_differ(&rows),
        "life": life_overlay(&rec.board),
    }))
}

/// A one-line reason for each pair of rule sets that disagree on the winner: what in the two
/// rule sets (counting, komi, seki, pass stones, handicap) makes the difference.
fn why_differ(rows: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    let rules: Vec<Option<Rules>> = rows
        .iter()
        .map(|r| r["rules"].as_str().and_then(|s| Rules::parse(s).ok()))
        .collect();
    for i in 0..rows.len() {
        for j in i + 1..rows.len() {
            if rows[i]["winner"] == rows[j]["winner"] {
                continue;
            }
            let (Some(a), Some(b)) = (&rules[i], &rules[j]) else {
                continue;
            };
            // Each difference as a key and the two values (a page says them in its own
            // language) and as the English line `why`.
            let values = |f: fn(&Rules) -> String| (f(a), f(b));
            let diff: Vec<(&str, &str, (String, String))> = [
                ("counting", "counting: ", values(|r| r.scoring.to_string())),
                ("komi", "komi ", values(|r| r.komi.to_string())),
                ("seki", "seki points: ", values(|r| r.seki.to_string())),
                ("passes", "passes: ", values(|r| r.passes.to_string())),
                (
                    "handicap",
                    "handicap compensation: ",
                    values(|r| r.handicap_bonus.to_string()),
                ),
                ("life", "life and death: ", values(|r| r.life.to_string())),
            ]
            .into_iter()
            .filter(|(_, _, (x, y))| x != y)
            .collect();
            let mut reasons: Vec<String> = diff
                .iter()
                .map(|(_, words, (x, y))| format!("{words}{x} vs {y}"))
                .collect();
            let mut keys: Vec<Value> = diff
                .iter()
                .map(|(key, _, (x, y))| json!({"key": key, "a": x, "b": y}))
                .collect();
            if reasons.is_empty() {
                reasons.push("the same counting; the settlement of dead stones differs".into());
                keys.push(json!({"key": "settlement"}));
            }
            let name = |k: usize| rows[k]["rules"].as_str().unwrap_or("").to_string();
            out.push(json!({
                "a": rules_label(a), "b": rules_label(b),
                "results": [rows[i]["result"], rows[j]["result"]],
                "why": reasons.join("; "),
                "reasons": keys,
                "rules": [name(i), name(j)],
            }));
        }
    }
    out
}

/// The summary of a Go record: what `GET /api/reviews/{id}` serves besides the analysis.
fn go_summary(g: &SgfGame, index: usize) -> Result<Value, ActError> {
    let size = g.size;
    let moves = go_moves(g)?;
    let table = table_json(g, None, None)?;
    let columns: String = (0..size.cols())
        .map(|x| {
            Point::new(x, 0)
                .to_gtp()
                .chars()
                .next()
                .expect("a GTP vertex starts with its column")
        })
        .collect();
    let setup = |c: Color| points(g.setup.points().filter(|&p| g.setup.get(p) == Some(c)));
    let start_comment: Vec<&str> = g
        .comments
        .iter()
        .filter(|(n, _)| *n == 0)
        .map(|(_, c)| c.as_str())
        .collect();
    Ok(json!({
        "game": "go",
        "size": {"cols": size.cols(), "rows": size.rows()},
        "columns": columns,
        "setup": {"black": setup(Color::Black), "white": setup(Color::White)},
        "first": g.to_move.letter().to_string(),
        "info": {
            "black": g.players[0], "white": g.players[1],
            "komi": g.komi.map(|k| k.as_f64()),
            "rules_name": g.rules_name, "rules": named_rules(g),
            "result": g.result, "handicap": g.handicap,
            "games": g.games, "game": index + 1,
        },
        "comment": (!start_comment.is_empty()).then(|| start_comment.join("\n")),
        "moves": moves,
        "legality": legality(g),
        "table": table,
    }))
}

/// The summary of a Wall Go record: each position of the replay as the game page draws it.
fn wall_summary(text: &str) -> Result<Value, ActError> {
    let game = baduk_wallgo::Game::from_record(text).map_err(|e| {
        let status = if e.is_illegal() { 422 } else { 400 };
        ActError::new(status, format!("Wall Go record {e}")).with_code(
            "review.wall",
            json!({"line": e.line, "message": e.to_string()}),
        )
    })?;
    let mut room = crate::game::wall_room::WallRoom::new(game.variant());
    let mut positions = vec![room.state()];
    for &a in game.actions() {
        room.game
            .play(a)
            .map_err(|e| ActError::illegal(format!("Wall Go record: {e}")))?;
        let mut s = room.state();
        // The whole list is in `moves` once; a position needs only its board.
        if let Some(o) = s.as_object_mut() {
            o.remove("moves");
            o.remove("auto");
        }
        positions.push(s);
    }
    let moves: Vec<String> = game.actions().iter().map(|&a| room.notation(a)).collect();
    Ok(json!({
        "game": "wallgo",
        "variant": game.variant().to_string(),
        "moves": moves,
        "positions": positions,
        "result": room.result_json(),
    }))
}

/// A review id as `new_id` makes them (anything else is not one: 404 without a query).
fn valid_id(id: &str) -> bool {
    (1..=32).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn storage(e: sqlx::Error) -> ActError {
    tracing::error!("reviews: database: {e}");
    ActError::internal("the review could not be read or stored; nothing was changed")
}

/// How many reviews the database holds.
pub async fn count(store: &crate::store::Store) -> Result<i64, String> {
    let row = sqlx::query("SELECT COUNT(*) AS n FROM reviews")
        .fetch_one(store.read_pool())
        .await
        .map_err(|e| e.to_string())?;
    row.try_get::<i64, _>("n").map_err(|e| e.to_string())
}

/// A stored review: kind, record text, the summary's JSON text, the plan and (Go) the game
/// read at upload ([`stored`]).
struct Stored {
    kind: String,
    record: String,
    summary: String,
    plan: Plan,
    game: Option<String>,
}

async fn load(st: &AppState, id: &str) -> Result<Stored, ActError> {
    let missing = || ActError::not_found("no such review");
    if !valid_id(id) {
        return Err(missing());
    }
    let row = sqlx::query(
        "SELECT kind, record, game_index, summary, plan, game FROM reviews WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(st.hub.store.read_pool())
    .await
    .map_err(storage)?
    .ok_or_else(missing)?;
    let kind: String = row.try_get("kind").map_err(storage)?;
    let record: String = row.try_get("record").map_err(storage)?;
    let index = row.try_get::<i64, _>("game_index").map_err(storage)? as usize;
    let summary: String = row.try_get("summary").map_err(storage)?;
    let stored: Option<String> = row.try_get("plan").map_err(storage)?;
    let game: Option<String> = row.try_get("game").map_err(storage)?;
    let game = stored::game(st, id, game, &kind, &record, index).await?;
    let plan =
        engine::stored_plan(st, id, stored.as_deref(), &kind, &summary, game.as_deref()).await?;
    Ok(Stored {
        kind,
        record,
        summary,
        plan,
        game,
    })
}

/// The summary's JSON object with `extra`'s fields added, spliced as text: a stored summary is
/// served without parsing it again.
fn splice(summary: &str, extra: &Value) -> Result<String, ActError> {
    let body = summary.trim_end();
    let extra = extra.to_string();
    let (Some(head), Some(tail)) = (body.strip_suffix('}'), extra.strip_prefix('{')) else {
        return Err(ActError::internal("a stored review is unreadable"));
    };
    let sep = if head.trim_end().ends_with('{') || tail.starts_with('}') {
        ""
    } else {
        ","
    };
    Ok(format!("{head}{sep}{tail}"))
}

fn json_text(text: String) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        text,
    )
        .into_response()
}

async fn get_review(
    State(st): State<AppState>,
    Extension(engine): Extension<Arc<Engine>>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
) -> Result<Response, ActError> {
    let s = load(&st, &id).await?;
    let analysis = engine::status(&st, &engine, &id, &s.plan, client).await?;
    let mut extra = tree::meta(&st, &id).await?;
    extra["public"] = json!(room::is_public(&st, &id).await?);
    extra["id"] = json!(id);
    extra["url"] = json!(format!("/r/{id}"));
    extra["analysis"] = analysis;
    Ok(json_text(splice(&s.summary, &extra)?))
}

/// `GET /api/reviews/{id}/analysis`: the analysis alone (what a page polls).
async fn get_analysis(
    State(st): State<AppState>,
    Extension(engine): Extension<Arc<Engine>>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let s = load(&st, &id).await?;
    let analysis = engine::status(&st, &engine, &id, &s.plan, client).await?;
    Ok(Json(analysis))
}

/// `POST /api/reviews/{id}/analysis`: queues the engine's review (once); answers the analysis
/// as `GET` gives it.
async fn start_analysis(
    State(st): State<AppState>,
    Extension(engine): Extension<Arc<Engine>>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ActError> {
    let s = load(&st, &id).await?;
    let analysis = engine::start(&st, &engine, &id, &s.plan, client).await?;
    Ok(Json(analysis))
}

/// `?analysis=1` on the record: the SGF rewritten with the engine's comments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordQuery {
    analysis: Option<u8>,
}

async fn get_record(
    State(st): State<AppState>,
    Extension(engine): Extension<Arc<Engine>>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
    q: Result<Query<RecordQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ActError> {
    let Query(q) = q.map_err(|e| ActError::bad_request(format!("query: {e}")))?;
    let s = load(&st, &id).await?;
    let (ctype, name) = if s.kind == "go" {
        ("application/x-go-sgf; charset=utf-8", format!("{id}.sgf"))
    } else {
        ("text/plain; charset=utf-8", format!("{id}.wallgo"))
    };
    let body = if q.analysis == Some(1) && s.kind == "go" {
        let a = engine::status(&st, &engine, &id, &s.plan, client).await?;
        let game = s.game.unwrap_or_default();
        crate::game::work::heavy()
            .run(move || Ok::<_, ActError>(export::sgf(&stored::from_json(&game)?, &a)))
            .await??
    } else if s.kind == "go" {
        // The current tree, whole; a record whose tree cannot be read comes back as uploaded.
        match tree::current(&st, &id).await {
            Ok((_, _, doc)) => crate::game::work::heavy().run(move || doc.to_sgf()).await?,
            Err(e) if e.status < 500 => s.record,
            Err(e) => return Err(e),
        }
    } else {
        s.record
    };
    Ok((
        [
            (axum::http::header::CONTENT_TYPE, ctype.to_string()),
            (
                axum::http::header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response())
}

/// The body of `POST /api/reviews/{id}/marks`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MarksReq {
    /// The position: after this many moves (default: the end of the main line).
    #[serde(default, rename = "move")]
    upto: Option<usize>,
    /// The dead stones now (any stone of a chain names it); absent: the proposal.
    #[serde(default)]
    dead: Option<Vec<String>>,
    /// A chain to toggle (dead ↔ alive) after `dead`.
    #[serde(default)]
    toggle: Option<String>,
    /// The position after this node of the tree instead of `move` (any branch).
    #[serde(default)]
    node: Option<u32>,
}

/// The most points a marks request may name.
const MAX_MARKS: usize = 25 * 25;

/// The table for a position with the marks of `req`: the chain of `toggle` flipped.
fn marks_table(g: &SgfGame, req: MarksReq) -> Result<Value, ActError> {
    if let Some(n) = req.upto.filter(|&n| n > g.moves.len()) {
        return Err(ActError::bad_request(format!(
            "move {n}: the record has {} moves",
            g.moves.len()
        )));
    }
    let rec = Record::from_game(g, req.upto).map_err(|e| sgf_error(&e))?;
    let board = &rec.board;
    let size = board.size();
    let parse = |s: &str| {
        Point::from_gtp(s.trim(), size).map_err(|e| {
            ActError::bad_request(format!(
                "point `{}`: {e}",
                s.chars().take(10).collect::<String>()
            ))
            .with_code(
                "point.bad",
                json!({"point": s.chars().take(10).collect::<String>()}),
            )
        })
    };
    let mut dead = match &req.dead {
        Some(list) => {
            if list.len() > MAX_MARKS {
                return Err(ActError::bad_request(format!(
                    "dead: at most {MAX_MARKS} points"
                )));
            }
            let mut d = PointSet::new();
            for s in list {
                let p = parse(s)?;
                if board.get(p).is_none() {
                    return Err(ActError::illegal(format!("dead {p}: no stone there"))
                        .with_code("marking.empty", json!({"point": p.to_string()})));
                }
                for q in board.chain_stones(p) {
                    d.insert(q);
                }
            }
            Some(d)
        }
        None => None,
    };
    if let Some(t) = &req.toggle {
        let p = parse(t)?;
        if board.get(p).is_none() {
            return Err(ActError::illegal(format!("toggle {p}: no stone there"))
                .with_code("marking.empty", json!({"point": p.to_string()})));
        }
        let mut d = match dead {
            Some(d) => d,
            None => {
                let proposal =
                    life::from_marks(board, &rec.marks).unwrap_or_else(|| estimate(board));
                proposal.settled.dead
            }
        };
        let chain = board.chain_stones(p);
        if d.contains(p) {
            for q in chain {
                d.remove(q);
            }
        } else {
            for q in chain {
                d.insert(q);
            }
        }
        dead = Some(d);
    }
    table_json(g, req.upto, dead)
}

async fn marks(
    State(st): State<AppState>,
    Extension(client): Extension<ClientKey>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, ActError> {
    let req: MarksReq = if body.is_empty() {
        MarksReq {
            upto: None,
            dead: None,
            toggle: None,
            node: None,
        }
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ActError::bad_request(format!("bad JSON body: {e}")))?
    };
    if let Err(r) = st.budgets.actions.check(&client) {
        return Err(r.to_error());
    }
    let s = load(&st, &id).await?;
    if s.kind != "go" {
        return Err(ActError::bad_request(
            "dead stones are marked on Go records; a Wall Go record has none",
        ));
    }
    if let Some(node) = req.node {
        if req.upto.is_some() {
            return Err(ActError::bad_request(
                "a position is `move` (of the main line) or `node` (of the tree), not both",
            ));
        }
        let (_, _, doc) = tree::current(&st, &id).await?;
        let v = crate::game::work::heavy()
            .run(move || {
                if doc.node(node).is_none() {
                    return Err(ActError::not_found(format!("the tree has no node {node}"))
                        .with_code("review.no_node", json!({"node": node})));
                }
                marks_table(&doc.line_game(node).map_err(|e| sgf_error(&e))?, req)
            })
            .await??;
        return Ok(Json(v));
    }
    let game = s.game.unwrap_or_default();
    let v = crate::game::work::heavy()
        .run(move || marks_table(&stored::from_json(&game)?, req))
        .await??;
    Ok(Json(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_text_names_utf8() {
        assert_eq!(
            as_utf8("(;CA[EUC-KR]C[CA[x\\]]PB[a];B[aa])"),
            "(;CA[UTF-8]C[CA[x\\]]PB[a];B[aa])"
        );
        assert_eq!(as_utf8("(;GM[1]CA [Shift_JIS])"), "(;GM[1]CA [UTF-8])");
        assert_eq!(as_utf8("(;SCA[x])"), "(;SCA[x])");
    }

    #[test]
    fn a_wall_record_is_known_by_its_first_line() {
        assert!(is_wall_record(b"# a game\n\nwallgo 1\n"));
        assert!(!is_wall_record(b"(;GM[1]C[wallgo 1])"));
    }
}
